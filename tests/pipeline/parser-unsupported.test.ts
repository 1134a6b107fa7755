/**
 * parser_unsupported, said the same way everywhere: SQL the engine runs but
 * the structural parser cannot parse is `parser_unsupported` in the report's
 * validity and in its structure section (never parse_failure, never
 * parse_success false), in the run summary's case records and in the
 * Markdown export. (The case view renders the same fields: ReportDetail and
 * SqlDiff read validity.parser_unsupported_* and structure.blocked_reason.)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-unsupported-'));
const at = (f: string) => path.join(dir, f);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// QUALIFY runs on DuckDB; node-sql-parser has no grammar for it.
const QUALIFY = 'SELECT order_id, customer_id FROM orders QUALIFY row_number() OVER (ORDER BY order_id) <= 3';
const PLAIN = 'SELECT order_id, customer_id FROM orders ORDER BY order_id LIMIT 3';

describe('parser_unsupported', () => {
  it('the report says parser_unsupported in validity and in the structure section, and the results are still compared', async () => {
    const out = await runCli(['compare', '--fixture', 'retail', '--expected', PLAIN, '--actual', QUALIFY, '--json']);
    const r = JSON.parse(out.stdout);
    expect(r.deterministic_verdict).toBe('pass');
    expect(r.blocked_reason).toBeNull();
    expect(r.validity).toMatchObject({
      parse_success_actual: true,
      parser_unsupported_actual: true,
      parser_unsupported_expected: false,
    });
    expect(r.evidence.structure).toMatchObject({
      parse_success_actual: true,
      parse_success_expected: true,
      parser_unsupported_actual: true,
      parser_unsupported_expected: false,
      blocked_reason: 'parser_unsupported',
      clause_match: null,
      parse_error_actual: { code: 'validation.parser_unsupported' },
    });
    expect(r.structure_score).toBeNull();
    expect(r.warnings.map((w: { code: string }) => w.code)).toContain('parser_unsupported');
    expect(out.stdout).not.toContain('parse_failure');
    expect(out.stdout).not.toMatch(/"parse_success_(actual|expected)": false/);
  });

  it('a genuine syntax error is still parse_failure', async () => {
    const out = await runCli([
      'compare',
      '--fixture',
      'retail',
      '--expected',
      PLAIN,
      '--actual',
      'SELEC order_id FROM orders',
      '--json',
    ]);
    const r = JSON.parse(out.stdout);
    expect(r.blocked_reason).toBe('parse_failure');
    expect(r.evidence.structure).toMatchObject({
      blocked_reason: 'parse_failure',
      parser_unsupported_actual: false,
      parse_success_actual: false,
    });
  });

  it('the run summary and the Markdown export name the case parser_unsupported', async () => {
    writeFileSync(
      at('corpus.yaml'),
      `corpus: qualify
version: 1
engine: duckdb
cases:
  - id: first-three-orders
    fixture: retail
    question: The first three orders.
    reference_sql: ${PLAIN}
    shape: rows
  - id: order-count
    fixture: retail
    question: How many orders are there?
    reference_sql: SELECT count(*) AS n FROM orders
    shape: scalar
`,
    );
    writeFileSync(
      at('run.jsonl'),
      [
        { run: { agent: 'a', model: 'm', path: 'governed', created_at: '2026-12-01T00:00:00Z' } },
        { id: 'first-three-orders', sql: QUALIFY, declined: false },
        { id: 'order-count', sql: 'SELECT count(*) AS n FROM orders', declined: false },
      ]
        .map((x) => JSON.stringify(x))
        .join('\n') + '\n',
    );
    const run = await runCli([
      'run',
      '--corpus',
      at('corpus.yaml'),
      '--run',
      at('run.jsonl'),
      '--out',
      at('report.json'),
      '--markdown',
      at('report.md'),
    ]);
    expect(run.code).toBe(0);
    const report = JSON.parse(readFileSync(at('report.json'), 'utf8'));
    const byId = Object.fromEntries(report.summary.cases.map((c: { id: string }) => [c.id, c]));
    expect(byId['first-three-orders']).toMatchObject({ outcome: 'correct', parser_unsupported: true });
    expect(byId['order-count'].parser_unsupported).toBeUndefined();
    const md = readFileSync(at('report.md'), 'utf8');
    expect(md).toContain('### parser_unsupported (1)');
    expect(md).toMatch(/\| `first-three-orders` \| correct \| parser_unsupported \|/);
    expect(md).not.toContain('parse_failure');
  }, 120_000);
});
