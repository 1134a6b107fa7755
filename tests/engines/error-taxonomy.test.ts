/**
 * Which error-taxonomy classes can occur on which engine (seed 001's DML
 * runtime error categories plus the sandbox's): one probe per reachable
 * class and engine, run on the real engine, and docs/error-taxonomy.md's
 * table checked against this one. division_by_zero cannot occur on DuckDB or
 * SQLite: both return NULL for a division by zero (tested here too).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATEGORIES, type ErrorCategory } from '../../src/core/errors.ts';
import { evaluationRequest } from '../../src/core/evaluation/request.ts';
import { categorizeEngineError } from '../../src/core/validation/error-taxonomy.ts';
import { evaluate } from '../../src/core/pipeline.ts';
import { openEngine } from '../../src/engines/node.ts';
import type { SupervisedEngine } from '../../src/engines/supervisor.ts';
import { sqlFixture } from '../helpers/fixtures.ts';
import { repoRoot } from '../helpers/paths.ts';

type Engines = 'duckdb' | 'sqlite';
/** A statement that raises the class, or null when the class cannot occur on that engine. */
const PROBES: Record<ErrorCategory, Record<Engines, string | null>> = {
  syntax_error: { duckdb: 'SELEC 1', sqlite: 'SELEC 1' },
  missing_table: { duckdb: 'SELECT * FROM nope', sqlite: 'SELECT * FROM nope' },
  missing_column: { duckdb: 'SELECT nope FROM t', sqlite: 'SELECT nope FROM t' },
  type_mismatch: { duckdb: "SELECT 'abc'::INTEGER", sqlite: "SELECT a FROM t LIMIT 'x'" },
  division_by_zero: { duckdb: null, sqlite: null },
  invalid_aggregation: { duckdb: 'SELECT a, count(*) FROM t', sqlite: 'SELECT a FROM t WHERE count(*) > 1' },
  ambiguous_reference: { duckdb: 'SELECT a FROM t t1, t t2', sqlite: 'SELECT a FROM t t1, t t2' },
  // SQLite: the database is read-only, but every write is rejected by the statement gate first (statement_rejected).
  permission_error: { duckdb: "SELECT * FROM read_csv('/etc/passwd')", sqlite: null },
  timeout: {
    duckdb: 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r',
    sqlite: 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r',
  },
  statement_rejected: { duckdb: 'DROP TABLE t', sqlite: 'DROP TABLE t' },
  // SQLite has no extensions: an unknown function is unknown_error.
  engine_unsupported: { duckdb: 'SELECT ST_Point(1, 2)', sqlite: null },
  resource_exhausted: { duckdb: 'SELECT list(range) FROM range(50000000)', sqlite: 'SELECT zeroblob(2000000000)' },
  unknown_error: { duckdb: 'SELECT 2147483647::INTEGER + 1::INTEGER', sqlite: 'SELECT nope()' },
};

const engines = {} as Record<Engines, SupervisedEngine>;
beforeAll(async () => {
  for (const name of ['duckdb', 'sqlite'] as const) {
    engines[name] = openEngine(name, { memoryLimit: '256MB' });
    const loaded = await engines[name].load(
      sqlFixture('t', 'CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2);'),
    );
    if (!loaded.ok) throw new Error(loaded.error.message);
  }
});
afterAll(async () => Promise.all(Object.values(engines).map((e) => e.close())));

describe.each(['duckdb', 'sqlite'] as const)('error taxonomy on %s', (name) => {
  it(
    'every class marked reachable is raised by its probe, with the raw message kept',
    { timeout: 120_000 },
    async () => {
      const got: string[] = [];
      for (const category of ERROR_CATEGORIES) {
        const sql = PROBES[category][name];
        if (sql === null) continue;
        const outcome = await engines[name].execute(sql, { timeoutMs: category === 'timeout' ? 600 : 20_000 });
        got.push(`${category}: ${outcome.ok ? 'ran' : (outcome.error.category ?? outcome.error.code)}`);
        if (!outcome.ok && category !== 'timeout') expect(outcome.error.message.length).toBeGreaterThan(0);
        // The engine's own message, without the statement gate's wrapper (query('…')) the user never wrote.
        if (!outcome.ok) expect(outcome.error.raw ?? '').not.toMatch(/FROM query\(/);
      }
      const want = ERROR_CATEGORIES.filter((c) => PROBES[c][name] !== null).map((c) => `${c}: ${c}`);
      expect(got).toEqual(want);
    },
  );

  it('a division by zero returns NULL instead of raising division_by_zero, and grades as a value', async () => {
    const got: string[] = [];
    for (const sql of [
      'SELECT 1 / 0 AS x',
      'SELECT 1 % 0 AS x',
      'SELECT 1.0 / 0 AS x',
      'SELECT CAST(1 AS DECIMAL(10,2)) / 0 AS x',
    ]) {
      const outcome = await engines[name].execute(sql);
      got.push(`${sql}: ${outcome.ok ? JSON.stringify(outcome.value.rows) : outcome.error.category}`);
    }
    expect(got).toEqual(got.map((g) => `${g.split(': ')[0]}: [[null]]`));
    // A candidate dividing by zero is a wrong value (NULL), not an execution failure.
    const r = await evaluate(
      evaluationRequest({
        expected_sql: 'SELECT count(*) / 2.0 AS x FROM t',
        actual_sql: 'SELECT count(*) / 0 AS x FROM t',
      }),
      engines[name],
    );
    expect(r).toMatchObject({ deterministic_verdict: 'fail', blocked_reason: null, error_types: [] });
  });
});

describe('out of memory is recognised by exact phrases only (resource_exhausted restarts the engine)', () => {
  const cases: [Engines, string, ErrorCategory][] = [
    [
      'duckdb',
      'Out of Memory Error: failed to allocate data of size 16.0 MiB (242.2 MiB/244.1 MiB used)',
      'resource_exhausted',
    ],
    [
      'duckdb',
      'Out of Memory Error: could not allocate block of size 256.0 KiB (255.9 MiB/256.0 MiB used)',
      'resource_exhausted',
    ],
    ['duckdb', 'RangeError: WebAssembly.Memory.grow(): Maximum memory size exceeded', 'resource_exhausted'],
    ['duckdb', 'Aborted(OOM)', 'resource_exhausted'],
    ['duckdb', 'malloc of size 1073741824 failed', 'resource_exhausted'],
    ['duckdb', 'std::bad_alloc', 'resource_exhausted'],
    ['sqlite', 'Cannot enlarge memory arrays to size 2147549184 bytes (OOM).', 'resource_exhausted'],
    ['sqlite', 'Reached heap limit', 'resource_exhausted'],
    ['sqlite', 'out of memory', 'resource_exhausted'],
    ['sqlite', 'string or blob too big', 'resource_exhausted'],
    // Mentions of memory or limits that are not an exhausted engine:
    ['duckdb', 'Binder Error: Referenced column "memory_limit" not found in FROM clause!', 'missing_column'],
    ['duckdb', "Conversion Error: Could not convert string 'x: Out of Memory Error' to INT32", 'type_mismatch'],
    ['sqlite', 'too many columns on t', 'unknown_error'],
    ['sqlite', 'too many terms in compound SELECT', 'unknown_error'],
    ['sqlite', 'too many FROM clause terms, max: 200', 'unknown_error'],
    ['sqlite', 'no such column: out of memory', 'missing_column'],
    ['sqlite', 'too many arguments on function max', 'type_mismatch'],
  ];
  it.each(cases)('%s: %s', (engine, raw, category) => {
    expect(categorizeEngineError(engine, raw)).toBe(category);
  });
});

describe('docs/error-taxonomy.md', () => {
  it('states per engine which classes can occur, as probed above', () => {
    const doc = readFileSync(path.join(repoRoot, 'docs', 'error-taxonomy.md'), 'utf8');
    for (const category of ERROR_CATEGORIES) {
      const row = doc.split('\n').find((l) => l.startsWith(`| \`${category}\` |`));
      expect(row, category).toBeDefined();
      const cells = row!.split('|').map((c) => c.trim());
      const mark = (sql: string | null) => (sql === null ? 'no' : 'yes');
      expect([cells[2], cells[3]], category).toEqual([mark(PROBES[category].duckdb), mark(PROBES[category].sqlite)]);
    }
  });
});
