import { describe, expect, it } from 'vitest';
import {
  clauseFeatures,
  clauseWeightedDistance,
  compareStructure,
  DEFAULT_CLAUSE_WEIGHTS,
  parseSql,
  structureScore,
} from '../../src/core/structure/index.ts';
import type { Dialect } from '../../src/core/structure/index.ts';

function features(sql: string, dialect: Dialect = 'duckdb') {
  const p = parseSql(sql, dialect);
  if (!p.ok) throw new Error(p.error.message);
  return clauseFeatures(p.value.query, dialect);
}

describe('clauseFeatures', () => {
  it('reads aggregates, grouping, filters, tables, order keys and limits of an analytical query', () => {
    const f = features(
      "SELECT c.region, SUM(o.amount) AS revenue, COUNT(DISTINCT o.customer_id) FROM orders o JOIN customers c ON o.customer_id = c.id WHERE o.status = 'paid' AND o.ordered_at >= DATE '2025-01-01' AND c.region IN ('EU', 'US') GROUP BY c.region HAVING SUM(o.amount) > 100 ORDER BY revenue DESC LIMIT 5",
    );
    expect(f.aggregates.map((a) => [a.func, a.args, a.distinct, a.clause])).toEqual([
      ['SUM', ['orders.amount'], false, 'select'],
      ['COUNT', ['orders.customer_id'], true, 'select'],
      ['SUM', ['orders.amount'], false, 'having'],
      ['SUM', ['orders.amount'], false, 'order_by'],
    ]);
    expect(f.groupBy).toEqual(['customers.region']);
    expect(f.groupedColumns).toEqual([{ table: 'customers', column: 'region' }]);
    expect(f.joinConditions).toEqual(['customers.id = orders.customer_id']);
    expect(f.filters.map((x) => [x.clause, x.column?.column ?? x.subject, x.operator, x.values])).toEqual([
      ['where', 'region', 'IN', ["'EU'", "'US'"]],
      ['where', 'ordered_at', '>=', ["DATE '2025-01-01'"]],
      ['where', 'status', '=', ["'paid'"]],
      ['having', 'SUM(orders.amount)', '>', ['100']],
    ]);
    expect(f.tables.map((t) => [t.name, t.join])).toEqual([
      ['orders', 'INNER'],
      ['customers', 'INNER'],
    ]);
    expect(f.orderBy).toEqual([{ expr: 'SUM(orders.amount)', direction: 'DESC', nulls: null }]);
    expect(f.limit).toBe(5);
    expect(f.offset).toBeNull();
    expect(f.projections.map((p) => [p.expr, p.alias, p.aggregate])).toEqual([
      ['customers.region', null, false],
      ['SUM(orders.amount)', 'revenue', true],
      ['COUNT(DISTINCT orders.customer_id)', null, true],
    ]);
  });

  it('reads windows, DISTINCT, set operators, CTEs and nested queries', () => {
    const f = features(
      'WITH m AS (SELECT month, SUM(amount) AS s FROM monthly GROUP BY month) SELECT DISTINCT month, RANK() OVER (PARTITION BY month ORDER BY s DESC) FROM m WHERE s > (SELECT AVG(s) FROM m) UNION SELECT 1, 2',
    );
    expect(f.distinct).toBe(true);
    expect(f.windows).toEqual([
      {
        expr: 'RANK() OVER (PARTITION BY month ORDER BY s DESC)',
        func: 'RANK',
        args: [],
        over: 'OVER (PARTITION BY month ORDER BY s DESC)',
        partitionBy: ['month'],
        orderBy: [{ expr: 's', direction: 'DESC', nulls: null }],
      },
    ]);
    expect(f.setOperators).toEqual(['UNION']);
    expect(f.ctes).toEqual(['m']);
    expect(f.subqueryCount).toBe(3);
    expect(f.filters[0]).toMatchObject({ operator: '>', subquery: true, column: { table: null, column: 's' } });
  });

  it('keeps a disjunction whole and reads Spider-style SQLite', () => {
    const f = features("SELECT T1.name FROM singer AS T1 WHERE T1.country = 'France' OR T1.age > 40 LIMIT 3", 'sqlite');
    expect(f.filters).toHaveLength(1);
    expect(f.filters[0]).toMatchObject({ operator: 'OR', disjunction: true });
    expect(f.tables).toEqual([{ name: 'singer', alias: null, join: 'INNER', derived: false }]);
    expect(f.limit).toBe(3);
  });
});

describe('clause_weighted_distance and structure_score', () => {
  it('is 0 for an identical pair and grows with the differing clauses', () => {
    const same = compareStructure(
      'SELECT name FROM singer WHERE age > 30',
      'select NAME from singer where 30 < age',
      'sqlite',
    );
    expect(same.clause_weighted_distance).toBe(0);
    expect(same.structure_score).toBe(1);
    const one = compareStructure(
      'SELECT name FROM singer WHERE age > 30',
      'SELECT name FROM singer WHERE age > 40',
      'sqlite',
    );
    const two = compareStructure(
      'SELECT name FROM singer WHERE age > 30',
      'SELECT country FROM singer WHERE age > 40',
      'sqlite',
    );
    expect(one.clause_weighted_distance).toBe(DEFAULT_CLAUSE_WEIGHTS.where);
    expect(two.clause_weighted_distance).toBe(DEFAULT_CLAUSE_WEIGHTS.where + DEFAULT_CLAUSE_WEIGHTS.select);
    expect(two.structure_score!).toBeLessThan(one.structure_score!);
  });

  it('weights are configurable', () => {
    const r = compareStructure(
      'SELECT name FROM singer ORDER BY age',
      'SELECT name FROM singer ORDER BY age DESC',
      'sqlite',
    );
    const m = r.clause_match!;
    expect(clauseWeightedDistance(m).clause_weighted_distance).toBe(1);
    expect(clauseWeightedDistance(m, { order_by: 0 }).clause_weighted_distance).toBe(0);
    expect(clauseWeightedDistance(m, { order_by: 3 }).clause_weighted_distance).toBe(3);
    expect(structureScore(m, false, { weights: { order_by: 3 } })).toBeLessThan(structureScore(m, false));
  });

  it('is blocked, not thrown, when a side does not parse', () => {
    const r = compareStructure('SELECT name FROM singer', 'SELEC name FROM singer', 'sqlite');
    expect(r.blocked_reason).toBe('parse_failure');
    expect(r.parse_success_actual).toBe(false);
    expect(r.clause_match).toBeNull();
    expect(r.structure_score).toBeNull();
    expect(r.difficulty_expected).toBe('easy');
  });
});
