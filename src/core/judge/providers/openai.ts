/**
 * OpenAI-compatible chat completions: `POST {base}/chat/completions`.
 * Hosted OpenAI and the local servers that copy its protocol (Ollama,
 * llama.cpp server, vLLM, LM Studio).
 */
import type { CancelSignal } from '../../engine.ts';
import type { Outcome } from '../../errors.ts';
import { postJson } from '../http.ts';
import type { Completion, CompletionRequest, JudgeProvider, ProviderConfig } from '../provider-types.ts';
import type { JudgeRuntime } from '../runtime.ts';
import { completion, DEFAULT_MAX_TOKENS, isRecord, parseBody, protocolError, transportOf, trimBase } from './common.ts';

/** A 400 that names JSON mode: the server does not support `response_format`. */
const JSON_MODE_REJECTED = /response_format|json_object|json mode|json_mode/i;

function contentText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  // Some servers return content parts: [{type: 'text', text}].
  if (Array.isArray(content)) {
    const parts = content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('');
    return parts || null;
  }
  return null;
}

export function openAiProvider(config: ProviderConfig, runtime: JudgeRuntime): JudgeProvider {
  const endpoint = `${trimBase(config.baseUrl)}/chat/completions`;
  const transport = transportOf(config);
  // `auto`: ask for JSON mode until the server says it does not know it.
  let jsonMode = (config.jsonMode ?? 'auto') !== 'off';
  const headers: Record<string, string> = {};
  if (config.apiKey?.trim()) headers.authorization = `Bearer ${config.apiKey.trim()}`;

  async function complete(request: CompletionRequest, signal?: CancelSignal): Promise<Outcome<Completion>> {
    const started = runtime.now();
    let attempts = 0;
    for (;;) {
      const body: Record<string, unknown> = {
        model: config.model,
        messages: [{ role: 'system', content: request.system }, ...request.messages],
        temperature: config.temperature ?? 0,
        max_tokens: config.maxTokens ?? DEFAULT_MAX_TOKENS,
        stream: false,
      };
      if (jsonMode) body.response_format = { type: 'json_object' };
      const result = await postJson(runtime, endpoint, headers, body, transport, signal);
      attempts += result.ok ? result.value.attempts : result.attempts;
      if (!result.ok) {
        if (
          jsonMode &&
          config.jsonMode !== 'on' &&
          result.status === 400 &&
          JSON_MODE_REJECTED.test(result.body ?? '')
        ) {
          jsonMode = false;
          continue;
        }
        return { ok: false, error: result.error };
      }
      const parsed = parseBody(result.value.text);
      const choice = isRecord(parsed) && Array.isArray(parsed.choices) ? (parsed.choices[0] as unknown) : undefined;
      const message = isRecord(choice) && isRecord(choice.message) ? choice.message : undefined;
      const text = message ? contentText(message.content) : null;
      if (!isRecord(parsed) || text === null)
        return { ok: false, error: protocolError(endpoint, 'OpenAI-compatible chat-completions', result.value.text) };
      const usage = isRecord(parsed.usage) ? parsed.usage : {};
      return {
        ok: true,
        value: completion(
          parsed,
          text,
          { input: usage.prompt_tokens, output: usage.completion_tokens },
          { model: config.model, attempts, latencyMs: runtime.now() - started },
        ),
      };
    }
  }

  return { kind: 'openai', model: config.model, endpoint, complete };
}
