/**
 * `run --cross-engine --shard K/N`, then `merge`: the merged report carries the
 * run-level cross-engine figures of the whole corpus (tallied again from the
 * merged cases, in corpus order), as the single run (tests/cli/cross-engine.test.ts)
 * reports them; shards whose cross-engine parts do not fit are refused with the
 * file and the field named. Before, merge refused every such pair of shards
 * ("cross_engine.engine_dependent differs").
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { repoRoot } from '../helpers/paths.ts';

const dir = path.join(repoRoot, 'fixtures', 'cross-engine');
const tmp = mkdtempSync(path.join(tmpdir(), 'sql-verdict-cross-merge-'));
const shard = (k: number) => path.join(tmp, `shard-${k}.json`);

beforeAll(async () => {
  const runs = await Promise.all(
    [1, 2].map((k) =>
      runCli([
        'run',
        '--corpus',
        path.join(dir, 'agreement.yaml'),
        '--run',
        path.join(dir, 'agreement.run.jsonl'),
        '--ports',
        path.join(dir, 'agreement.postgres.yaml'),
        '--cross-engine',
        '--shard',
        `${k}/2`,
        '--out',
        shard(k),
      ]),
    ),
  );
  for (const r of runs) expect(r.code, r.stderr).toBe(0);
}, 600_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('merge of cross-engine shards', () => {
  it('gives the whole run its cross-engine figures, in corpus order, whatever the order of the shards', async () => {
    const out = path.join(tmp, 'merged.json');
    const merged = await runCli(['merge', shard(2), shard(1), '--out', out]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toContain(
      'Cross-engine (graded on pglite; 4 cases ran on pglite, duckdb, sqlite): 1 engine_dependent: cancelled-percent-integer-division',
    );
    const report = JSON.parse(readFileSync(out, 'utf8'));
    // The figures the single run prints (docs/postgres.md), not one shard's half of them.
    expect(report.cross_engine).toEqual({
      graded_engine: 'pglite',
      cases: 4,
      engine_dependent: 1,
      engine_dependent_ids: ['cancelled-percent-integer-division'],
      engines: [
        {
          engine: 'pglite',
          pass: 4,
          fail: 0,
          undecided: 0,
          not_comparable: 0,
          dialect_error: 0,
          dialect_error_ids: [],
        },
        {
          engine: 'duckdb',
          pass: 3,
          fail: 1,
          undecided: 0,
          not_comparable: 0,
          dialect_error: 0,
          dialect_error_ids: [],
        },
        {
          engine: 'sqlite',
          pass: 2,
          fail: 0,
          undecided: 0,
          not_comparable: 0,
          dialect_error: 2,
          dialect_error_ids: ['b-cities-ilike', 'orders-2025-year-function'],
        },
      ],
    });
    // Where a single run's report has it: after the cases, before run_metadata.
    expect(Object.keys(report).slice(-2)).toEqual(['cross_engine', 'run_metadata']);
  });

  it('refuses a shard without cross-engine figures, and a case verdict that is not one', async () => {
    const plain = JSON.parse(readFileSync(shard(2), 'utf8'));
    delete plain.cross_engine;
    writeFileSync(path.join(tmp, 'plain.json'), JSON.stringify(plain));
    const missing = await runCli(['merge', shard(1), path.join(tmp, 'plain.json'), '--out', '-']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/plain\.json \(field cross_engine\.graded_engine\): differs from/);

    const edited = JSON.parse(readFileSync(shard(2), 'utf8'));
    edited.cases[0].cross_engine.verdicts.duckdb = 'maybe';
    writeFileSync(path.join(tmp, 'edited.json'), JSON.stringify(edited));
    const bad = await runCli(['merge', shard(1), path.join(tmp, 'edited.json'), '--out', '-']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      `case ${edited.cases[0].id} (field cross_engine): must be {engine_dependent, verdicts`,
    );
  });
});
