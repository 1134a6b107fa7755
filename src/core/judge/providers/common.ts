import type { VerdictError } from '../../errors.ts';
import { verdictError } from '../../errors.ts';
import type { TransportOptions } from '../http.ts';
import { DEFAULT_TRANSPORT } from '../http.ts';
import type { Completion, ProviderConfig } from '../provider-types.ts';

export const DEFAULT_MAX_TOKENS = 1500;

export function transportOf(config: ProviderConfig): TransportOptions {
  return { ...DEFAULT_TRANSPORT, ...config.transport };
}

export function trimBase(baseUrl: string): string {
  return baseUrl.trim().replace(/\/+$/, '');
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/** The server answered 2xx but not in the protocol's shape. */
export function protocolError(url: string, protocol: string, text: string): VerdictError {
  return verdictError(
    'judge.http_error',
    `The judge at ${url} answered, but not as a ${protocol} endpoint would. Check the provider kind and the base URL.`,
    {
      raw: text.length > 500 ? `${text.slice(0, 500)}…` : text,
      location: url,
    },
  );
}

export function parseBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The completion both protocols return: usage counts as the server reported them, the model it says answered. */
export function completion(
  parsed: Record<string, unknown>,
  text: string,
  tokens: { input: unknown; output: unknown },
  meta: { model: string; attempts: number; latencyMs: number },
): Completion {
  const input = count(tokens.input);
  const output = count(tokens.output);
  return {
    text,
    usage: { input_tokens: input ?? 0, output_tokens: output ?? 0, usage_reported: input !== null || output !== null },
    model_id: typeof parsed.model === 'string' && parsed.model ? parsed.model : meta.model,
    attempts: meta.attempts,
    latency_ms: Math.round(meta.latencyMs),
  };
}
