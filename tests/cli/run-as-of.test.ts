/**
 * `run --as-of`: the clock of the user's own fixtures frozen, as `query` and `compare` freeze it, so a corpus of
 * relative-date questions ("orders placed today") grades the same every day on the user's database. The real CLI
 * on a DuckDB corpus, whose clock functions exist only frozen in the sandbox.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-as-of-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const put = (name: string, text: string) => {
  writeFileSync(path.join(dir, name), text);
  return name;
};
put(
  'shop.sql',
  "CREATE TABLE orders (id INTEGER, placed DATE);\nINSERT INTO orders VALUES (1, DATE '2025-06-30'), (2, DATE '2025-06-29'), (3, DATE '2025-06-30');\n",
);
put(
  'corpus.yaml',
  `corpus: today_orders
version: 1
engine: duckdb
cases:
  - id: orders-today
    fixture: shop
    question: How many orders were placed today?
    reference_sql: SELECT count(*) AS n FROM orders WHERE placed = current_date
    shape: scalar
`,
);
put('run.jsonl', '{"id": "orders-today", "sql": "SELECT count(*) FROM orders WHERE placed = today()"}\n');
const cli = (extra: string[]) =>
  runCli(['run', '--corpus', 'corpus.yaml', '--run', 'run.jsonl', '--fixture', 'shop=shop.sql', ...extra], {
    cwd: dir,
  });

describe('run --as-of', () => {
  it('freezes the clock of a --fixture database: the reference and the candidate read the same day', async () => {
    const frozen = await cli(['--as-of', '2025-06-30', '--out', 'report.json']);
    expect(frozen.code, frozen.stderr).toBe(0);
    const report = JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8'));
    const c = report.cases[0].report;
    expect(c.deterministic_verdict).toBe('pass');
    expect(c.evidence.expected_sample.rows).toEqual([[2]]);
    // The report says which clock: the same database at another instant answers otherwise.
    expect(report.fixtures).toEqual([expect.objectContaining({ name: 'shop', as_of: '2025-06-30', unchanged: true })]);
  });

  it('a built-in fixture records its own instant; a file without --as-of records none', async () => {
    put(
      'both.yaml',
      `corpus: both_fixtures
version: 1
engine: duckdb
cases:
  - id: customers
    fixture: retail
    question: How many customers are there?
    reference_sql: SELECT count(*) AS n FROM customers
    shape: scalar
  - id: orders
    fixture: shop
    question: How many orders are there?
    reference_sql: SELECT count(*) AS n FROM orders
    shape: scalar
`,
    );
    put(
      'both.jsonl',
      '{"id": "customers", "sql": "SELECT count(*) FROM customers"}\n{"id": "orders", "sql": "SELECT count(*) FROM orders"}\n',
    );
    const r = await runCli(
      ['run', '--corpus', 'both.yaml', '--run', 'both.jsonl', '--fixture', 'shop=shop.sql', '--out', 'both.json'],
      { cwd: dir },
    );
    expect(r.code, r.stderr).toBe(0);
    const fixtures = JSON.parse(readFileSync(path.join(dir, 'both.json'), 'utf8')).fixtures;
    expect(fixtures.map((f: { name: string; as_of?: string }) => [f.name, f.as_of])).toEqual([
      ['retail', '2025-06-30T18:00:00Z'],
      ['shop', undefined],
    ]);
  });

  it('without it, the reference cannot read the clock: a broken reference whose message says --as-of', async () => {
    const open = await cli([]);
    expect(open.code).toBe(1);
    expect(open.stdout).toMatch(/orders-today \[broken_reference\]/);
    expect(open.stdout).toMatch(/current_date reads the clock.*run and selfcheck take --as-of\)\. The candidate/s);
  });
});
