import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { monitor, parseLog, parseRules, percentile, scoreLog } from '../../src/core/stef/index.ts';
import { runCli } from '../helpers/cli.ts';
import { repoRoot } from '../helpers/paths.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-stef-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const logFile = path.join(repoRoot, 'fixtures/stef/production-log.jsonl');
const rulesFile = path.join(repoRoot, 'fixtures/stef/r_app.json');

describe('monitoring', () => {
  it('P90 is nearest-rank', () => {
    expect(percentile([], 90)).toBeNull();
    expect(percentile([10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 90)).toBe(90);
    expect(percentile([5], 90)).toBe(5);
  });
  it('the sample log has three agent versions with distinct quality, and the CLI prints the same numbers as the core', async () => {
    const { records, errors } = parseLog(readFileSync(logFile, 'utf8'));
    expect(errors).toEqual([]);
    const rules = parseRules(JSON.parse(readFileSync(rulesFile, 'utf8')));
    expect(rules.ok).toBe(true);
    const report = monitor(scoreLog(records, rules.ok ? rules.value : {}), { bucket: 'week' });
    expect(report.agents.map((a) => a.agent_version)).toEqual(['agent-a@1.4.0', 'agent-b@2.0.0', 'agent-c@2.1.0']);
    const [a, b, c] = report.agents;
    expect(c!.mean_phi!).toBeGreaterThan(a!.mean_phi!);
    expect(a!.mean_phi!).toBeGreaterThan(b!.mean_phi!);
    expect(a!.coverage).toBeLessThan(1);
    expect(c!.coverage).toBe(1);
    expect(a!.periods.length).toBe(2);
    const run = await runCli(['stef', '--log', logFile, '--rules', rulesFile, '--bucket', 'week', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(JSON.parse(JSON.stringify(report)));
    const text = await runCli(['stef', '--log', logFile, '--rules', rulesFile]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/agent-b@2\.0\.0/);
  });
});

describe('sql-verdict stef', () => {
  it('grades one query and prints the JSON report', async () => {
    const run = await runCli([
      'stef',
      '--question',
      'How many orders were refunded in 2024?',
      '--sql',
      "SELECT count(*) FROM orders WHERE status = 'refunded' AND tenant_id = 9 AND order_date >= '2024-01-01' AND order_date < '2025-01-01'",
      '--rules',
      rulesFile,
      '--json',
    ]);
    expect(run.code).toBe(0);
    const r = JSON.parse(run.stdout);
    expect(r).toMatchObject({
      phi: 100,
      gamma: 1,
      filter_alignment: { status: 'fully_applied_with_extras', leniency: 1 },
      semantic_verdict: { label: 'correct', source: 'rules' },
    });
  });
  it('prints a readable summary with the evidence', async () => {
    const run = await runCli([
      'stef',
      '--question',
      'How many orders were cancelled?',
      '--sql',
      'SELECT count(*) FROM orders',
      '--rules',
      rulesFile,
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Φ 0 · filters not_applied/);
    expect(run.stdout).toMatch(/filter missing: "cancelled"/);
  });
  it('bad inputs exit 2 naming the flag, file, line or field', async () => {
    const missing = await runCli(['stef', '--question', 'How many orders?']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--sql is required/);
    const badSql = await runCli(['stef', '--question', 'How many orders?', '--sql', 'SELEC FROM']);
    expect(badSql.code).toBe(2);
    expect(badSql.stderr).toMatch(/--sql/);
    const rules = path.join(dir, 'bad-rules.json');
    writeFileSync(rules, JSON.stringify({ benign_filters: [{ column: 'tenant_id' }, { operator: '=' }] }));
    const badRules = await runCli(['stef', '--question', 'How many orders?', '--sql', 'SELECT 1', '--rules', rules]);
    expect(badRules.code).toBe(2);
    expect(badRules.stderr).toMatch(/bad-rules\.json: R_app benign_filters\[1\]\.column/);
    const log = path.join(dir, 'bad.jsonl');
    writeFileSync(
      log,
      [
        '{"timestamp":"2025-06-01T00:00:00Z","agent_version":"a","question":"How many orders?","sql":"SELECT count(*) FROM orders"}',
        '{"timestamp":"2025-06-01T00:00:00Z","agent_version":"a","sql":"SELECT 1"}',
        'not json',
      ].join('\n'),
    );
    const badLog = await runCli(['stef', '--log', log]);
    expect(badLog.code).toBe(2);
    expect(badLog.stderr).toMatch(/bad\.jsonl:2 \(question\)/);
    expect(badLog.stderr).toMatch(/bad\.jsonl:3: not valid JSON/);
  });
});
