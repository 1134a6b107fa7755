import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LogMonitor, monitor, parseLog, parseRules, percentile, scoreLog } from '../../src/core/stef/index.ts';
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

describe('streaming monitor', () => {
  const sample = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  const rules = parseRules(JSON.parse(readFileSync(rulesFile, 'utf8')));
  const appRules = rules.ok ? rules.value : {};
  /** The sample's lines again with other days and agents, so periods, ties and evictions vary. */
  const spread = (copies: number) =>
    Array.from({ length: copies }, (_, c) =>
      sample.map((l, i) => {
        const o = JSON.parse(l);
        const day = String(1 + ((i * 7 + c * 3) % 28)).padStart(2, '0');
        return JSON.stringify({
          ...o,
          timestamp: `2025-0${1 + (c % 3)}-${day}T1${i % 10}:00:00Z`,
          agent_version: `${o.agent_version}#${c % 2}`,
        });
      }),
    ).flat();

  it('one line at a time gives the whole-log monitor exactly (P90, mean, periods, worst), with a small evaluation cache', () => {
    const lines = [
      ...spread(3),
      '',
      'not json',
      '{"timestamp":"2025-01-01T00:00:00Z","agent_version":"x","sql":"SELECT 1"}',
    ];
    const { records, errors } = parseLog(lines.join('\n'));
    const scored = scoreLog(records, appRules);
    for (const bucket of ['day', 'week'] as const)
      for (const worst of [1, 2, 7]) {
        const m = new LogMonitor({ bucket, worst, rules: appRules, cacheSize: 5, keepErrors: 1 });
        lines.forEach((l, i) => m.addLine(l, i + 1));
        expect(m.report()).toEqual(monitor(scored, { bucket, worst }));
        expect(m.errorCount).toBe(errors.length);
        expect(m.errors).toEqual(errors.slice(0, 1));
      }
  });

  it('the CLI streams a log of several MiB (BOM, CRLF, no final newline) to the same report', async () => {
    const lines = Array.from({ length: 60 }, () => spread(4)).flat();
    const text = '\uFEFF' + lines.join('\r\n');
    expect(Buffer.byteLength(text)).toBeGreaterThan(2.5 * 2 ** 20);
    const file = path.join(dir, 'big.jsonl');
    writeFileSync(file, text);
    const m = new LogMonitor({ bucket: 'week', rules: appRules });
    text
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/)
      .forEach((l, i) => m.addLine(l, i + 1));
    const run = await runCli(['stef', '--log', file, '--rules', rulesFile, '--bucket', 'week', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(JSON.parse(JSON.stringify(m.report())));
    expect(JSON.parse(run.stdout).queries).toBe(lines.length);
    // A bad line deep in the file is named by its line number.
    writeFileSync(
      file,
      lines.slice(0, 9000).join('\n') + '\n{"timestamp":"soon","agent_version":"a","question":"q","sql":"SELECT 1"}\n',
    );
    const bad = await runCli(['stef', '--log', file]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/big\.jsonl:9001 \(timestamp\): timestamp "soon" is not an ISO date-time/);
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
