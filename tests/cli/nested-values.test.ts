/**
 * Values inside lists and structs through the real CLI (issue #23): every
 * row's list is read at its own position, so exact values print in the
 * table and in JSON, and a candidate whose lists differ from the second row
 * on fails, naming the cell.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

const DOUBLES = 'SELECT * FROM (VALUES ([1.5::DOUBLE]), ([2.5::DOUBLE, 3.5::DOUBLE])) t(l)';

describe('nested values through sql-verdict', () => {
  it('query prints each row’s list exactly, as a table', async () => {
    const run = await runCli(['query', '--fixture', 'retail', '--engine', 'duckdb', DOUBLES]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^DOUBLE\[\]$/m);
    expect(run.stdout).toMatch(/^\[1\.5\]$/m);
    expect(run.stdout).toMatch(/^\[2\.5, 3\.5\]$/m);
    expect(run.stdout).toMatch(/\(2 rows\)/);
  });

  it('query --json gives the lists with their element kind', async () => {
    const run = await runCli(['query', '--fixture', 'retail', '--engine', 'duckdb', '--json', DOUBLES]);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(json.columns).toEqual([
      {
        name: 'l',
        kind: 'list',
        engine_type: 'DOUBLE[]',
        children: [{ name: 'element', kind: 'float', engine_type: 'DOUBLE' }],
      },
    ]);
    expect(json.rows).toEqual([[[1.5]], [[2.5, 3.5]]]);
  });

  it('compare fails a candidate whose lists differ after the first row, naming the cell', async () => {
    const run = await runCli([
      'compare',
      '--engine',
      'duckdb',
      '--fixture',
      'retail',
      '--expected',
      'SELECT i, [i, i + 1] AS l FROM range(3) t(i)',
      '--actual',
      'SELECT i, [i, CASE WHEN i = 0 THEN 1 ELSE -999 END] AS l FROM range(3) t(i)',
    ]);
    expect(run.stdout).toMatch(/^FAIL/);
    expect(run.stdout).toMatch(/Column "l" differs: expected \[1,2\], got \[1,-999\]/);
  });

  it('compare passes 5::UHUGEINT against 5::HUGEINT (the same number)', async () => {
    const run = await runCli([
      'compare',
      '--engine',
      'duckdb',
      '--fixture',
      'retail',
      '--expected',
      'SELECT 5::UHUGEINT AS n',
      '--actual',
      'SELECT 5::HUGEINT AS n',
    ]);
    expect(run.stdout).toMatch(/^PASS/);
  });
});
