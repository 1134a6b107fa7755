/**
 * "Top N X by metric" is a ranking (ORDER BY metric, LIMIT N), not a
 * grouping by the metric; and `stef --min-phi` turns Φ into an exit status
 * for CI.
 */
import { describe, expect, it } from 'vitest';
import { evaluateStef, extractQuestion } from '../../src/core/stef/index.ts';
import { runCli } from '../helpers/cli.ts';

const TOP5 =
  'SELECT c.customer_name, sum(o.amount) AS revenue FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.customer_name ORDER BY revenue DESC LIMIT 5';
const phi = (question: string, sql: string) => {
  const r = evaluateStef({ question, sql });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

describe('Top N X by metric', () => {
  it('a correct "Top 5 customers by revenue" query scores Φ 100 (it scored 70: "by revenue" was read as a grouping)', () => {
    const r = phi('Top 5 customers by revenue', TOP5);
    expect(r.phi).toBe(100);
    expect(r.evidence.question_spec.groupBy).toEqual([]);
    expect(r.evidence.question_spec.ordering).toMatchObject({ direction: 'DESC', n: 5, metric: 'revenue' });
  });

  it('the ranking still checks direction and N', () => {
    expect(phi('Top 5 customers by revenue', TOP5.replace('DESC', 'ASC')).semantic_verdict.label).toBe('incorrect');
    expect(phi('Top 5 customers by revenue', TOP5.replace('LIMIT 5', 'LIMIT 7')).semantic_verdict.label).toBe(
      'incorrect',
    );
    expect(
      phi(
        'Bottom 3 products by units sold',
        'SELECT p.name, sum(i.qty) AS units FROM products p JOIN items i ON i.pid = p.id GROUP BY p.name ORDER BY units ASC LIMIT 3',
      ).phi,
    ).toBe(100);
  });

  it('the metric runs to the next clause word; a grouping after it stays a grouping', () => {
    const q = extractQuestion('What are the top five cities by number of orders in 2024, per country?');
    expect(q.ordering).toMatchObject({ n: 5, metric: 'number of orders' });
    expect(q.groupBy.map((g) => g.term)).toEqual(['country']);
  });

  it('"by X" before the ranking, or far from it, is still a grouping', () => {
    expect(extractQuestion('Revenue by region for the top 5 customers').groupBy.map((g) => g.term)).toEqual(['region']);
    expect(extractQuestion('Top 5 customers, broken down by region').groupBy.map((g) => g.term)).toEqual(['region']);
  });
});

describe('sql-verdict stef --min-phi', () => {
  it('exits 1 below the threshold, 0 at or above it and without it; a bad value is bad input', async () => {
    const base = ['stef', '--question', 'Top 5 customers by revenue', '--sql'];
    const [good, bad, none, invalid] = await Promise.all([
      runCli([...base, TOP5, '--min-phi', '90']),
      runCli([...base, TOP5.replace('DESC', 'ASC'), '--min-phi', '70']),
      runCli([...base, TOP5.replace('DESC', 'ASC')]),
      runCli([...base, TOP5, '--min-phi', 'high']),
    ]);
    expect(good.code).toBe(0);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Φ 50 is below --min-phi 70.');
    expect(bad.stdout).toMatch(/^Φ 50 /);
    expect(none.code).toBe(0);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('--min-phi must be a number from 0 to 100');
  });

  it("with --log, exits 1 when an agent version's mean Φ is below it", async () => {
    const log = ['stef', '--log', 'fixtures/stef/production-log.jsonl', '--rules', 'fixtures/stef/r_app.json'];
    // agent-b's mean Φ is 61.8 (docs/stef.md).
    const [low, high] = await Promise.all([runCli([...log, '--min-phi', '50']), runCli([...log, '--min-phi', '70'])]);
    expect(low.code).toBe(0);
    expect(high.code).toBe(1);
    expect(high.stderr).toMatch(/Mean Φ below --min-phi 70: agent-b@[^ ]+ 61\.8\.$/m);
  });
});
