/**
 * The one interface both wire protocols implement: OpenAI-compatible chat
 * completions (hosted, Ollama, llama.cpp server, vLLM, LM Studio) and
 * Anthropic Messages.
 */
import type { CancelSignal } from '../engine.ts';
import type { Outcome } from '../errors.ts';
import { fail } from '../errors.ts';
import type { TransportOptions } from './http.ts';
import { trimBase } from './providers/common.ts';
import { anthropicProvider } from './providers/anthropic.ts';
import { openAiProvider } from './providers/openai.ts';
import type { JudgeRuntime } from './runtime.ts';

export const PROVIDER_KINDS = ['openai', 'anthropic'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export interface ProviderConfig {
  kind: ProviderKind;
  /** Base URL: `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`, `https://api.anthropic.com`. */
  baseUrl: string;
  model: string;
  /** Optional for local OpenAI-compatible servers; required by Anthropic. Never logged or recorded. */
  apiKey?: string;
  /**
   * OpenAI only: ask for `response_format: {type: 'json_object'}`. `auto` (default)
   * asks and drops it for the rest of the session if the server rejects it.
   */
  jsonMode?: 'auto' | 'on' | 'off';
  /** Answer budget. Default 1500. */
  maxTokens?: number;
  /** Default 0: the judge should be as repeatable as the model allows. */
  temperature?: number;
  transport?: Partial<TransportOptions>;
}

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface CompletionRequest {
  system: string;
  messages: ChatMessage[];
}

export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  /** False when the server reported no usage (some local servers): the counts are 0, not measured. */
  usage_reported: boolean;
}

export interface Completion {
  text: string;
  usage: TokenUsage;
  /** The model id the server says answered (falls back to the configured model). */
  model_id: string;
  attempts: number;
  latency_ms: number;
}

export interface JudgeProvider {
  readonly kind: ProviderKind;
  readonly model: string;
  /** The URL requests go to; the only place a judge request is sent. */
  readonly endpoint: string;
  complete(request: CompletionRequest, signal?: CancelSignal): Promise<Outcome<Completion>>;
}

/** Check a provider configuration; the messages name the setting to fix. */
export function validateProviderConfig(config: ProviderConfig): Outcome<ProviderConfig> {
  if (!(PROVIDER_KINDS as readonly string[]).includes(config.kind)) {
    return fail('input.invalid', `Unknown judge provider "${String(config.kind)}": use openai or anthropic.`, {
      location: 'provider',
    });
  }
  if (!/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/i.test(trimBase(config.baseUrl ?? ''))) {
    return fail(
      'input.invalid',
      `The judge base URL "${config.baseUrl}" is not an http(s) URL (e.g. http://127.0.0.1:11434/v1).`,
      { location: 'url' },
    );
  }
  if (!config.model?.trim()) return fail('input.invalid', 'No judge model is set.', { location: 'model' });
  if (config.kind === 'anthropic' && !config.apiKey?.trim()) {
    return fail('input.invalid', 'The Anthropic provider needs an API key.', { location: 'key' });
  }
  return { ok: true, value: config };
}

/** A provider for `config`, or the configuration error. */
export function createProvider(config: ProviderConfig, runtime: JudgeRuntime): Outcome<JudgeProvider> {
  const valid = validateProviderConfig(config);
  if (!valid.ok) return valid;
  return {
    ok: true,
    value: config.kind === 'openai' ? openAiProvider(config, runtime) : anthropicProvider(config, runtime),
  };
}
