/**
 * The result-matching reproductions of issue 24, through the real
 * `sql-verdict compare` on DuckDB: each used to fail with confident but
 * untrue reasons.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

const compare = (expected: string, actual: string, ...flags: string[]) =>
  runCli([
    'compare',
    '--engine',
    'duckdb',
    '--fixture',
    'retail',
    '--expected',
    expected,
    '--actual',
    actual,
    '--json',
    ...flags,
  ]);

describe('sql-verdict compare: result matching reproductions', () => {
  it('floats whose only pairing within 1e-6 crosses; an all-NULL column typed differently and columns reordered; 4 BOOLEAN columns rotated', async () => {
    const bools = '(VALUES (false, true, true, true), (true, false, false, false)) t(c0, c1, c2, c3)';
    const runs = await Promise.all([
      compare(
        'SELECT * FROM (VALUES (1.0000021::DOUBLE), (1.0000014::DOUBLE), (1.0::DOUBLE)) t(v)',
        'SELECT * FROM (VALUES (1.00000141::DOUBLE), (1.0000028::DOUBLE), (1.0000007::DOUBLE)) t(v)',
      ),
      compare(
        'SELECT CAST(NULL AS INTEGER) AS n, a, b FROM (VALUES (1,2),(2,3),(3,1)) t(a,b)',
        'SELECT CAST(NULL AS VARCHAR) AS x, b AS y, a AS z FROM (VALUES (1,2),(2,3),(3,1)) t(a,b)',
      ),
      compare(
        `SELECT * FROM ${bools}`,
        `SELECT c1 AS x0, c2 AS x1, c3 AS x2, c0 AS x3 FROM ${bools}`,
        '--mode',
        'order-sensitive',
      ),
    ]);
    for (const run of runs) {
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const report = JSON.parse(run.stdout);
      expect(report.deterministic_verdict).toBe('pass');
      expect(report.evidence.result.reasons).toEqual([]);
    }
    const [floats, nulls, booleans] = runs.map((r) => JSON.parse(r.stdout).evidence.result);
    expect(floats.row_overlap.matched_rows).toBe(3);
    expect(nulls.column_alignment.method).toBe('content');
    // c1, c2 and c3 hold the same cells: any order among them is right; c0 must be the moved column.
    expect(booleans.column_alignment.mapping[0]).toMatchObject({ expected_index: 0, actual_index: 3 });
  }, 240_000); // three CLI processes, each starting DuckDB-WASM
});
