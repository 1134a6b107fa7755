/**
 * The one interface both wire protocols implement (providers/openai.ts,
 * providers/anthropic.ts): a provider's configuration, a completion request
 * and its answer.
 */
import type { CancelSignal } from '../engine.ts';
import type { Outcome } from '../errors.ts';
import type { TransportOptions } from './http.ts';

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
