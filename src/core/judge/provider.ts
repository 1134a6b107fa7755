/**
 * A judge provider from its configuration: OpenAI-compatible chat
 * completions (hosted, Ollama, llama.cpp server, vLLM, LM Studio) or
 * Anthropic Messages, behind one interface (provider-types.ts).
 */
import type { Outcome } from '../errors.ts';
import { fail } from '../errors.ts';
import { PROVIDER_KINDS, type JudgeProvider, type ProviderConfig } from './provider-types.ts';
import { trimBase } from './providers/common.ts';
import { anthropicProvider } from './providers/anthropic.ts';
import { openAiProvider } from './providers/openai.ts';
import type { JudgeRuntime } from './runtime.ts';

export {
  PROVIDER_KINDS,
  type ChatMessage,
  type Completion,
  type CompletionRequest,
  type JudgeProvider,
  type ProviderConfig,
  type ProviderKind,
  type TokenUsage,
} from './provider-types.ts';

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
