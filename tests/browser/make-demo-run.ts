/**
 * Writes src/ui/assets/demo-flawed.run.json: the app's built-in demo run and
 * the browser test's fixture. Most answers are the independent rewrites of
 * scripts/fixtures/runs/rewrites.ts (correct, but not the reference's SQL);
 * a few carry seeded mistakes so every view has something to show.
 *
 *   node --import tsx tests/browser/make-demo-run.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { GOLDEN_REWRITES } from '../../scripts/fixtures/runs/rewrites.ts';
import { repoRoot } from '../helpers/paths.ts';

const corpus = parse(readFileSync(path.join(repoRoot, 'fixtures/corpora/execution_goldens.yaml'), 'utf8')) as {
  cases: { id: string; reference_sql: string }[];
};

type Rec = { id: string; sql: string | null; declined?: boolean; decline_reason?: string; enriched_question?: string };
const SEEDED: Record<string, Omit<Rec, 'id'>> = {
  // filter dropped: cancelled orders counted (a differing cell)
  'retail-net-revenue-2024': {
    sql: "SELECT sum(oi.quantity * oi.unit_price - COALESCE(oi.discount, 0)) AS net_revenue FROM orders o JOIN order_items oi ON oi.order_id = o.order_id WHERE o.order_ts >= TIMESTAMP '2024-01-01 00:00:00' AND o.order_ts < TIMESTAMP '2025-01-01 00:00:00'",
    enriched_question: 'Sum quantity * unit_price - discount over order lines of 2024 orders.',
  },
  // wrong aggregate: distinct customers instead of orders
  'retail-orders-by-channel': {
    sql: 'SELECT channel, count(DISTINCT customer_id) AS orders FROM orders GROUP BY channel',
  },
  // top 3 instead of the top 5 (missing rows)
  'retail-top-customers-2024': {
    sql: "SELECT c.customer_id, c.customer_name, sum(oi.quantity * oi.unit_price - COALESCE(oi.discount, 0)) AS net_revenue FROM customers c JOIN orders o ON o.customer_id = c.customer_id JOIN order_items oi ON oi.order_id = o.order_id WHERE o.status <> 'cancelled' AND o.order_ts >= TIMESTAMP '2024-01-01 00:00:00' AND o.order_ts < TIMESTAMP '2025-01-01 00:00:00' GROUP BY c.customer_id, c.customer_name ORDER BY net_revenue DESC LIMIT 3",
  },
  // a column that does not exist
  'retail-pre-2000-signups': { sql: "SELECT count(*) AS accounts FROM customers WHERE signed_up < DATE '2000-01-01'" },
  // syntax error
  'retail-country-count': { sql: 'SELEC count(DISTINCT country_code) FROM customers' },
  // a runaway query: must time out without freezing the page
  'retail-returned-lines': {
    sql: 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) AS returned_lines FROM r',
  },
  // no query produced
  'monthly-orders-dec-2025': { sql: null },
  // declined an answerable question
  'monthly-quarterly-revenue': {
    sql: null,
    declined: true,
    decline_reason: 'Quarter boundaries are ambiguous for this business.',
  },
  // wrong ordering direction on an order-sensitive question
  'monthly-orders-by-month': {
    sql: "SELECT CAST(date_trunc('month', order_ts) AS DATE) AS month, count(*) AS orders FROM orders GROUP BY month ORDER BY month DESC",
  },
};

const records: Rec[] = corpus.cases.map((c) => ({
  id: c.id,
  ...(SEEDED[c.id] ?? { sql: GOLDEN_REWRITES[c.id] ?? c.reference_sql }),
}));
const out = {
  run: {
    agent: 'demo-agent (seeded mistakes)',
    model: 'demo-flawed-1',
    path: 'governed',
    created_at: '2026-01-15T09:00:00Z',
    corpus: 'execution_goldens',
    notes:
      'Demo and test fixture written by tests/browser/make-demo-run.ts: correct rewrites plus 9 seeded mistakes. Not a real agent.',
  },
  records,
};
writeFileSync(path.join(repoRoot, 'src/ui/assets/demo-flawed.run.json'), `${JSON.stringify(out, null, 2)}\n`);
console.log(`${records.length} records, ${Object.keys(SEEDED).length} seeded mistakes`);
