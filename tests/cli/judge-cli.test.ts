/**
 * The optional AI judge from the CLI, against a local server speaking the
 * OpenAI-compatible protocol with a recorded answer: advisory only, asked
 * only below the threshold, and the deterministic verdict never changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { spiderDatabase } from '../helpers/paths.ts';
import { ANSWER_DISAGREES_PASS, ANSWER_MISSING_FILTER, PROTOCOLS } from '../judge/recorded.ts';
import { startJudgeServer, type JudgeServer } from '../judge/server.ts';

const openai = PROTOCOLS.find((p) => p.kind === 'openai')!;
let server: JudgeServer;

beforeAll(async () => {
  server = await startJudgeServer();
  server.respond(() => ({ body: openai.wire(JSON.stringify(ANSWER_DISAGREES_PASS)) }));
});
afterAll(async () => server.close());

const env = () => ({
  SQL_VERDICT_JUDGE_PROVIDER: 'openai',
  SQL_VERDICT_JUDGE_URL: `${server.url}/v1`,
  SQL_VERDICT_JUDGE_MODEL: 'llama3.1',
});

describe('sql-verdict compare --judge', () => {
  it('records an advisory verdict that disagrees, flags it, and keeps the deterministic fail', async () => {
    const before = server.requests.length;
    const run = await runCli(
      [
        'compare',
        '--fixture',
        spiderDatabase('concert_singer'),
        '--expected',
        "SELECT name FROM singer WHERE country = 'France'",
        '--actual',
        'SELECT name FROM singer',
        '--judge',
        '--json',
      ],
      { env: env() },
    );
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.deterministic_verdict).toBe('fail');
    expect(report.ai_advisory_verdict).toBe('pass');
    expect(report.verdict_consistency_flag).toBe(false);
    expect(report.judge).toMatchObject({ status: 'judged', prompt_version: expect.any(String) });
    expect(report.warnings.some((w: { code: string }) => w.code === 'judge')).toBe(true);
    expect(server.requests.length).toBe(before + 1);
  });

  it('executes a suggested fix in the sandbox and grades it before calling it a fix', async () => {
    const answer = (sql: string) => ({
      body: openai.wire(JSON.stringify({ ...ANSWER_MISSING_FILTER, suggested_sql: sql })),
    });
    const args = [
      'compare',
      '--fixture',
      spiderDatabase('concert_singer'),
      '--expected',
      "SELECT name FROM singer WHERE country = 'France'",
      '--actual',
      'SELECT name FROM singer',
      '--judge',
      '--json',
    ];
    server.respond(() => answer("SELECT name FROM singer WHERE country = 'France'"));
    const good = JSON.parse((await runCli(args, { env: env() })).stdout);
    expect(good.judge.suggested_fix).toMatchObject({ verified: true, passes: true });
    server.respond(() => answer("SELECT name FROM singer WHERE country = 'Netherlands'"));
    const bad = JSON.parse((await runCli(args, { env: env() })).stdout);
    expect(bad.judge.suggested_fix).toMatchObject({ verified: true, passes: false });
    expect(bad.deterministic_verdict).toBe('fail');
    server.respond(() => ({ body: openai.wire(JSON.stringify(ANSWER_DISAGREES_PASS)) }));
  });

  it('makes no request for a case at or above the threshold', async () => {
    const before = server.requests.length;
    const run = await runCli(
      [
        'compare',
        '--fixture',
        spiderDatabase('concert_singer'),
        '--expected',
        'SELECT count(*) FROM singer',
        '--actual',
        'SELECT COUNT(*) FROM singer',
        '--judge',
        '--json',
      ],
      { env: env() },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).judge).toMatchObject({ status: 'skipped', skipped_reason: 'above_threshold' });
    expect(server.requests.length).toBe(before);
  });

  it('makes no request under SQL_VERDICT_JUDGE_POLICY=disabled (production gates)', async () => {
    const before = server.requests.length;
    const run = await runCli(
      [
        'compare',
        '--fixture',
        spiderDatabase('concert_singer'),
        '--expected',
        "SELECT name FROM singer WHERE country = 'France'",
        '--actual',
        'SELECT name FROM singer',
        '--judge',
        '--json',
      ],
      { env: { ...env(), SQL_VERDICT_JUDGE_POLICY: 'disabled' } },
    );
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.judge).toMatchObject({ status: 'skipped', skipped_reason: 'disabled_by_policy' });
    expect(report.ai_advisory_verdict).toBeNull();
    expect(server.requests.length).toBe(before);
  });

  it('names the missing variable when the judge is not configured', async () => {
    const run = await runCli(
      [
        'compare',
        '--fixture',
        spiderDatabase('concert_singer'),
        '--expected',
        'SELECT 1',
        '--actual',
        'SELECT 1',
        '--judge',
      ],
      { env: { SQL_VERDICT_JUDGE_PROVIDER: 'openai' } },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/SQL_VERDICT_JUDGE_URL/);
  });
});
