/**
 * `--engine pglite` and `--engine postgres` through the real entry point: the
 * built-in retail fixture by name on PGlite (frozen clock, PostgreSQL dialect),
 * a compare graded on PGlite, and the server engine with --database-url (run
 * when SQL_VERDICT_DATABASE_URL names one; .ci/run starts it).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

const url = process.env.SQL_VERDICT_DATABASE_URL;

describe('sql-verdict --engine pglite', () => {
  it('query: the built-in retail fixture by name, PostgreSQL SQL, the clock frozen at its as-of date', async () => {
    const sql =
      "SELECT count(*) FILTER (WHERE city ILIKE 'b%') AS b_cities, count(*) AS customers, current_date AS today, date_trunc('month', now())::date AS month FROM customers";
    const run = await runCli(['query', '--fixture', 'retail', '--engine', 'pglite', sql, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(json).toMatchObject({ engine: 'pglite' });
    expect(json.columns.map((c: { kind: string }) => c.kind)).toEqual(['integer', 'integer', 'date', 'date']);
    expect(json.rows[0].slice(1)).toEqual([160, '2025-06-30', '2025-06-01']);
  }, 180_000);

  it('compare: a PostgreSQL candidate graded against a reference on PGlite', async () => {
    const run = await runCli([
      'compare',
      '--fixture',
      'retail',
      '--engine',
      'pglite',
      '--expected',
      'SELECT country_code, count(*) AS n FROM customers GROUP BY country_code',
      '--actual',
      'SELECT DISTINCT ON (country_code) country_code, count(*) OVER (PARTITION BY country_code) AS n FROM customers ORDER BY country_code',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ deterministic_verdict: 'pass' });
  }, 180_000);

  it('--engine postgres without a server says how to name one', async () => {
    const run = await runCli(['query', '--fixture', 'retail', '--engine', 'postgres', 'SELECT 1'], {
      env: { SQL_VERDICT_DATABASE_URL: '' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--database-url/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it.skipIf(!url)(
    '--engine postgres --database-url URL: the same answer from the server',
    async () => {
      const run = await runCli(
        [
          'query',
          '--fixture',
          'retail',
          '--engine',
          'postgres',
          '--database-url',
          url!,
          'SELECT count(*) AS products, sum(list_price) AS total FROM products',
          '--json',
        ],
        {
          env: { SQL_VERDICT_DATABASE_URL: '' },
        },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({
        engine: 'postgres',
        rows: [[30, expect.stringMatching(/^\d+\.\d{2}$/)]],
      });
    },
    60_000,
  );
});
