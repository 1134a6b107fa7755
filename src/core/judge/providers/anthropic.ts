/**
 * Anthropic Messages: `POST {base}/v1/messages`, with the header Anthropic
 * requires before it answers a browser directly.
 */
import type { CancelSignal } from '../../engine.ts';
import type { Outcome } from '../../errors.ts';
import { postJson } from '../http.ts';
import type { Completion, CompletionRequest, JudgeProvider, ProviderConfig } from '../provider-types.ts';
import type { JudgeRuntime } from '../runtime.ts';
import { completion, DEFAULT_MAX_TOKENS, isRecord, parseBody, protocolError, transportOf, trimBase } from './common.ts';

export const ANTHROPIC_VERSION = '2023-06-01';

export function anthropicEndpoint(baseUrl: string): string {
  const base = trimBase(baseUrl);
  // Accept both https://api.anthropic.com and https://api.anthropic.com/v1.
  return /\/v1$/.test(base) ? `${base}/messages` : `${base}/v1/messages`;
}

export function anthropicProvider(config: ProviderConfig, runtime: JudgeRuntime): JudgeProvider {
  const endpoint = anthropicEndpoint(config.baseUrl);
  const transport = transportOf(config);
  const headers: Record<string, string> = {
    'x-api-key': (config.apiKey ?? '').trim(),
    'anthropic-version': ANTHROPIC_VERSION,
    'anthropic-dangerous-direct-browser-access': 'true',
  };

  async function complete(request: CompletionRequest, signal?: CancelSignal): Promise<Outcome<Completion>> {
    const started = runtime.now();
    const body = {
      model: config.model,
      system: request.system,
      messages: request.messages,
      max_tokens: config.maxTokens ?? DEFAULT_MAX_TOKENS,
      temperature: config.temperature ?? 0,
    };
    const result = await postJson(runtime, endpoint, headers, body, transport, signal);
    if (!result.ok) return { ok: false, error: result.error };
    const parsed = parseBody(result.value.text);
    const blocks = isRecord(parsed) && Array.isArray(parsed.content) ? (parsed.content as unknown[]) : null;
    // Only text blocks: thinking blocks are reasoning traces and are never kept.
    const text = blocks
      ?.map((block) => (isRecord(block) && block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
      .join('');
    if (!isRecord(parsed) || text === undefined)
      return { ok: false, error: protocolError(endpoint, 'Anthropic Messages', result.value.text) };
    const usage = isRecord(parsed.usage) ? parsed.usage : {};
    return {
      ok: true,
      value: completion(
        parsed,
        text,
        { input: usage.input_tokens, output: usage.output_tokens },
        { model: config.model, attempts: result.value.attempts, latencyMs: runtime.now() - started },
      ),
    };
  }

  return { kind: 'anthropic', model: config.model, endpoint, complete };
}
