/**
 * Cross-engine agreement across DuckDB, SQLite and PostgreSQL (PGlite), through
 * the real CLI: `run --cross-engine` on the committed four-case corpus
 * fixtures/cross-engine/agreement.yaml (a case every engine agrees on, one that
 * depends on the engine, one SQLite cannot run, one whose reference is DuckDB's
 * and is ported to PostgreSQL), its output checked against the example in
 * docs/postgres.md; and `compare --cross-engine` on SQLite with a candidate
 * SQLite refuses (the graded leg is a dialect error, not a different answer).
 * Both commands start the three engines: they run side by side, once.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../helpers/cli.ts';
import { repoRoot } from '../helpers/paths.ts';

const dir = path.join(repoRoot, 'fixtures', 'cross-engine');
const tmp = mkdtempSync(path.join(tmpdir(), 'sql-verdict-cross-'));
const out = path.join(tmp, 'report.json');
let run: CliRun;
let compare: CliRun;

beforeAll(async () => {
  [run, compare] = await Promise.all([
    runCli([
      'run',
      '--corpus',
      path.join(dir, 'agreement.yaml'),
      '--run',
      path.join(dir, 'agreement.run.jsonl'),
      '--ports',
      path.join(dir, 'agreement.postgres.yaml'),
      '--cross-engine',
      '--out',
      out,
    ]),
    runCli([
      'compare',
      '--fixture',
      'retail',
      '--engine',
      'sqlite',
      '--cross-engine',
      '--expected',
      "SELECT count(*) AS b FROM customers WHERE lower(city) LIKE 'b%'",
      '--actual',
      "SELECT count(*) AS b FROM customers WHERE city ILIKE 'b%'",
      '--json',
    ]),
  ]);
}, 600_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Leg {
  engine: string;
  graded: boolean;
  verdict: string;
  expected_sql: string | null;
  dialect_error: { query: string; category: string; message: string } | null;
}

describe('run --cross-engine (DuckDB, SQLite, PGlite)', () => {
  it('prints the per-engine counts of docs/postgres.md, line for line', () => {
    expect(run.code, run.stderr).toBe(0);
    const doc = readFileSync(path.join(repoRoot, 'docs', 'postgres.md'), 'utf8');
    const block = /<!-- cross-engine-run-example -->[\s\S]*?```text\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(block, 'the example block in docs/postgres.md').toBeTruthy();
    const lines = run.stdout.split('\n');
    for (const line of block!.trimEnd().split('\n')) expect(lines).toContain(line);
  });

  it('reports the verdict per engine per case, and the engine-dependent count', () => {
    const report = JSON.parse(readFileSync(out, 'utf8'));
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema(JSON.parse(readFileSync(path.join(repoRoot, 'docs/report.schema.json'), 'utf8')));
    const validate = ajv.compile(JSON.parse(readFileSync(path.join(repoRoot, 'docs/run-report.schema.json'), 'utf8')));
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    const byId = Object.fromEntries(
      (report.cases as { id: string; cross_engine: unknown }[]).map((k) => [k.id, k.cross_engine]),
    );
    expect(byId).toEqual({
      'agree-customer-count': {
        engine_dependent: false,
        verdicts: { pglite: 'pass', duckdb: 'pass', sqlite: 'pass' },
      },
      // Integer division: 6 on PostgreSQL and SQLite (the reference's floor), 6.25 on DuckDB.
      'cancelled-percent-integer-division': {
        engine_dependent: true,
        verdicts: { pglite: 'pass', duckdb: 'fail', sqlite: 'pass' },
      },
      'b-cities-ilike': {
        engine_dependent: false,
        verdicts: { pglite: 'pass', duckdb: 'pass', sqlite: 'dialect_error' },
      },
      'orders-2025-year-function': {
        engine_dependent: false,
        verdicts: { pglite: 'pass', duckdb: 'pass', sqlite: 'dialect_error' },
      },
    });
    expect(report.cross_engine).toMatchObject({
      graded_engine: 'pglite',
      cases: 4,
      engine_dependent: 1,
      engine_dependent_ids: ['cancelled-percent-integer-division'],
    });
    const legs = (id: string): Leg[] =>
      report.cases.find((k: { id: string }) => k.id === id).report.evidence.cross_engine.engines;
    // A dialect failure says which query and why; it is not a different answer.
    expect(legs('b-cities-ilike').find((l) => l.engine === 'sqlite')!.dialect_error).toMatchObject({
      query: 'candidate',
      category: 'syntax_error',
    });
    const year = legs('orders-2025-year-function');
    // The PostgreSQL leg (graded) runs the port; DuckDB and SQLite the corpus's own reference.
    expect(report.cases[3].report.evidence.expected_sql).toMatch(/extract\(year FROM order_ts\)/);
    expect(year.find((l) => l.engine === 'duckdb')).toMatchObject({
      verdict: 'pass',
      expected_sql: expect.stringMatching(/year\(order_ts\) = 2025/),
    });
    expect(year.find((l) => l.engine === 'sqlite')!.dialect_error).toMatchObject({
      query: 'reference',
      category: 'missing_function',
      message: 'no such function: year',
    });
    const flagged = report.cases.filter((k: { review_flags: { code: string }[] }) =>
      k.review_flags.some((f) => f.code === 'engine_dependent'),
    );
    expect(flagged.map((k: { id: string }) => k.id)).toEqual(['cancelled-percent-integer-division']);
  });
});

describe('compare --cross-engine', () => {
  it('a candidate the graded engine refuses as not its dialect is still asked of the others', () => {
    expect(compare.code, compare.stderr).toBe(1);
    const report = JSON.parse(compare.stdout);
    expect(report.deterministic_verdict).toBe('fail');
    const x = report.evidence.cross_engine as { engine_dependent: boolean; dialect_errors: string[]; engines: Leg[] };
    expect(x.engine_dependent).toBe(false);
    expect(x.dialect_errors).toEqual(['sqlite']);
    expect(x.engines.map((l) => [l.engine, l.graded, l.verdict])).toEqual([
      ['sqlite', true, 'dialect_error'],
      ['duckdb', false, 'pass'],
      ['pglite', false, 'pass'],
    ]);
    expect(report.warnings.map((w: { code: string }) => w.code)).toContain('cross_engine_dialect');
  });
});

const url = process.env.SQL_VERDICT_DATABASE_URL;

describe('compare --cross-engine graded on a PostgreSQL server', () => {
  it.skipIf(!url)(
    'the server is the PostgreSQL leg (PGlite, the same dialect, is not asked again); integer division depends on the engine',
    async () => {
      const graded = await runCli([
        'compare',
        '--fixture',
        'retail',
        '--engine',
        'postgres',
        '--database-url',
        url!,
        '--cross-engine',
        '--expected',
        "SELECT CAST(floor(100.0 * sum(CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END) / count(*)) AS INTEGER) AS pct FROM orders",
        '--actual',
        "SELECT 100 * sum(CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END) / count(*) AS pct FROM orders",
        '--json',
      ]);
      expect(graded.code, graded.stderr).toBe(0);
      const x = JSON.parse(graded.stdout).evidence.cross_engine as { engine_dependent: boolean; engines: Leg[] };
      expect(x.engine_dependent).toBe(true);
      expect(x.engines.map((l) => [l.engine, l.verdict])).toEqual([
        ['postgres', 'pass'],
        ['duckdb', 'fail'],
        ['sqlite', 'pass'],
      ]);
    },
    180_000,
  );
});
