import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { repoRoot } from '../helpers/paths.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-selfcheck-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sql-verdict selfcheck', () => {
  it('passes on both built-in corpora with zero findings', { timeout: 300_000 }, async () => {
    const run = await runCli(['selfcheck', '--json'], { env: {} });
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.passed).toBe(true);
    expect(report.corpora.map((c: { corpus: string; findings: unknown[] }) => [c.corpus, c.findings.length])).toEqual([
      ['execution_goldens', 0],
      ['refusal_battery', 0],
    ]);
  });

  it('fails on a corrupted copy (one reference changed), naming the case', { timeout: 300_000 }, async () => {
    const text = readFileSync(path.join(repoRoot, 'fixtures/corpora/execution_goldens.yaml'), 'utf8');
    const corrupted = text.replace(
      'reference_sql: SELECT count(*) AS customer_count FROM customers',
      'reference_sql: SELECT count(*) - 1 AS customer_count FROM customers',
    );
    expect(corrupted).not.toBe(text);
    writeFileSync(path.join(dir, 'corrupted.yaml'), corrupted);
    const run = await runCli(['selfcheck', '--corpus', path.join(dir, 'corrupted.yaml')]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/retail-customer-count/);
  });
});
