/**
 * The whole deterministic pipeline on real engines: every precedence rule,
 * the production tolerances, diagnostics with counterfactual confirmation,
 * and every report validated against the published JSON Schema.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  evaluationRequest,
  parseEvaluationRequest,
  type EvaluationConfig,
  type EvaluationContext,
} from '../../src/core/evaluation/request.ts';
import { withinAmbiguity } from '../../src/core/diagnose/attribute.ts';
import { evaluate } from '../../src/core/pipeline.ts';
import type { EvaluationReport } from '../../src/core/report/report.ts';
import { REPORT_SCHEMA } from '../../src/core/report/schema.ts';
import { openEngine } from '../../src/engines/node.ts';
import type { SupervisedEngine } from '../../src/engines/supervisor.ts';
import { fileFixture, sqlFixture } from '../helpers/fixtures.ts';
import { repoRoot, spiderDatabase } from '../helpers/paths.ts';

const ajv = new Ajv2020({ allErrors: true, strict: false });
const validateReport = ajv.compile(REPORT_SCHEMA);

function valid(report: EvaluationReport): EvaluationReport {
  const ok = validateReport(JSON.parse(JSON.stringify(report)));
  if (!ok) throw new Error(`report does not match docs/report.schema.json: ${ajv.errorsText(validateReport.errors)}`);
  return report;
}

const SHOP = `
CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR, region VARCHAR);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, status VARCHAR, amount DECIMAL(10,2), placed DATE);
CREATE TABLE order_items (order_id INTEGER, sku VARCHAR, qty INTEGER);
INSERT INTO customers VALUES (1, 'Ada', 'north'), (2, 'Bo', 'south'), (3, 'Cy', 'north'), (4, 'Di', NULL);
INSERT INTO orders VALUES (10, 1, 'paid', 12.50, '2025-01-03'), (11, 1, 'refunded', -3.00, '2025-01-04'), (12, 2, 'paid', 40.00, '2025-02-01'),
  (13, 3, 'paid', 7.25, '2025-02-10'), (14, 3, 'pending', 100.00, '2025-03-01'), (15, 4, 'paid', 0.00, '2025-03-02');
INSERT INTO order_items VALUES (10, 'pen', 1), (10, 'ink', 2), (12, 'pad', 1), (12, 'pen', 3), (12, 'cap', 1), (13, 'ink', 1), (14, 'pen', 9), (15, 'pad', 1);
`;

let duck: SupervisedEngine;
let lite: SupervisedEngine;

beforeAll(async () => {
  duck = openEngine('duckdb');
  lite = openEngine('sqlite');
  const [a, b] = await Promise.all([
    duck.load(sqlFixture('shop', SHOP, '2025-03-31T00:00:00Z')),
    lite.load(fileFixture(spiderDatabase('concert_singer'))),
  ]);
  if (!a.ok || !b.ok) throw new Error('fixtures did not load');
});

afterAll(async () => {
  await Promise.all([duck.close(), lite.close()]);
});

function run(
  expected: string,
  actual: string | null,
  context: EvaluationContext = {},
  config: Partial<EvaluationConfig> = {},
  engine = duck,
) {
  return evaluate(evaluationRequest({ expected_sql: expected, actual_sql: actual, context, config }), engine).then(
    valid,
  );
}

describe('failure-state precedence', () => {
  it('no query produced: a graded failure with its reason', async () => {
    const r = await run('SELECT 1', null);
    expect(r).toMatchObject({
      deterministic_verdict: 'fail',
      blocked_reason: 'no_query',
      severity: 'critical failure',
      overall_score: 0,
    });
  });

  it('parse failure of the candidate blocks everything downstream', async () => {
    const r = await run('SELECT count(*) FROM orders', 'SELEC count(*) FROM orders');
    expect(r).toMatchObject({
      deterministic_verdict: 'fail',
      blocked_reason: 'parse_failure',
      severity: 'critical failure',
      overall_score: 0,
      result_score: null,
    });
    expect(r.validity.parse_success_actual).toBe(false);
    expect(r.error_types).toEqual(['syntax_error']);
  });

  it("parse failure of the reference is a broken oracle: undecided, not the candidate's failure", async () => {
    const r = await run('SELECT count(* FROM orders', 'SELECT count(*) FROM orders');
    expect(r).toMatchObject({ blocked_reason: 'broken_reference', deterministic_verdict: 'undecided' });
    expect(r.validity.parse_success_expected).toBe(false);
  });

  it('execution failure of the candidate: taxonomy category and raw message kept', async () => {
    const r = await run('SELECT count(*) FROM orders', 'SELECT count(*) FROM order_lines');
    expect(r).toMatchObject({ blocked_reason: 'execution_failure', severity: 'critical failure', overall_score: 0 });
    expect(r.validity.execution_error_actual).toMatchObject({ category: 'missing_table' });
    expect(r.validity.execution_error_actual?.raw).toMatch(/order_lines/);
    expect(r.error_types).toEqual(['missing_table']);
  });

  it('execution failure of the reference: a broken oracle', async () => {
    const r = await run('SELECT nope FROM orders', 'SELECT id FROM orders');
    expect(r).toMatchObject({ blocked_reason: 'broken_reference', deterministic_verdict: 'undecided' });
    expect(r.validity.execution_success_expected).toBe(false);
    expect(r.error_types).toEqual(['missing_column']);
  });

  it('a write is rejected by the sandbox: an execution failure, statement_rejected', async () => {
    const r = await run('SELECT count(*) FROM orders', 'DELETE FROM orders');
    expect(r.blocked_reason).toBe('execution_failure');
    expect(r.error_types).toEqual(['statement_rejected']);
  });

  it('result failure although the structure matches exactly', async () => {
    const request = parseEvaluationRequest({
      expected_sql: 'SELECT count(*) AS n FROM orders',
      actual_sql: 'SELECT count(*) AS n FROM orders',
      expected_result: { columns: [{ name: 'n', kind: 'integer' }], rows: [[7]] },
    });
    if (!request.ok) throw new Error(request.error.message);
    const r = valid(await evaluate(request.value, duck));
    expect(r.deterministic_verdict).toBe('fail');
    expect(r.structure_score).toBe(1);
    expect(r.evidence.structure?.normalized_sql_match).toBe(true);
    expect(r.validity.expected_source).toBe('frozen');
  });

  it('a pass with structural differences stays a pass', async () => {
    const r = await run(
      "SELECT c.name, sum(o.amount) AS total FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.status = 'paid' GROUP BY c.name",
      "SELECT customers.name, SUM(orders.amount) FROM orders, customers WHERE customers.id = orders.customer_id AND 'paid' = orders.status GROUP BY 1",
    );
    expect(r.deterministic_verdict).toBe('pass');
    expect(r.severity).toBe('pass');
    expect(r.overall_score).toBeGreaterThanOrEqual(0.9);
  });
});

describe('the comparison policy inside the pipeline', () => {
  it('scalar shape: one row, one column; an extra column fails', async () => {
    const r = await run('SELECT sum(amount) FROM orders', 'SELECT sum(amount), count(*) FROM orders', {
      shape: 'scalar',
    });
    expect(r.deterministic_verdict).toBe('fail');
    expect(r.evidence.result?.reasons.map((x) => x.code)).toContain('scalar_shape');
    expect(r.diagnostic_scores?.likely_source_clause).toBe('projection');
  });

  it('order_matters: ordering-only mismatch is flagged and minor', async () => {
    const r = await run('SELECT id FROM orders ORDER BY amount DESC', 'SELECT id FROM orders ORDER BY amount ASC', {
      order_matters: true,
    });
    expect(r.deterministic_verdict).toBe('fail');
    expect(r.diagnostic_scores).toMatchObject({ ordering_error_flag: true, likely_source_clause: 'ordering' });
    expect(r.severity).toBe('minor issue');
  });

  it('order_matters: a positional ORDER BY over SELECT * is tie-aware on that column', async () => {
    // ORDER BY 3 over * named no projection, so the keys were unknown and the order strict: a candidate
    // breaking the ties among the four 'paid' orders another way failed.
    for (const engine of [duck, lite]) {
      const [table, column] = engine === duck ? ['orders', 'status'] : ['singer', 'Country'];
      const reference = `SELECT * FROM ${table} ORDER BY 3`;
      const tied = await run(
        reference,
        `SELECT * FROM ${table} ORDER BY ${column}, 1 DESC`,
        { order_matters: true },
        {},
        engine,
      );
      expect(tied.deterministic_verdict).toBe('pass');
      const reversed = await run(
        reference,
        `SELECT * FROM ${table} ORDER BY ${column} DESC`,
        { order_matters: true },
        {},
        engine,
      );
      expect(reversed.deterministic_verdict).toBe('fail');
    }
  });

  it("order_matters: a key named in a SELECT list with a star is found among the star's columns", async () => {
    // The key's place in the SELECT list was taken for its output column: with `*` (5 columns) before
    // it, `s` (output column 5) was read as customer_id (1), and ties were judged on the wrong column.
    for (const list of ['*, upper(status) AS s', 'orders.*, upper(status) AS s']) {
      const reference = `SELECT ${list} FROM orders ORDER BY s`;
      const tied = await run(reference, `SELECT ${list} FROM orders ORDER BY s, id DESC`, { order_matters: true });
      expect(tied.deterministic_verdict).toBe('pass');
      expect(tied.evidence.result?.order_check?.order_keys).toEqual([5]);
      const reversed = await run(reference, `SELECT ${list} FROM orders ORDER BY s DESC`, { order_matters: true });
      expect(reversed.deterministic_verdict).toBe('fail');
    }
    const twoStars = await run(
      'SELECT o.*, c.* FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY region',
      'SELECT o.*, c.* FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY region, o.id DESC',
      { order_matters: true },
    );
    expect(twoStars.deterministic_verdict).toBe('pass');
  });

  it('ordering_error_flag only when ordering is the sole mismatch (seed 001), not when exact mode also fails on names', async () => {
    const renamed = await run(
      'SELECT id FROM orders WHERE id = 10',
      'SELECT id AS order_id FROM orders WHERE id = 10',
      {},
      {
        comparison_mode: 'exact',
      },
    );
    expect(renamed.deterministic_verdict).toBe('fail');
    expect(renamed.evidence.result?.reasons.map((x) => x.code)).toEqual(['column_name_mismatch']);
    expect(renamed.diagnostic_scores?.ordering_error_flag).toBe(false);
    expect(renamed.evidence.findings.map((f) => f.likely_source_clause)).not.toContain('ordering');
    const renamedAndReordered = await run(
      'SELECT id FROM orders ORDER BY id',
      'SELECT id AS order_id FROM orders ORDER BY id DESC',
      {},
      { comparison_mode: 'exact' },
    );
    expect(renamedAndReordered.diagnostic_scores?.ordering_error_flag).toBe(false);
    const reordered = await run(
      'SELECT id FROM orders ORDER BY id',
      'SELECT id FROM orders ORDER BY id DESC',
      {},
      {
        comparison_mode: 'exact',
      },
    );
    expect(reordered.diagnostic_scores).toMatchObject({ ordering_error_flag: true, likely_source_clause: 'ordering' });
  });

  it('severity: columns in another order (strict modes) and duplicates only are minor issues', async () => {
    const swapped = await run(
      'SELECT id, customer_id FROM orders',
      'SELECT customer_id, id FROM orders',
      {},
      {
        require_column_order_match: true,
      },
    );
    expect(swapped.evidence.result?.reasons.map((x) => x.code)).toContain('column_order_mismatch');
    expect(swapped.severity).toBe('minor issue');
    const exact = await run(
      'SELECT id, customer_id FROM orders ORDER BY id',
      'SELECT customer_id, id FROM orders ORDER BY id',
      {},
      {
        comparison_mode: 'exact',
      },
    );
    expect(exact.severity).toBe('minor issue');
    const duplicates = await run('SELECT DISTINCT customer_id FROM orders', 'SELECT customer_id FROM orders');
    expect(duplicates.evidence.result?.reasons.map((x) => x.code)).toContain('duplicate_rows');
    expect(duplicates.severity).toBe('minor issue');
    // A scalar answered twice is not a scalar: major, duplicates or not.
    const scalar = await run(
      'SELECT status FROM orders WHERE id = 14',
      'SELECT status FROM orders WHERE id = 14 UNION ALL SELECT status FROM orders WHERE id = 14',
      { shape: 'scalar' },
    );
    expect(scalar.evidence.result?.reasons.map((x) => x.code)).toContain('scalar_shape');
    expect(scalar.severity).toBe('major issue');
  });

  it('severity of a scalar answered with two columns: moderate with its value among them, major without', async () => {
    const extra = await run('SELECT count(*) AS n FROM orders', 'SELECT count(*) AS n, max(id) AS top FROM orders', {
      shape: 'scalar',
    });
    expect(extra.evidence.result?.reasons.map((x) => x.code)).toContain('scalar_shape');
    expect(extra.severity).toBe('moderate issue');
    const other = await run('SELECT count(*) AS n FROM orders', 'SELECT min(id) AS a, max(id) AS b FROM orders', {
      shape: 'scalar',
    });
    expect(other.evidence.result?.reasons.map((x) => x.code)).toContain('scalar_shape');
    expect(other.severity).toBe('major issue');
  });

  it('ambiguous_case: a runner-up exactly 0.1 below the top finding counts as within 0.1', () => {
    expect(withinAmbiguity(0.55, 0.45)).toBe(true);
    expect(withinAmbiguity(0.85, 0.75)).toBe(true);
    expect(withinAmbiguity(0.56, 0.45)).toBe(false);
  });

  it('an infinite cell against a finite one is explained without a difference or tolerance it does not have', async () => {
    const r = await run('SELECT 1.0::DOUBLE AS x', "SELECT 'Infinity'::DOUBLE AS x");
    const reason = r.evidence.result?.reasons.find((x) => x.code === 'value_mismatch');
    expect(reason?.message).toContain('a non-finite value is within no tolerance of another value');
    expect(reason?.message).not.toContain('null');
  });

  it('without order_matters, order is free and a default ORDER BY is tolerated', async () => {
    const r = await run('SELECT id FROM orders', 'SELECT id FROM orders ORDER BY amount DESC');
    expect(r.deterministic_verdict).toBe('pass');
    expect(r.warnings.map((w) => w.code)).toContain('default_order_by_tolerated');
    expect(r.structure_score).toBe(1);
  });

  it('a pass under set semantics says how many rows each side has when the counts differ', async () => {
    // It said "(8 rows)" of a candidate that returned 5 distinct rows.
    const r = await run(
      'SELECT sku FROM order_items',
      'SELECT DISTINCT sku FROM order_items',
      {},
      { set_semantics: true },
    );
    expect(r.deterministic_verdict).toBe('pass');
    expect(r.explanations[0]).toBe(
      "The candidate's result matches the reference under order-insensitive (set semantics) comparison (8 rows in the reference, 4 in the candidate: the same distinct rows).",
    );
    const same = await run(
      'SELECT DISTINCT sku FROM order_items',
      'SELECT sku FROM order_items GROUP BY sku',
      {},
      { set_semantics: true },
    );
    expect(same.explanations[0]).toMatch(/comparison \(4 rows\)\.$/);
  });

  it('a safety LIMIT that cuts nothing is tolerated; one that cuts is a top-k defect', async () => {
    const safe = await run('SELECT id FROM orders', 'SELECT id FROM orders LIMIT 10000');
    expect(safe.deterministic_verdict).toBe('pass');
    expect(safe.warnings.map((w) => w.code)).toContain('safety_limit_tolerated');
    const cut = await run('SELECT id FROM orders', 'SELECT id FROM orders LIMIT 3');
    expect(cut.deterministic_verdict).toBe('fail');
    expect(cut.diagnostic_scores?.likely_source_clause).toBe('top_k');
  });

  it('the frozen clock makes relative dates deterministic', async () => {
    const r = await run(
      'SELECT count(*) FROM orders WHERE placed >= current_date - INTERVAL 30 DAY',
      "SELECT count(*) FROM orders WHERE placed >= DATE '2025-03-01'",
    );
    expect(r.deterministic_verdict).toBe('pass');
  });

  it('SQL the engine runs but the parser cannot: parser_unsupported, results still compared', async () => {
    const r = await run(
      'SELECT id, amount FROM orders QUALIFY row_number() OVER (ORDER BY amount DESC) <= 2',
      'SELECT id, amount FROM orders ORDER BY amount DESC LIMIT 2',
    );
    expect(r.validity.parser_unsupported_expected).toBe(true);
    expect(r.warnings.map((w) => w.code)).toContain('parser_unsupported');
    expect(r.blocked_reason).toBeNull();
    expect(r.deterministic_verdict).toBe('pass');
  });
});

describe('diagnostics: the likely source clause, confirmed by counterfactuals', () => {
  const cases: [string, string, string, string, EvaluationContext?][] = [
    ['missing filter', "SELECT id FROM orders WHERE status = 'paid'", 'SELECT id FROM orders', 'selection_predicate'],
    [
      'wrong aggregate',
      'SELECT customer_id, sum(amount) FROM orders GROUP BY customer_id',
      'SELECT customer_id, avg(amount) FROM orders GROUP BY customer_id',
      'aggregate_function',
    ],
    [
      'join fan-out',
      'SELECT sum(o.amount) FROM orders o',
      'SELECT sum(o.amount) FROM orders o JOIN order_items i ON i.order_id = o.id',
      'join',
    ],
    [
      'wrong grain',
      'SELECT region, count(*) FROM customers GROUP BY region',
      'SELECT region, name, count(*) FROM customers GROUP BY region, name',
      'aggregation_grain',
    ],
    [
      'wrong LIMIT',
      'SELECT id FROM orders ORDER BY amount DESC, id LIMIT 2',
      'SELECT id FROM orders ORDER BY amount DESC, id LIMIT 3',
      'top_k',
      { order_matters: true },
    ],
    ['extra column', 'SELECT id FROM orders', 'SELECT id, amount FROM orders', 'projection'],
  ];
  for (const [label, expected, actual, source, context] of cases) {
    it(`${label} → ${source}`, async () => {
      const r = await run(expected, actual, context ?? {});
      expect(r.deterministic_verdict).toBe('fail');
      expect(r.diagnostic_scores?.likely_source_clause).toBe(source);
      expect(r.explanations.length).toBeGreaterThan(0);
      expect(r.evidence.findings[0]?.explanation).toMatch(/likely cause/);
      // Plain English: "The join (FROM/JOIN) is the likely cause", never "The joins is".
      expect(r.evidence.findings[0]?.explanation).not.toMatch(/\bjoins is\b/);
    });
  }

  it('a window aggregate that changed function is aggregate_function; the same aggregate over another window is not', async () => {
    const rolling = await run(
      'SELECT id, avg(amount) OVER (ORDER BY id) AS r FROM orders',
      'SELECT id, sum(amount) OVER (ORDER BY id) AS r FROM orders',
    );
    expect(rolling.diagnostic_scores?.likely_source_clause).toBe('aggregate_function');
    expect(rolling.evidence.findings[0]?.explanation).toContain(
      'AVG(amount) OVER (ORDER BY id) became SUM(amount) OVER (ORDER BY id)',
    );
    // Only the OVER clause changed: SUM is still SUM, so no aggregate function "became" another.
    for (const actual of [
      'SELECT id, sum(amount) OVER () AS r FROM orders',
      'SELECT id, sum(amount) OVER (PARTITION BY customer_id ORDER BY id DESC) AS r FROM orders',
    ]) {
      const r = await run(
        'SELECT id, sum(amount) OVER (PARTITION BY customer_id ORDER BY id) AS r FROM orders',
        actual,
      );
      expect(r.deterministic_verdict).toBe('fail');
      expect(r.diagnostic_scores?.likely_source_clause).not.toBe('aggregate_function');
      for (const f of r.evidence.findings) expect(f.explanation).not.toMatch(/SUM\(SUM\(|An aggregate function/);
    }
  });

  it('repeated rows with no join in either query are not blamed on a join', async () => {
    for (const actual of [
      'SELECT customer_id FROM orders UNION ALL SELECT customer_id FROM orders',
      'SELECT customer_id FROM orders UNION ALL SELECT customer_id FROM orders UNION ALL SELECT 4',
    ]) {
      const r = await run('SELECT customer_id FROM orders', actual);
      expect(r.deterministic_verdict).toBe('fail');
      expect(r.diagnostic_scores?.likely_source_clause).not.toBe('join');
      for (const f of r.evidence.findings) expect(f.explanation).not.toMatch(/The join|by a join/);
    }
    // With a join on the candidate's side the fan-out is still the join's.
    const joined = await run(
      'SELECT o.customer_id FROM orders o',
      'SELECT o.customer_id FROM orders o, (SELECT 1 UNION ALL SELECT 2) AS k',
    );
    expect(joined.diagnostic_scores?.likely_source_clause).toBe('join');
  });

  it('UNION for UNION ALL (equal as sets, the filters alike) is not blamed on a filter', async () => {
    const r = await run(
      'SELECT customer_id FROM orders UNION ALL SELECT id FROM customers',
      'SELECT customer_id FROM orders UNION SELECT id FROM customers',
    );
    expect(r.deterministic_verdict).toBe('fail');
    expect(r.diagnostic_scores?.likely_source_clause).toBe('projection');
    for (const f of r.evidence.findings) expect(f.explanation).not.toMatch(/filter/i);
    // A WHERE that drops exactly a duplicate is still the filter's.
    const where = await run('SELECT customer_id FROM orders', 'SELECT customer_id FROM orders WHERE id <> 11');
    expect(where.diagnostic_scores?.likely_source_clause).toBe('selection_predicate');
  });

  it('says "rounded differently" only where a query rounds and every differing value is one rounded', async () => {
    const text = async (expected: string, actual: string) =>
      (await run(expected, actual)).evidence.findings.map((f) => f.explanation).join('\n');
    expect(await text('SELECT avg(amount) AS a FROM orders', 'SELECT round(avg(amount), 1) AS a FROM orders')).toMatch(
      /rounded differently/,
    );
    // 7 and 6.6 are within rounding of each other, but no ROUND is missing: the candidate subtracts 0.4.
    expect(await text('SELECT count(*) AS n FROM orders', 'SELECT count(*) - 0.4 AS n FROM orders')).not.toMatch(
      /rounded differently/,
    );
  });

  it("an edit inside a set operator's later arm says which arm (EXCEPT with its operands swapped)", async () => {
    const r = await run(
      'SELECT sku FROM order_items EXCEPT SELECT status FROM orders',
      'SELECT status FROM orders EXCEPT SELECT sku FROM order_items',
    );
    expect(r.deterministic_verdict).toBe('fail');
    const text = r.evidence.findings.map((f) => f.explanation).join('\n');
    // Arm 1 gained `orders` and arm 2 lost it: never "adds table `orders`" and "is missing table `orders`" unqualified.
    expect(text).toContain('arm 2: ');
    expect(text).not.toMatch(/; JOIN is missing table `orders`/);
  });

  it('a confirming transplant raises confidence and evidence strength', async () => {
    const r = await run(
      "SELECT id FROM orders WHERE status = 'paid'",
      "SELECT id FROM orders WHERE status <> 'pending'",
    );
    expect(r.evidence.counterfactuals.some((c) => c.agrees && c.clause === 'where')).toBe(true);
    expect(r.diagnostic_scores).toMatchObject({
      likely_source_clause: 'selection_predicate',
      evidence_strength: 'high',
    });
    expect(r.diagnostic_scores!.confidence).toBeGreaterThanOrEqual(0.9);
  });

  it('works on SQLite (Spider) too', async () => {
    const r = await run("SELECT name FROM singer WHERE country = 'France'", 'SELECT name FROM singer', {}, {}, lite);
    expect(r.deterministic_verdict).toBe('fail');
    expect(r.diagnostic_scores?.likely_source_clause).toBe('selection_predicate');
    expect(r.run_metadata.dialect).toBe('sqlite');
  });
});

describe('configuration', () => {
  it('rejects unknown options with the field named', () => {
    const r = parseEvaluationRequest({
      expected_sql: 'SELECT 1',
      actual_sql: 'SELECT 1',
      config: { comparison_mod: 'exact' },
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/comparison_mod/);
    const bad = parseEvaluationRequest({
      expected_sql: 'SELECT 1',
      actual_sql: 'SELECT 1',
      config: { query_timeout_ms: -1 },
    });
    expect(bad.ok).toBe(false);
  });

  it('honours performance metrics, strict names and the query timeout', async () => {
    const perf = await run('SELECT id FROM orders', 'SELECT id FROM orders', {}, { enable_performance_metrics: true });
    expect(perf.performance_scores?.execution_time_ratio).toBeTypeOf('number');
    expect(perf.performance_scores?.plan_complexity_score).toBeGreaterThan(0);
    expect(perf.performance_scores?.plan_operators_actual?.length).toBeGreaterThan(0);
    const strict = await run(
      'SELECT id FROM orders',
      'SELECT id AS order_id FROM orders',
      {},
      { require_column_name_match: true },
    );
    expect(strict.deterministic_verdict).toBe('fail');
    const slow = await run(
      'SELECT 1',
      'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r',
      {},
      { query_timeout_ms: 800 },
    );
    expect(slow).toMatchObject({ blocked_reason: 'execution_failure', error_types: ['timeout'] });
  });
});

describe('the report schema', () => {
  it('docs/report.schema.json is the published schema (UPDATE_GOLDEN=1 rewrites it)', () => {
    const file = path.join(repoRoot, 'docs', 'report.schema.json');
    const text = `${JSON.stringify(REPORT_SCHEMA, null, 2)}\n`;
    if (process.env.UPDATE_GOLDEN) writeFileSync(file, text);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});
