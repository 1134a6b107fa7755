import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exactCompare,
  lintReferenceText,
  limitTieProbes,
  outlineQuery,
  runSelfCheck,
  type Corpus,
  type CorpusCase,
  type SelfCheckReport,
} from '../../src/core/corpus/index.ts';
import type { ResultTable } from '../../src/core/value/kind.ts';
import { openEngine } from '../../src/engines/node.ts';
import type { SupervisedEngine } from '../../src/engines/supervisor.ts';
import { sqlFixture } from '../helpers/fixtures.ts';

const DUMP = `CREATE TABLE t (id INTEGER, grp VARCHAR, v INTEGER);
INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 8), (3, 'a', 8), (4, 'c', 5), (5, 'b', 3), (6, 'c', 1);`;

const int = (name: string, ...values: number[]): ResultTable => ({
  columns: [{ name, engineType: 'BIGINT', kind: 'integer' }],
  rows: values.map((v) => [v]),
});

function golden(id: string, referenceSql: string, extra: Partial<CorpusCase> = {}): CorpusCase {
  return { id, fixture: 'ties', question: id, referenceSql, orderMatters: false, tags: [], ...extra };
}

function corpusOf(cases: CorpusCase[], engine: 'duckdb' | 'sqlite' = 'duckdb'): Corpus {
  return { name: 'lint', version: 1, engine, declared: {}, cases };
}

const codes = (report: SelfCheckReport, id?: string) =>
  report.findings.filter((f) => id === undefined || f.case_id === id).map((f) => f.code);

describe('golden lint without an engine', () => {
  it('finds the outermost ORDER BY keys and LIMIT, not those of windows or subqueries', () => {
    const q = outlineQuery(`WITH x AS (SELECT a FROM t ORDER BY a LIMIT 3)
      SELECT a, rank() OVER (ORDER BY b DESC) AS r FROM x ORDER BY r DESC NULLS LAST, x.a LIMIT 5 OFFSET 2;`);
    expect(q.orderBy!.keys).toEqual([
      { expression: 'r', modifiers: 'DESC NULLS LAST' },
      { expression: 'x.a', modifiers: '' },
    ]);
    expect(q.limit).toMatchObject({ count: 5, offset: 2 });
    expect(outlineQuery('SELECT a FROM t UNION SELECT b FROM u ORDER BY 1 LIMIT 1').setOperation).toBe(true);
    expect(outlineQuery("SELECT 'LIMIT 3' AS s FROM t -- LIMIT 4").limit).toBeNull();
    expect(outlineQuery('SELECT a FROM t LIMIT (SELECT 1)').limitUnreadable).toBe(true);
  });

  it('builds tie probes that look at rows n and n+1', () => {
    const probe = limitTieProbes('SELECT grp, v FROM t ORDER BY v DESC, t.grp LIMIT 3', ['grp', 'v']);
    expect(probe).toMatchObject({ kind: 'ordered_limit', limit: 3, keyCount: 2 });
    if (probe.kind !== 'ordered_limit') throw new Error();
    expect(probe.probes[0]).toBe(
      'SELECT grp, v, (v) AS "__lint_key_0", (t.grp) AS "__lint_key_1" FROM t ORDER BY v DESC, t.grp LIMIT 2 OFFSET 2',
    );
    expect(probe.probes[1]).toContain('FROM (SELECT grp, v FROM t) AS __lint_q ORDER BY v DESC, grp LIMIT 2 OFFSET 2');
  });

  it('orders the output for a positional key: the SELECT list cannot name an output column (SQLite reads "n" as a string)', () => {
    const probe = limitTieProbes('SELECT grp, count(*) AS n FROM t GROUP BY grp ORDER BY 2 DESC LIMIT 1', ['grp', 'n']);
    if (probe.kind !== 'ordered_limit') throw new Error();
    expect(probe.probes).toEqual([
      'SELECT "n" AS "__lint_key_0" FROM (SELECT grp, count(*) AS n FROM t GROUP BY grp) AS __lint_q ORDER BY "n" DESC LIMIT 2 OFFSET 0',
    ]);
    expect(probe.nullProbes).toEqual([
      'SELECT count(*) AS n, count("n") AS k FROM (SELECT grp, count(*) AS n FROM t GROUP BY grp) AS __lint_q',
    ]);
  });

  it('allows a frozen clock only when the fixture declares as_of; randomness never', () => {
    expect(lintReferenceText('SELECT count(*) FROM orders WHERE order_ts >= current_date - 7', true)).toEqual([]);
    expect(
      lintReferenceText('SELECT count(*) FROM orders WHERE order_ts >= current_date - 7', false).map((f) => f.code),
    ).toEqual(['clock_dependent']);
    expect(lintReferenceText("SELECT date('now')", false).map((f) => f.code)).toEqual(['clock_dependent']);
    expect(lintReferenceText('SELECT current_time', true).map((f) => f.code)).toEqual(['clock_dependent']);
    expect(lintReferenceText('SELECT x FROM t ORDER BY random()\nLIMIT 1', true)).toEqual([
      expect.objectContaining({ code: 'nondeterministic', line: 1 }),
    ]);
    expect(lintReferenceText('SELECT * FROM t USING SAMPLE 10', true).map((f) => f.code)).toEqual(['nondeterministic']);
    // Names in strings, comments, qualified columns and aliases are not calls.
    expect(lintReferenceText("SELECT 'now()' AS today, t.now, s.random -- random()", false)).toEqual([]);
  });
});

describe('exactCompare', () => {
  const dec = (...values: string[]): ResultTable => ({
    columns: [{ name: 'x', engineType: 'DECIMAL(10,2)', kind: 'decimal' }],
    rows: values.map((v) => [v]),
  });
  it('compares decimals by value, rows as a bag unless order matters, and kinds strictly', () => {
    expect(exactCompare(dec('12.50', '1.00'), dec('1', '12.5'), { orderMatters: false })).toEqual({
      equal: true,
      reasons: [],
    });
    expect(exactCompare(dec('12.50', '1.00'), dec('1', '12.5'), { orderMatters: true }).reasons).toEqual([
      'order_violation: first at row 1',
    ]);
    expect(exactCompare(dec('12.50'), dec('12.51'), { orderMatters: false }).reasons).toEqual([
      'value_mismatch: 1 row(s) differ; expected [12.5], actual [12.51]',
    ]);
    expect(exactCompare(dec('1'), int('x', 1), { orderMatters: false }).reasons).toEqual([
      'type_mismatch: column 1 (x) expected decimal, actual integer (BIGINT)',
    ]);
    expect(exactCompare(dec('1', '2'), dec('1'), { orderMatters: false }).reasons).toEqual([
      'row_count_mismatch: expected 2, actual 1',
    ]);
  });
});

describe('runSelfCheck on an engine', () => {
  let engine: SupervisedEngine;
  const fixture = sqlFixture('ties', DUMP);
  const resolver = (name: string) => (name === 'ties' ? { source: fixture } : null);

  beforeAll(() => {
    engine = openEngine('duckdb');
  });
  afterAll(async () => {
    await engine?.close();
  });

  it('passes a sound golden with no finding, and reports the fixture digest before and after', async () => {
    const report = await runSelfCheck(
      corpusOf([golden('count', 'SELECT count(*) AS n FROM t', { expected: int('n', 6), shape: 'scalar' })]),
      engine,
      { fixtures: resolver },
    );
    expect(report.findings).toEqual([]);
    expect(report.passed).toBe(true);
    expect(report.case_results).toEqual([expect.objectContaining({ case_id: 'count', status: 'pass', rows: 1 })]);
    expect(report.fixtures[0]!.content_digest).toBe(report.fixtures[0]!.content_digest_after);
  });

  it('names each broken golden and why', async () => {
    const report = await runSelfCheck(
      corpusOf([
        golden('stale', 'SELECT count(*) AS n FROM t', { expected: int('n', 7) }),
        golden('broken', 'SELECT nope FROM t', { expected: int('n', 1) }),
        golden('empty', 'SELECT id FROM t WHERE v > 100', { expected: int('id') }),
        golden('no-expected', 'SELECT max(v) AS m FROM t'),
        golden('tie', 'SELECT grp, v FROM t ORDER BY v DESC LIMIT 2', { orderMatters: true }),
        golden('tie-positional', 'SELECT grp, v FROM t ORDER BY 2 DESC LIMIT 2', { orderMatters: true }),
        golden('tie-hidden-key', 'SELECT grp FROM t ORDER BY v DESC LIMIT 2', { orderMatters: true }),
        golden('tie-broken', 'SELECT grp, v FROM t ORDER BY v DESC, id LIMIT 2', { orderMatters: true }),
        golden('tie-at-offset', 'SELECT id FROM t ORDER BY v DESC LIMIT 1 OFFSET 1', { orderMatters: true }),
        golden('no-tie-at-cut', 'SELECT grp, v FROM t ORDER BY v DESC LIMIT 3', { orderMatters: true }),
        // The two rows with v = 8 are the same output row [8]: either one gives the same answer.
        golden('tie-same-rows', 'SELECT v FROM t ORDER BY v DESC LIMIT 2', { orderMatters: true }),
        golden('tie-same-rows-positional', 'SELECT v FROM t ORDER BY 1 DESC LIMIT 2', { orderMatters: true }),
        golden('unordered-limit', 'SELECT id FROM t LIMIT 2'),
        golden('harmless-limit', 'SELECT count(*) AS n FROM t LIMIT 1'),
        golden('random', 'SELECT random() AS r'),
      ]),
      engine,
      { fixtures: resolver },
    );
    expect(report.passed).toBe(false);
    expect(codes(report, 'stale')).toEqual(['expected_mismatch']);
    expect(report.findings.find((f) => f.case_id === 'stale')!.evidence).toEqual([
      expect.stringMatching(/^value_mismatch: .*7.*6|^value_mismatch: .*6.*7/),
    ]);
    expect(codes(report, 'broken')).toEqual(['reference_failed']);
    expect(report.findings.find((f) => f.case_id === 'broken')!.evidence).toContain('missing_column');
    expect(codes(report, 'empty')).toEqual(['empty_result']);
    expect(report.findings.filter((f) => f.case_id === 'no-expected').map((f) => [f.code, f.severity])).toEqual([
      ['expected_missing', 'warning'],
    ]);
    expect(codes(report, 'tie')).toEqual(['expected_missing', 'limit_through_tie']);
    expect(report.findings.find((f) => f.case_id === 'tie' && f.code === 'limit_through_tie')!.message).toContain(
      'Rows 2 and 3 share the ORDER BY keys [8]',
    );
    expect(codes(report, 'tie-positional')).toEqual(['expected_missing', 'limit_through_tie']);
    expect(codes(report, 'tie-hidden-key')).toEqual(['expected_missing', 'limit_through_tie']);
    expect(codes(report, 'tie-broken')).toEqual(['expected_missing']);
    expect(codes(report, 'tie-at-offset')).toEqual(['expected_missing', 'limit_through_tie']);
    expect(codes(report, 'no-tie-at-cut')).toEqual(['expected_missing']);
    expect(codes(report, 'tie-same-rows')).toEqual(['expected_missing']);
    expect(codes(report, 'tie-same-rows-positional')).toEqual(['expected_missing']);
    expect(codes(report, 'unordered-limit')).toEqual(['expected_missing', 'limit_without_order']);
    expect(codes(report, 'harmless-limit')).toEqual(['expected_missing']);
    expect(codes(report, 'random')).toEqual(['nondeterministic', 'expected_missing', 'unstable_result']);
    expect(
      report.case_results
        .filter((r) => r.status === 'fail')
        .map((r) => r.case_id)
        .sort(),
    ).toEqual(
      [
        'broken',
        'empty',
        'random',
        'stale',
        'tie',
        'tie-at-offset',
        'tie-hidden-key',
        'tie-positional',
        'unordered-limit',
      ].sort(),
    );
  }, 120_000);

  it('flags the clock unless the fixture freezes it', async () => {
    const clock = golden('clock', 'SELECT CAST(current_date AS VARCHAR) AS d', {
      expected: { columns: [{ name: 'd', engineType: 'VARCHAR', kind: 'text' }], rows: [['2025-06-30']] },
    });
    const frozen = await runSelfCheck(corpusOf([clock]), engine, {
      fixtures: () => ({ source: sqlFixture('ties', DUMP, '2025-06-30T18:00:00Z') }),
    });
    expect(frozen.findings).toEqual([]);
    const unfrozen = await runSelfCheck(corpusOf([clock]), engine, { fixtures: resolver });
    expect(codes(unfrozen, 'clock')[0]).toBe('clock_dependent');
    expect(unfrozen.passed).toBe(false);
  });

  it('flags a reference over the time budget', async () => {
    const report = await runSelfCheck(
      corpusOf([golden('slow', 'SELECT count(*) AS n FROM range(3000000) a', { expected: int('n', 3000000) })]),
      engine,
      {
        fixtures: resolver,
        timeBudgetMs: 0.001,
      },
    );
    expect(codes(report, 'slow')).toEqual(['over_time_budget']);
  });

  it('refuses a corpus written for another engine, an unknown fixture, and a fixture that is not the manifest one', async () => {
    const other = await runSelfCheck(corpusOf([golden('x', 'SELECT 1')], 'sqlite'), engine, { fixtures: resolver });
    expect(codes(other)).toEqual(['engine_mismatch']);
    const unknown = await runSelfCheck(corpusOf([golden('x', 'SELECT 1', { fixture: 'nowhere' })]), engine, {
      fixtures: resolver,
    });
    expect(codes(unknown)).toEqual(['fixture_unavailable']);
    expect(unknown.case_results).toEqual([expect.objectContaining({ case_id: 'x', status: 'not_run' })]);
    const wrong = await runSelfCheck(corpusOf([golden('x', 'SELECT 1 AS one', { expected: int('one', 1) })]), engine, {
      fixtures: () => ({ source: fixture, contentDigest: '0'.repeat(64) }),
    });
    expect(codes(wrong)).toEqual(['fixture_digest_mismatch']);
  });

  it('accepts another comparison policy as a plug-in', async () => {
    const seen: string[] = [];
    const report = await runSelfCheck(
      corpusOf([golden('count', 'SELECT count(*) AS n FROM t', { expected: int('n', 6), shape: 'scalar' })]),
      engine,
      {
        fixtures: resolver,
        compare: (_e, _a, request) => {
          seen.push(`${request.orderMatters}:${request.shape}`);
          return { equal: false, reasons: ['policy says no'] };
        },
      },
    );
    expect(seen).toEqual(['false:scalar']);
    expect(report.findings[0]).toMatchObject({
      code: 'expected_mismatch',
      case_id: 'count',
      evidence: ['policy says no'],
    });
  });
});
