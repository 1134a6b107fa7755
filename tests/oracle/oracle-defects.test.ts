/**
 * The oracle's smaller defects of issue 16, each on both engines (each
 * assertion failed on the code before the fix): a reference LIMIT through a
 * tie flagged in every evaluation; a reference that does not run is a broken
 * oracle (no verdict, excluded from accuracy, named), not the candidate's
 * failure; a candidate calling a volatile function (qualified too) is flagged
 * nondeterministic; when both queries pass max_rows the message names both;
 * a Latin-square permutation passes; cross-engine agreement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineName } from '../../src/core/engine.ts';
import { evaluationRequest, type EvaluationConfig } from '../../src/core/evaluation/request.ts';
import { classifyOutcome } from '../../src/core/gate/outcome.ts';
import { summarizeRun } from '../../src/core/gate/summary.ts';
import { volatileCalls } from '../../src/core/oracle/stage.ts';
import { evaluate, type EvaluateOptions } from '../../src/core/pipeline.ts';
import { openEngine } from '../../src/engines/node.ts';
import type { SupervisedEngine } from '../../src/engines/supervisor.ts';
import { sqlFixture } from '../helpers/fixtures.ts';

const DB = `
CREATE TABLE t (id INTEGER PRIMARY KEY, name VARCHAR, score INTEGER);
INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 20), (4, 'd', 5);
`;

const ENGINES: EngineName[] = ['duckdb', 'sqlite'];
const engines = new Map<EngineName, SupervisedEngine>();

beforeAll(async () => {
  for (const name of ENGINES) {
    const engine = openEngine(name);
    const loaded = await engine.load(sqlFixture('t', DB));
    if (!loaded.ok) throw new Error(loaded.error.message);
    engines.set(name, engine);
  }
}, 180_000);
afterAll(async () => {
  for (const e of engines.values()) await e.close();
});

const run = (
  name: EngineName,
  expected: string,
  actual: string,
  config: Partial<EvaluationConfig> = {},
  options: EvaluateOptions = {},
) =>
  evaluate(
    evaluationRequest({
      expected_sql: expected,
      actual_sql: actual,
      config: { enable_counterfactuals: false, ...config },
    }),
    engines.get(name)!,
    options,
  );

describe.each(ENGINES)('oracle defects on %s', (name) => {
  it('a reference LIMIT cutting through a tie is flagged in an ordinary evaluation', async () => {
    const report = await run(
      name,
      'SELECT name FROM t ORDER BY score DESC LIMIT 1',
      'SELECT name FROM t ORDER BY score DESC LIMIT 1',
    );
    expect(report.warnings.find((w) => w.code === 'limit_through_tie')?.message).toMatch(
      /LIMIT 1 cuts through rows whose ORDER BY keys tie/,
    );
    const stable = await run(
      name,
      'SELECT name FROM t ORDER BY score DESC, id LIMIT 1',
      'SELECT name FROM t ORDER BY score DESC, id LIMIT 1',
    );
    expect(stable.warnings.some((w) => w.code === 'limit_through_tie')).toBe(false);
  });

  it('a LIMIT through a tie of identical output rows is not flagged (any choice gives the same answer)', async () => {
    // score 20 ties on ids 2 and 3: the output (score only) is [20] either way.
    const sameRows = async (sql: string) =>
      (await run(name, sql, sql)).warnings.some((w) => w.code === 'limit_through_tie');
    expect(await sameRows('SELECT score FROM t ORDER BY score DESC LIMIT 1')).toBe(false);
    expect(await sameRows('SELECT score FROM t ORDER BY 1 DESC LIMIT 1')).toBe(false);
    expect(await sameRows('SELECT score, score * 2 AS d FROM t ORDER BY score DESC LIMIT 1')).toBe(false);
    // The tied rows differ (names b and c; or a hidden key): still unstable.
    expect(await sameRows('SELECT name, score FROM t ORDER BY score DESC LIMIT 1')).toBe(true);
    expect(await sameRows('SELECT score > 5 AS hi FROM t ORDER BY hi DESC LIMIT 2')).toBe(false);
    expect(await sameRows('SELECT score > 5 AS hi, name FROM t ORDER BY hi DESC LIMIT 2')).toBe(true);
  });

  it('a reference that does not run is a broken oracle, not the candidate failing', async () => {
    // Spider's gold has `! =` in places: a syntax error on SQLite (DuckDB reads `score !` as a factorial);
    // a reference naming a missing column fails on both.
    const broken = name === 'sqlite' ? 'SELECT name FROM t WHERE score ! = 20' : 'SELECT name FROM t WHERE scor = 20';
    const report = await run(name, broken, 'SELECT name FROM t WHERE score <> 20');
    expect(report.blocked_reason).toBe('broken_reference');
    expect(report.deterministic_verdict).toBe('undecided');
    expect(report.explanations[0]).toMatch(/^Broken oracle: the reference query/);
    const outcome = classifyOutcome({
      hasReference: true,
      declined: false,
      sql: 'SELECT 1',
      deterministicPass: false,
      brokenReference: report.blocked_reason === 'broken_reference',
    });
    expect(outcome.ok && outcome.value).toBe('broken_reference');
    const summary = summarizeRun(
      [
        { id: 'ok', outcome: 'correct', query: 'SELECT 1' },
        { id: 'broken', outcome: 'broken_reference', query: 'SELECT 1' },
      ],
      { name: 'c', version: 1, sha256: '0'.repeat(64) },
      {},
    );
    if (!summary.ok) throw new Error(summary.error.message);
    expect(summary.value.answer_accuracy).toMatchObject({ correct: 1, total: 1, rate: 1 });
    expect(summary.value.failures.map((f) => [f.id, f.outcome])).toEqual([['broken', 'broken_reference']]);
  });

  it('a candidate calling a volatile function, qualified or not, is run twice and flagged', async () => {
    const fn = name === 'duckdb' ? 'main.random()' : 'random()';
    const report = await run(name, 'SELECT count(*) FROM t', `SELECT count(*) FROM t WHERE ${fn} IS NOT NULL`);
    expect(report.deterministic_verdict).toBe('pass');
    expect(report.warnings.find((w) => w.code === 'nondeterministic')?.message).toMatch(/random\(\)/);
    const changing = await run(name, 'SELECT 1 AS x', `SELECT ${fn} AS x`);
    expect(changing.warnings.find((w) => w.code === 'nondeterministic')?.message).toMatch(/changed between two runs/);
  });

  it('when both queries exceed max_rows the message names both', async () => {
    const report = await run(name, 'SELECT * FROM t', 'SELECT * FROM t WHERE id > 0', { max_rows: 2 });
    expect(report.blocked_reason).toBe('execution_failure');
    expect(report.explanations[0]).toMatch(
      /^Both queries failed to execute \(resource_exhausted\): the reference .* and the candidate/,
    );
  });

  it('a candidate past its time budget is told in one sentence, ending with one full stop', async () => {
    const runaway = 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r';
    const report = await run(name, 'SELECT count(*) FROM t', runaway, { query_timeout_ms: 300 });
    expect(report.explanations[0]).toMatch(/^The candidate query failed to execute \(timeout\): .*budget.*[^.]\.$/);
  });

  it('a 5-column Latin square, columns permuted and renamed, passes (decided, not capped)', async () => {
    const rows = Array.from(
      { length: 5 },
      (_, r) => `(${Array.from({ length: 5 }, (_, c) => (r + c) % 5).join(', ')})`,
    ).join(', ');
    const values = `WITH v(c0, c1, c2, c3, c4) AS (VALUES ${rows})`;
    const report = await run(
      name,
      `${values} SELECT c0, c1, c2, c3, c4 FROM v`,
      `${values} SELECT c3 AS x, c0 AS y, c4 AS z, c1 AS w, c2 AS q FROM v`,
    );
    expect(report.deterministic_verdict).toBe('pass');
    expect(report.evidence.result!.column_alignment.search_capped).toBe(false);
  });
});

describe('cross-engine agreement', () => {
  it('flags a verdict that depends on the engine, with both results', async () => {
    // Integer division: 7 / 2 is 3 on SQLite and 3.5 on DuckDB.
    const report = await run(
      'sqlite',
      'SELECT 3 AS half',
      'SELECT 7 / 2 AS half',
      { cross_engine: true },
      { otherEngines: [{ engine: engines.get('duckdb')! }] },
    );
    expect(report.deterministic_verdict).toBe('pass');
    const cross = report.evidence.cross_engine!;
    expect(cross.engine_dependent).toBe(true);
    expect(cross.engines.map((l) => [l.engine, l.graded, l.verdict])).toEqual([
      ['sqlite', true, 'pass'],
      ['duckdb', false, 'fail'],
    ]);
    expect(cross.engines[1]!.actual_sample!.total_rows).toBe(1);
    expect(report.warnings.find((w) => w.code === 'engine_dependent')?.message).toMatch(
      /sqlite: pass \(graded\); duckdb: fail/,
    );
    const same = await run(
      'duckdb',
      'SELECT 3 AS x',
      'SELECT 1 + 2 AS x',
      { cross_engine: true },
      { otherEngines: [{ engine: engines.get('sqlite')! }] },
    );
    expect(same.evidence.cross_engine!.engine_dependent).toBe(false);
  });

  it('finds qualified and quoted volatile calls', () => {
    expect(volatileCalls('SELECT system.main.now(), "uuid"(), x FROM t ORDER BY random()')).toEqual([
      'main.now()',
      'uuid()',
      'random()',
    ]);
    expect(volatileCalls("SELECT datetime('now')")).toEqual(["'now'"]);
    expect(volatileCalls('SELECT t.now, random_col FROM t')).toEqual([]);
  });
});
