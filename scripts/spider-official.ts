/**
 * The official Spider dev layout (built from ../shared/data/spider-dev/official
 * in a temp folder: dev.json, dev_gold.sql, nine systems' predictions,
 * database/) graded with `--policy spider`, per system, against the official
 * evaluator's execution accuracy (the stored verdict_exec sums; and
 * --keep-distinct against verdict_exec_keep_distinct).
 *
 *   node --import tsx scripts/spider-official.ts            # preset only: importer + spider preset, every line
 *   node --import tsx scripts/spider-official.ts --cli      # the real CLI (full pipeline too, SQL Verdict's verdict beside)
 *   [--systems a,b] [--every N] [--out FILE]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { main } from '../src/cli/main.ts';
import { DbDirPool, listDbDir } from '../src/cli/db-dir.ts';
import { applyPreset } from '../src/core/run/preset-grade.ts';
import type { RunReport } from '../src/core/run/grade-run.ts';
import { buildSpiderLayout, presetVerdicts, SPIDER_SYSTEMS } from '../tests/helpers/spider-layout.ts';
import { importSpider } from '../src/core/import/spider.ts';
import { corpusYaml, runJsonl } from '../src/core/import/common.ts';
import { loadCorpus } from '../src/core/corpus/load-corpus.ts';
import { loadRun } from '../src/core/corpus/load-run.ts';

const args = process.argv.slice(2);
const flag = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const useCli = args.includes('--cli');
const systems = flag('--systems')?.split(',') ?? SPIDER_SYSTEMS;
const every = Number(flag('--every') ?? 1);
const out = flag('--out');

const layout = buildSpiderLayout((_, k) => k % every === 0, systems);
const folder = listDbDir(layout.dbDir, '/');
const pool = new DbDirPool(folder.files);
const rows: string[] = [];
let allExact = true;
const started = performance.now();
for (const system of systems) {
  const t0 = performance.now();
  const official = layout.official(system);
  let exec: boolean[];
  let keep: boolean[];
  let native: number | null = null;
  if (useCli) {
    const report = path.join(layout.dir, `${system}.report.json`);
    const io = { out: () => undefined, err: () => undefined, cwd: layout.dir, env: {} };
    await main(
      [
        'run',
        '--format',
        'spider',
        '--gold',
        layout.gold,
        '--pred',
        layout.pred(system),
        '--db-dir',
        layout.dbDir,
        '--policy',
        'spider',
        '--out',
        report,
      ],
      io,
    );
    const graded = JSON.parse(readFileSync(report, 'utf8')) as RunReport;
    exec = graded.cases.map((c) => c.outcome === 'correct');
    native = graded.policy_preset!.native_answer_accuracy.correct;
    // --keep-distinct on the same native grading: the preset pass again.
    const bytes = (f: string) => ({ file: path.basename(f), bytes: new Uint8Array(readFileSync(f)) });
    const imported = importSpider({ gold: bytes(layout.gold), pred: bytes(layout.pred(system)) });
    if (!imported.ok) throw new Error('import failed');
    const corpus = await loadCorpus(new TextEncoder().encode(corpusYaml(imported.imported)), { file: 'dev_gold.sql' });
    const run = await loadRun(new TextEncoder().encode(runJsonl(imported.imported)), { file: 'pred', format: 'jsonl' });
    if (!corpus.ok || !run.ok) throw new Error('load failed');
    const nativeReport = {
      ...graded,
      cases: graded.cases.map((c) => ({
        ...c,
        outcome: c.policy_preset?.native_outcome ?? c.outcome,
        reason_code: c.policy_preset ? c.policy_preset.native_reason_code : c.reason_code,
      })),
    };
    const kept = await applyPreset({
      report: nativeReport,
      corpus: corpus.loaded,
      run: run.run,
      engineFor: pool.engineFor,
      preset: { name: 'spider', keepDistinct: true },
      config: { query_timeout_ms: 30_000 },
    });
    if (!kept.ok) throw new Error(kept.error.message);
    keep = kept.value.cases.map((c) => c.outcome === 'correct');
  } else {
    exec = await presetVerdicts(layout, system, false, pool);
    keep = await presetVerdicts(layout, system, true, pool);
  }
  const sum = (v: boolean[]) => v.filter(Boolean).length;
  const mismatches = exec.flatMap((v, i) => (v === official.exec[i] ? [] : [`line ${layout.kept[i]! + 1}`]));
  const kmismatches = keep.flatMap((v, i) => (v === official.keepDistinct[i] ? [] : [`line ${layout.kept[i]! + 1}`]));
  const exact = mismatches.length === 0 && kmismatches.length === 0;
  allExact &&= exact;
  rows.push(
    `| ${system} | ${exec.length} | ${sum(official.exec)} | ${sum(exec)} | ${sum(official.keepDistinct)} | ${sum(keep)} | ${native ?? '—'} | ${exact ? 'yes' : `no (${[...mismatches, ...kmismatches].slice(0, 5).join(', ')})`} |`,
  );
  console.error(
    `${system}: ${sum(exec)}/${exec.length} (official ${sum(official.exec)}), keep-distinct ${sum(keep)} (official ${sum(official.keepDistinct)}), ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
}
await pool.close();
const seconds = (performance.now() - started) / 1000;
const text = [
  `Spider dev, ${layout.kept.length} questions with a database${every > 1 ? ` (every ${every}th)` : ''}, ${useCli ? 'through `sql-verdict run --format spider --policy spider` (full pipeline)' : 'importer + spider preset'}; ${seconds.toFixed(0)} s in total.`,
  '',
  '| system | questions | official EX | `--policy spider` | official keep-distinct | `--keep-distinct` | SQL Verdict policy | every verdict equal |',
  '|---|--:|--:|--:|--:|--:|--:|---|',
  ...rows,
].join('\n');
console.log(text);
if (out) writeFileSync(out, `${text}\n`);
process.exit(allExact ? 0 : 1);
