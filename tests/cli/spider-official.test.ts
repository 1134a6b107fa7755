/**
 * The official Spider dev layout (dev.json, dev_gold.sql, nine systems'
 * predictions, database/), built in a temp folder from
 * ../shared/data/spider-dev, graded with `--policy spider`: every verdict
 * equals the official evaluator's stored one (verdict_exec; with
 * --keep-distinct, verdict_exec_keep_distinct), so the per-system sums are
 * its execution accuracy. On a deterministic sample here; every line of
 * every system in `scripts/spider-official.ts` (figures in docs/benchmark-files.md).
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { DbDirPool, listDbDir } from '../../src/cli/db-dir.ts';
import type { Io } from '../../src/cli/io.ts';
import type { RunReport } from '../../src/core/run/grade-run.ts';
import { FULL_SPIDER_SKIP } from '../helpers/paths.ts';
import {
  buildSpiderLayout,
  presetVerdicts,
  SPIDER_SYSTEMS,
  spiderAvailable,
  type SpiderLayout,
} from '../helpers/spider-layout.ts';

const available = spiderAvailable();
if (!available) console.warn(`skipped: ${FULL_SPIDER_SKIP}`);
const layouts: SpiderLayout[] = [];
afterAll(() => {
  for (const l of layouts) rmSync(l.dir, { recursive: true, force: true });
});

const count = (v: boolean[]) => v.filter(Boolean).length;

describe.skipIf(!available)('the official Spider layout (full Spider dev data) under --policy spider', () => {
  it('preset verdicts equal the official ones on every 6th line of all nine systems (both DISTINCT modes)', async () => {
    const layout = buildSpiderLayout((_, k) => k % 6 === 0);
    layouts.push(layout);
    const pool = new DbDirPool(listDbDir(layout.dbDir, '/').files);
    try {
      for (const system of SPIDER_SYSTEMS) {
        const official = layout.official(system);
        const exec = await presetVerdicts(layout, system, false, pool);
        const keep = await presetVerdicts(layout, system, true, pool);
        expect({ system, exec }).toEqual({ system, exec: official.exec });
        expect({ system, keep }).toEqual({ system, keep: official.keepDistinct });
      }
    } finally {
      await pool.close();
    }
  }, 180_000);

  it('through the CLI, per system: the same verdicts as the official evaluator; each difference with SQL Verdict named', async () => {
    // Every 60th line (17 lines, all systems); the first system with --keep-distinct.
    const layout = buildSpiderLayout((_, k) => k % 60 === 0);
    layouts.push(layout);
    const sums: Record<string, [number, number]> = {};
    for (const [s, system] of SPIDER_SYSTEMS.entries()) {
      let stdout = '';
      const io: Io = { out: (t) => void (stdout += t), err: () => undefined, cwd: layout.dir, env: {} };
      const args = [
        'run',
        '--format',
        'spider',
        '--gold',
        'dev_gold.sql',
        '--questions',
        'dev.json',
        '--pred',
        path.relative(layout.dir, layout.pred(system)),
        '--db-dir',
        'database',
        '--policy',
        'spider',
        '--json',
      ];
      if (s === 0) args.push('--keep-distinct');
      await main(args, io);
      const report = JSON.parse(stdout) as RunReport;
      const official = layout.official(system);
      const want = s === 0 ? official.keepDistinct : official.exec;
      const got = report.cases.map((c) => c.outcome === 'correct');
      expect({ system, got }).toEqual({ system, got: want });
      expect(report.summary.answer_accuracy.correct).toBe(count(want));
      sums[system] = [report.summary.answer_accuracy.correct, count(want)];
      for (const c of report.cases) {
        expect(c.policy_preset?.native_outcome).toMatch(/^(correct|wrong)$/);
        if (c.policy_preset?.differs) expect(c.policy_preset.policy_difference).not.toBe('other');
      }
      expect(report.cases[0]!.question).toBe(
        (JSON.parse(readFileSync(layout.questions, 'utf8')) as { question: string }[])[0]!.question,
      );
    }
    expect(Object.keys(sums)).toHaveLength(9);
  }, 600_000);
});
