import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/cli-error.ts';
import { describeJudge, judgeConfigFromEnv, judgeFromEnv } from '../../src/cli/judge-env.ts';

const base = {
  SQL_VERDICT_JUDGE_PROVIDER: 'openai',
  SQL_VERDICT_JUDGE_URL: 'http://127.0.0.1:11434/v1',
  SQL_VERDICT_JUDGE_MODEL: 'llama3.1',
};

function errorOf(env: Record<string, string | undefined>): CliError {
  try {
    judgeConfigFromEnv(env);
  } catch (thrown) {
    if (thrown instanceof CliError) return thrown;
    throw thrown;
  }
  throw new Error('expected a CliError');
}

describe('judge configuration from the environment', () => {
  it('builds an OpenAI-compatible provider for a local server without a key', () => {
    const { config, provider } = judgeFromEnv(base);
    expect(config.provider).toEqual({ kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.1' });
    expect(config.prices).toEqual({ inputPer1k: 0, outputPer1k: 0 });
    expect(provider?.endpoint).toBe('http://127.0.0.1:11434/v1/chat/completions');
  });

  it('defaults the Anthropic URL and reads the key, timeout and prices', () => {
    const { config, provider } = judgeFromEnv({
      SQL_VERDICT_JUDGE_PROVIDER: 'anthropic',
      SQL_VERDICT_JUDGE_MODEL: 'claude-3-5-haiku-latest',
      SQL_VERDICT_JUDGE_KEY: 'sk-ant-secret',
      SQL_VERDICT_JUDGE_TIMEOUT_MS: '15000',
      SQL_VERDICT_JUDGE_PRICE_INPUT_PER_1K: '0.0008',
      SQL_VERDICT_JUDGE_PRICE_OUTPUT_PER_1K: '0.004',
    });
    expect(provider?.endpoint).toBe('https://api.anthropic.com/v1/messages');
    expect(config.provider?.transport).toEqual({ timeoutMs: 15000 });
    expect(config.prices).toEqual({ inputPer1k: 0.0008, outputPer1k: 0.004 });
    expect(describeJudge(config.provider!)).not.toContain('sk-ant-secret');
  });

  it('reads the policy: advisory by default; disabled needs no provider (a gate job)', () => {
    expect(judgeFromEnv(base).policy).toBe('advisory');
    expect(judgeFromEnv({ ...base, SQL_VERDICT_JUDGE_POLICY: 'disabled' })).toMatchObject({
      policy: 'disabled',
      provider: { kind: 'openai' },
    });
    expect(judgeFromEnv({ SQL_VERDICT_JUDGE_POLICY: 'disabled' })).toMatchObject({
      policy: 'disabled',
      provider: null,
    });
    expect(errorOf({ ...base, SQL_VERDICT_JUDGE_POLICY: 'off' }).message).toMatch(
      /SQL_VERDICT_JUDGE_POLICY must be advisory or disabled, got "off"/,
    );
  });

  it('names the variable to fix', () => {
    expect(errorOf({}).message).toContain('SQL_VERDICT_JUDGE_PROVIDER');
    expect(errorOf({ ...base, SQL_VERDICT_JUDGE_PROVIDER: 'gemini' }).message).toMatch(
      /SQL_VERDICT_JUDGE_PROVIDER must be openai or anthropic, got "gemini"/,
    );
    expect(errorOf({ ...base, SQL_VERDICT_JUDGE_URL: undefined }).message).toContain(
      'SQL_VERDICT_JUDGE_URL is not set',
    );
    expect(errorOf({ ...base, SQL_VERDICT_JUDGE_URL: 'ftp://host' }).message).toMatch(/^SQL_VERDICT_JUDGE_URL: /);
    expect(errorOf({ ...base, SQL_VERDICT_JUDGE_MODEL: ' ' }).message).toContain('SQL_VERDICT_JUDGE_MODEL is not set');
    expect(errorOf({ SQL_VERDICT_JUDGE_PROVIDER: 'anthropic', SQL_VERDICT_JUDGE_MODEL: 'm' }).message).toMatch(
      /^SQL_VERDICT_JUDGE_KEY: /,
    );
    expect(errorOf({ ...base, SQL_VERDICT_JUDGE_TIMEOUT_MS: 'soon' }).message).toContain(
      'SQL_VERDICT_JUDGE_TIMEOUT_MS',
    );
    expect(errorOf({ ...base, SQL_VERDICT_JUDGE_PRICE_INPUT_PER_1K: '-1' }).message).toContain(
      'SQL_VERDICT_JUDGE_PRICE_INPUT_PER_1K',
    );
    expect(errorOf({}).exitCode).toBe(2);
  });
});
