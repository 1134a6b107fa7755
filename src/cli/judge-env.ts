/**
 * The CLI's judge configuration, from the environment:
 *   SQL_VERDICT_JUDGE_PROVIDER  openai | anthropic
 *   SQL_VERDICT_JUDGE_URL       base URL (http://127.0.0.1:11434/v1; Anthropic defaults to https://api.anthropic.com)
 *   SQL_VERDICT_JUDGE_MODEL     model name
 *   SQL_VERDICT_JUDGE_KEY       API key (optional for local OpenAI-compatible servers)
 * Optional: SQL_VERDICT_JUDGE_TIMEOUT_MS, SQL_VERDICT_JUDGE_PRICE_INPUT_PER_1K,
 * SQL_VERDICT_JUDGE_PRICE_OUTPUT_PER_1K, and SQL_VERDICT_JUDGE_POLICY=disabled (production
 * gates: `--judge` then sends nothing, even where the provider is configured).
 */
import type { JudgePolicy, JudgePrices } from '../core/judge/judge-case.ts';
import type { JudgeProvider, ProviderConfig, ProviderKind } from '../core/judge/provider.ts';
import { createProvider, PROVIDER_KINDS, validateProviderConfig } from '../core/judge/provider.ts';
import type { JudgeRuntime } from '../core/judge/runtime.ts';
import { standardRuntime } from '../core/judge/runtime.ts';
import { CliError } from './cli-error.ts';

export const JUDGE_ENV = {
  provider: 'SQL_VERDICT_JUDGE_PROVIDER',
  url: 'SQL_VERDICT_JUDGE_URL',
  model: 'SQL_VERDICT_JUDGE_MODEL',
  key: 'SQL_VERDICT_JUDGE_KEY',
  timeoutMs: 'SQL_VERDICT_JUDGE_TIMEOUT_MS',
  priceInput: 'SQL_VERDICT_JUDGE_PRICE_INPUT_PER_1K',
  priceOutput: 'SQL_VERDICT_JUDGE_PRICE_OUTPUT_PER_1K',
  policy: 'SQL_VERDICT_JUDGE_POLICY',
} as const;

export const ANTHROPIC_DEFAULT_URL = 'https://api.anthropic.com';

export interface JudgeEnvConfig {
  /** Null only under the `disabled` policy with no provider configured. */
  provider: ProviderConfig | null;
  prices: JudgePrices;
  policy: JudgePolicy;
}

function policyFrom(env: Env): JudgePolicy {
  const policy = read(env, JUDGE_ENV.policy) ?? 'advisory';
  if (policy !== 'advisory' && policy !== 'disabled')
    throw new CliError(`${JUDGE_ENV.policy} must be advisory or disabled, got "${policy}".`);
  return policy;
}

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function nonNegative(env: Env, name: string): number | undefined {
  const value = read(env, name);
  if (value === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(value)) throw new CliError(`${name} must be a non-negative number, got "${value}".`);
  return Number(value);
}

/** The judge configuration from `env`; a CliError (exit 2) naming the variable to fix. */
export function judgeConfigFromEnv(env: Env): JudgeEnvConfig {
  const policy = policyFrom(env);
  const kind = read(env, JUDGE_ENV.provider);
  // A gate job may switch the judge off without configuring one.
  if (!kind && policy === 'disabled') return { provider: null, prices: { inputPer1k: 0, outputPer1k: 0 }, policy };
  if (!kind)
    throw new CliError(
      `--judge needs ${JUDGE_ENV.provider} (openai or anthropic), ${JUDGE_ENV.model}, and ${JUDGE_ENV.url} for openai.`,
    );
  if (!(PROVIDER_KINDS as readonly string[]).includes(kind))
    throw new CliError(`${JUDGE_ENV.provider} must be openai or anthropic, got "${kind}".`);
  const url = read(env, JUDGE_ENV.url) ?? (kind === 'anthropic' ? ANTHROPIC_DEFAULT_URL : undefined);
  if (!url)
    throw new CliError(
      `${JUDGE_ENV.url} is not set: give the base URL of the OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1 (Ollama) or https://api.openai.com/v1.`,
    );
  const model = read(env, JUDGE_ENV.model);
  if (!model)
    throw new CliError(
      `${JUDGE_ENV.model} is not set: name the judge model, e.g. llama3.1 or claude-3-5-haiku-latest.`,
    );
  const apiKey = read(env, JUDGE_ENV.key);
  const timeoutMs = nonNegative(env, JUDGE_ENV.timeoutMs);
  if (timeoutMs !== undefined && timeoutMs <= 0) throw new CliError(`${JUDGE_ENV.timeoutMs} must be more than 0.`);

  const provider: ProviderConfig = {
    kind: kind as ProviderKind,
    baseUrl: url,
    model,
    ...(apiKey ? { apiKey } : {}),
    ...(timeoutMs ? { transport: { timeoutMs } } : {}),
  };
  const valid = validateProviderConfig(provider);
  if (!valid.ok) {
    const variable =
      { provider: JUDGE_ENV.provider, url: JUDGE_ENV.url, model: JUDGE_ENV.model, key: JUDGE_ENV.key }[
        valid.error.location ?? ''
      ] ?? JUDGE_ENV.provider;
    throw new CliError(`${variable}: ${valid.error.message}`);
  }
  return {
    provider,
    prices: {
      inputPer1k: nonNegative(env, JUDGE_ENV.priceInput) ?? 0,
      outputPer1k: nonNegative(env, JUDGE_ENV.priceOutput) ?? 0,
    },
    policy,
  };
}

/** Node's own globals as the judge's runtime. */
export function nodeJudgeRuntime(): JudgeRuntime {
  return standardRuntime(globalThis);
}

/** A ready provider from the environment, for `compare --judge` and `run --judge`. */
export function judgeFromEnv(
  env: Env = process.env,
  runtime: JudgeRuntime = nodeJudgeRuntime(),
): { provider: JudgeProvider | null; prices: JudgePrices; policy: JudgePolicy; config: JudgeEnvConfig } {
  const config = judgeConfigFromEnv(env);
  if (!config.provider) return { provider: null, prices: config.prices, policy: config.policy, config };
  const provider = createProvider(config.provider, runtime);
  if (!provider.ok) throw new CliError(provider.error.message);
  return { provider: provider.value, prices: config.prices, policy: config.policy, config };
}

/** One line for logs: never the key. */
export function describeJudge(config: ProviderConfig): string {
  return `${config.kind} ${config.model} at ${config.baseUrl}${config.apiKey ? ' (key set)' : ''}`;
}
