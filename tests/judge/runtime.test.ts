/** The judge's platform is injected: these runtimes are fakes of fetch itself, not of the judge. */
import { describe, expect, it } from 'vitest';
import { judgeCase } from '../../src/core/judge/judge-case.ts';
import type { JudgeProvider } from '../../src/core/judge/provider.ts';
import { createProvider } from '../../src/core/judge/provider.ts';
import type { JudgeRuntime } from '../../src/core/judge/runtime.ts';
import { standardRuntime } from '../../src/core/judge/runtime.ts';
import { caseInput } from './recorded.ts';

function withFetch(fetch: JudgeRuntime['http']['fetch']): JudgeRuntime {
  return { ...standardRuntime(globalThis), http: { fetch } };
}

function make(runtime: JudgeRuntime): JudgeProvider {
  const created = createProvider(
    { kind: 'anthropic', baseUrl: 'https://judge.example/v1', model: 'm', apiKey: 'k' },
    runtime,
  );
  if (!created.ok) throw new Error(created.error.message);
  return created.value;
}

describe('the injected runtime', () => {
  it("turns a browser's CORS refusal (TypeError: Failed to fetch, no status) into the network/CORS message", async () => {
    const judgment = await judgeCase(
      make(withFetch(() => Promise.reject(new TypeError('Failed to fetch')))),
      caseInput(),
    );
    expect(judgment.error?.code).toBe('judge.cors_or_network');
    expect(judgment.error?.raw).toBe('Failed to fetch');
    expect(judgment.error?.message).toContain('https://judge.example/v1/messages');
    expect(judgment.error?.message).toContain("the server must allow this page's origin");
    expect(judgment.deterministic_verdict).toBe('fail');
  });

  it('records a provider that throws instead of answering as a judge error', async () => {
    const broken: JudgeProvider = {
      kind: 'openai',
      model: 'm',
      endpoint: 'x',
      complete: () => Promise.reject(new Error('boom')),
    };
    const judgment = await judgeCase(broken, caseInput());
    expect(judgment.status).toBe('error');
    expect(judgment.error?.message).toContain('boom');
  });

  it('skips without a provider, and rejects bad configurations by field', () => {
    return judgeCase(null, caseInput()).then((judgment) => {
      expect(judgment.skipped_reason).toBe('not_configured');
      const runtime = standardRuntime(globalThis);
      const bad = createProvider({ kind: 'openai', baseUrl: 'localhost:11434', model: 'm' }, runtime);
      expect(!bad.ok && bad.error.location).toBe('url');
      const noKey = createProvider({ kind: 'anthropic', baseUrl: 'https://api.anthropic.com', model: 'm' }, runtime);
      expect(!noKey.ok && noKey.error.location).toBe('key');
    });
  });
});
