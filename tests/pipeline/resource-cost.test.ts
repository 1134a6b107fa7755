/**
 * resource_cost_score beside execution_time_ratio and plan_complexity_score:
 * a join fan-out makes the engine produce more operator rows than its fix
 * (measured by DuckDB's EXPLAIN ANALYZE); on SQLite, which exposes no
 * cardinalities, the score falls back to result bytes and says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluationRequest } from '../../src/core/evaluation/request.ts';
import { evaluate } from '../../src/core/pipeline.ts';
import { openEngine } from '../../src/engines/node.ts';
import { planCardinalities } from '../../src/engines/duckdb/session.ts';
import type { SupervisedEngine } from '../../src/engines/supervisor.ts';
import { sqlFixture } from '../helpers/fixtures.ts';

const SHOP = `
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, amount DECIMAL(10,2));
CREATE TABLE order_items (order_id INTEGER, sku VARCHAR, qty INTEGER);
INSERT INTO orders SELECT i, i % 7, (i % 50) + 0.25 FROM generate_series(1, 400) AS t(i);
INSERT INTO order_items SELECT o, 'sku-' || (k % 5), 1 + k % 3 FROM generate_series(1, 400) AS a(o), generate_series(1, 6) AS b(k);
`;
// SQLite has no generate_series in sql.js: a few literal rows.
const SHOP_SQLITE = `
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, amount DECIMAL(10,2));
CREATE TABLE order_items (order_id INTEGER, sku VARCHAR, qty INTEGER);
INSERT INTO orders VALUES (1, 1, 10.00), (2, 1, 5.50), (3, 2, 7.25);
INSERT INTO order_items VALUES (1, 'a', 1), (1, 'b', 2), (1, 'c', 1), (2, 'a', 1), (3, 'a', 4), (3, 'b', 1);
`;

// The fix: revenue per customer from orders alone. The fan-out joins the order lines first, counting each order once per line.
const FIX = 'SELECT customer_id, sum(amount) AS revenue FROM orders GROUP BY customer_id';
const FAN_OUT =
  'SELECT o.customer_id, sum(o.amount) AS revenue FROM orders o JOIN order_items i ON i.order_id = o.id GROUP BY o.customer_id';

let duck: SupervisedEngine;
let lite: SupervisedEngine;
beforeAll(async () => {
  duck = openEngine('duckdb');
  lite = openEngine('sqlite');
  const [a, b] = await Promise.all([duck.load(sqlFixture('shop', SHOP)), lite.load(sqlFixture('shop', SHOP_SQLITE))]);
  if (!a.ok || !b.ok) throw new Error('fixtures did not load');
});
afterAll(async () => Promise.all([duck.close(), lite.close()]));

const perf = (expected: string, actual: string, engine: SupervisedEngine) =>
  evaluate(
    evaluationRequest({ expected_sql: expected, actual_sql: actual, config: { enable_performance_metrics: true } }),
    engine,
  );

describe('resource_cost_score', () => {
  it('a fan-out join costs more operator rows than its fix (DuckDB EXPLAIN ANALYZE)', async () => {
    const fanOut = await perf(FIX, FAN_OUT, duck);
    expect(fanOut.deterministic_verdict).toBe('fail');
    const p = fanOut.performance_scores!;
    expect(p.resource_cost).toMatchObject({
      basis: 'operator_rows',
      actual: { cardinality_source: 'analyze' },
      expected: { cardinality_source: 'analyze' },
    });
    // Orders are read once by the fix; the fan-out also reads 2,400 lines and joins them into 2,400 rows.
    expect(p.resource_cost!.expected.rows_scanned).toBe(400);
    expect(p.resource_cost!.actual.rows_scanned).toBe(2800);
    expect(p.resource_cost_score).toBeGreaterThan(3);
    expect(p.resource_cost_score).toBe(
      Math.round((p.resource_cost!.actual.operator_rows! / p.resource_cost!.expected.operator_rows!) * 1000) / 1000,
    );
    expect(p).toHaveProperty('execution_time_ratio');
    expect(p.plan_complexity_score).toBeGreaterThan(p.plan_complexity_expected!);

    // The other way round the fix is cheaper; the fix against itself costs the same.
    const reverse = await perf(FAN_OUT, FIX, duck);
    expect(reverse.performance_scores!.resource_cost_score).toBeLessThan(1 / 3);
    const same = await perf(FIX, FIX, duck);
    expect(same.performance_scores!.resource_cost_score).toBe(1);
  });

  it('without enable_performance_metrics there is no performance section', async () => {
    const r = await evaluate(evaluationRequest({ expected_sql: FIX, actual_sql: FAN_OUT }), duck);
    expect(r.performance_scores).toBeNull();
  });

  it('on SQLite it compares result bytes and warns that plan statistics are missing', async () => {
    const r = await perf(FIX, FAN_OUT, lite);
    expect(r.performance_scores!.resource_cost).toMatchObject({
      basis: 'result_bytes',
      actual: { operator_rows: null, cardinality_source: null },
    });
    expect(r.performance_scores!.resource_cost_score).toBeGreaterThan(0);
    expect(r.warnings.map((w) => w.code)).toContain('plan_stats_missing');
  });

  it('reads operator boxes side by side from the plan text', () => {
    const text = [
      '┌─────────────┴─────────────┐┌─────────────┴─────────────┐',
      '│         TABLE_SCAN        ││         TABLE_SCAN        │',
      '│     Table: order_items    ││       Table: orders       │',
      '│         2,422 rows        ││         1,279 rows        │',
      '└───────────────────────────┘└───────────────────────────┘',
    ].join('\n');
    expect(planCardinalities(text)).toEqual([
      { operator: 'TABLE_SCAN', rows: 2422 },
      { operator: 'TABLE_SCAN', rows: 1279 },
    ]);
  });
});
