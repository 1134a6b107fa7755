/**
 * The judge against a local server on 127.0.0.1 speaking both wire
 * protocols with recorded answers. Node's own fetch, timers and
 * AbortController are the runtime, exactly as the CLI uses them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { judgeBatch } from '../../src/core/judge/batch.ts';
import { judgeCase } from '../../src/core/judge/judge-case.ts';
import { PROMPT_VERSION } from '../../src/core/judge/prompt.ts';
import type { JudgeProvider, ProviderConfig } from '../../src/core/judge/provider.ts';
import { createProvider } from '../../src/core/judge/provider.ts';
import { standardRuntime } from '../../src/core/judge/runtime.ts';
import { ANSWER_DISAGREES_PASS, ANSWER_MISSING_FILTER, caseInput, PROTOCOLS } from './recorded.ts';
import type { JudgeServer } from './server.ts';
import { closedPort, startJudgeServer } from './server.ts';

const runtime = standardRuntime(globalThis);
const FAST = { timeoutMs: 3_000, backoffBaseMs: 20, backoffMaxMs: 100, maxRetries: 2 };

function provider(config: ProviderConfig): JudgeProvider {
  const created = createProvider(config, runtime);
  if (!created.ok) throw new Error(created.error.message);
  return created.value;
}

const normal = JSON.stringify(ANSWER_MISSING_FILTER);

describe.each(PROTOCOLS)('judge over the $kind wire protocol', (protocol) => {
  let server: JudgeServer;
  const make = (extra: Partial<ProviderConfig> = {}) =>
    provider(protocol.config(server.url, { transport: FAST, ...extra }));

  beforeAll(async () => {
    server = await startJudgeServer();
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    await server.close();
    server = await startJudgeServer();
  });

  it('sends a grounded request and records a normal answer', async () => {
    server.respond(() => ({ body: protocol.wire(normal) }));
    const judgment = await judgeCase(make(), caseInput());

    expect(server.requests).toHaveLength(1);
    const request = server.requests[0]!;
    expect(request.path).toBe(protocol.path);
    const messages = protocol.messages(request.body);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.content).toContain('<<<DATA candidate_sql>>>');
    expect(messages[0]!.content).toContain("WHERE: removed status = 'shipped'");
    if (protocol.kind === 'anthropic') {
      expect(request.headers['x-api-key']).toBe('test-key-123');
      expect(request.headers['anthropic-version']).toBe('2023-06-01');
      expect(request.headers['anthropic-dangerous-direct-browser-access']).toBe('true');
      expect(typeof request.body.system).toBe('string');
    } else {
      expect(request.headers.authorization).toBeUndefined();
      expect(request.body.response_format).toEqual({ type: 'json_object' });
      expect((request.body.messages as Array<{ role: string }>)[0]!.role).toBe('system');
    }

    expect(judgment.status).toBe('judged');
    expect(judgment.prompt_version).toBe(PROMPT_VERSION);
    expect(judgment.model_id).toBe(protocol.recordedModel);
    expect(judgment.provider).toBe(protocol.kind);
    expect(judgment.usage).toEqual({
      input_tokens: protocol.usage.input,
      output_tokens: protocol.usage.output,
      usage_reported: true,
    });
    expect(judgment.judgment?.overall_verdict).toBe('FAIL');
    expect(judgment.judgment?.severity_classification).toBe('major issue');
    expect(judgment.ai_advisory_verdict).toBe('fail');
    expect(judgment.deterministic_verdict).toBe('fail');
    expect(judgment.verdict_consistency_flag).toBe(true);
    expect(judgment.warnings).toEqual([]);
    // No reasoning trace survives: not the answer's "reasoning" field, not Anthropic's thinking block.
    const stored = JSON.stringify(judgment);
    expect(stored).not.toContain('reasoning trace');
    expect(stored).not.toContain('internal reasoning');
    expect(Object.keys(judgment.judgment!)).not.toContain('reasoning');
  });

  it('repairs a malformed answer with one retry that sends the error back', async () => {
    server.respond((_, index) => ({
      body: protocol.wire(
        index === 0
          ? `Here is my review: {"overall_verdict": "FAIL", "confidence": "high",`
          : `\`\`\`json\n${normal}\n\`\`\``,
      ),
    }));
    const judgment = await judgeCase(make(), caseInput());

    expect(server.requests).toHaveLength(2);
    const repair = protocol.messages(server.requests[1]!.body);
    expect(repair.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(repair[1]!.content).toContain('Here is my review');
    expect(repair[2]!.content).toContain('not valid JSON');
    expect(judgment.status).toBe('judged');
    expect(judgment.repair_attempted).toBe(true);
    expect(judgment.requests).toBe(2);
    expect(judgment.usage.input_tokens).toBe(2 * protocol.usage.input);
  });

  it('records a judge error when the repair also fails', async () => {
    server.respond(() => ({ body: protocol.wire(JSON.stringify({ ...ANSWER_MISSING_FILTER, confidence: 'high' })) }));
    const judgment = await judgeCase(make(), caseInput());
    expect(server.requests).toHaveLength(2);
    expect(protocol.messages(server.requests[1]!.body)[2]!.content).toContain(
      'confidence: expected a number from 0 to 1',
    );
    expect(judgment.status).toBe('error');
    expect(judgment.error?.code).toBe('judge.invalid_answer');
    expect(judgment.ai_advisory_verdict).toBeNull();
    expect(judgment.deterministic_verdict).toBe('fail');
  });

  it('retries a 429 after the Retry-After the server asked for', async () => {
    server.respond((_, index) =>
      index === 0
        ? { status: 429, headers: { 'retry-after': '0.3' }, body: { error: { message: 'rate limited' } } }
        : { body: protocol.wire(normal) },
    );
    // A backoff of 20 s would fail the test: the wait must come from Retry-After.
    const judgment = await judgeCase(
      make({ transport: { ...FAST, backoffBaseMs: 20_000, backoffMaxMs: 20_000 } }),
      caseInput(),
    );
    expect(judgment.status).toBe('judged');
    expect(judgment.http_attempts).toBe(2);
    const gap = server.requests[1]!.at - server.requests[0]!.at;
    expect(gap).toBeGreaterThanOrEqual(250);
    expect(gap).toBeLessThan(3_000);
  });

  it('retries 5xx with backoff, then gives up with an HTTP error', async () => {
    server.respond(() => ({ status: 503, body: 'upstream overloaded' }));
    const judgment = await judgeCase(make(), caseInput());
    expect(server.requests).toHaveLength(3);
    expect(judgment.status).toBe('error');
    expect(judgment.error?.code).toBe('judge.http_error');
    expect(judgment.error?.message).toContain('HTTP 503');
    expect(judgment.error?.message).toContain('after 3 attempts');
  });

  it('does not retry other 4xx', async () => {
    server.respond(() => ({ status: 404, body: { error: 'model not found' } }));
    const judgment = await judgeCase(make(), caseInput());
    expect(server.requests).toHaveLength(1);
    expect(judgment.error?.code).toBe('judge.http_error');
    expect(judgment.error?.raw).toContain('model not found');
  });

  it('stops a request past its timeout', async () => {
    server.respond(() => ({ delayMs: 'hold' }));
    const started = Date.now();
    const judgment = await judgeCase(make({ transport: { ...FAST, timeoutMs: 300 } }), caseInput());
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(judgment.status).toBe('error');
    expect(judgment.error?.code).toBe('judge.timeout');
    expect(judgment.error?.message).toContain('300 ms');
    expect(server.requests).toHaveLength(1);
  });

  it('explains an auth failure without retrying or echoing the key', async () => {
    server.respond(() => ({ status: 401, body: { error: { message: 'invalid x-api-key' } } }));
    const judgment = await judgeCase(make({ apiKey: 'sk-secret-value' }), caseInput());
    expect(server.requests).toHaveLength(1);
    expect(judgment.error?.code).toBe('judge.auth');
    expect(judgment.error?.message).toContain('HTTP 401');
    expect(judgment.error?.message).toContain('API key');
    expect(JSON.stringify(judgment)).not.toContain('sk-secret-value');
  });

  it('reports a refused connection as a network or CORS failure', async () => {
    const port = await closedPort();
    const judgment = await judgeCase(
      provider(protocol.config(`http://127.0.0.1:${port}`, { transport: FAST })),
      caseInput(),
    );
    expect(judgment.status).toBe('error');
    expect(judgment.error?.code).toBe('judge.cors_or_network');
    expect(judgment.error?.message).toContain('CORS');
    expect(judgment.error?.message).toContain("allow this page's origin");
  });

  it('flags an answer that disagrees with the deterministic verdict and leaves the verdict unchanged', async () => {
    server.respond(() => ({ body: protocol.wire(JSON.stringify(ANSWER_DISAGREES_PASS)) }));
    const judgment = await judgeCase(make(), caseInput({ score: 0.7, verdict: 'fail' }));
    expect(judgment.judgment?.intent_adequacy_judgment).toBe('adequate');
    expect(judgment.judgment?.severity_classification).toBe('minor issue');
    expect(judgment.ai_advisory_verdict).toBe('pass');
    expect(judgment.deterministic_verdict).toBe('fail');
    expect(judgment.verdict_consistency_flag).toBe(false);
    expect(judgment.warnings[0]).toContain('disagrees with the deterministic verdict (fail)');
    expect(JSON.stringify(judgment)).not.toContain('hidden');
  });

  it('makes no request for cases at or above the 0.92 threshold', async () => {
    server.respond(() => ({ body: protocol.wire(normal) }));
    const scores = [0.92, 0.95, 1, 0.919, 0.5];
    const run = await judgeBatch(
      make(),
      scores.map((score, i) => ({ input: caseInput({ score, caseId: `c${i}` }) })),
    );
    expect(server.requests).toHaveLength(2);
    expect(run.judgments.map((j) => j.status)).toEqual(['skipped', 'skipped', 'skipped', 'judged', 'judged']);
    expect(run.judgments[0]!.skipped_reason).toBe('above_threshold');
    expect(run.summary.skipped.above_threshold).toBe(3);

    const strict = await judgeBatch(make(), [{ input: caseInput({ score: 0.96 }) }], { threshold: 0.97 });
    expect(strict.judgments[0]!.status).toBe('judged');
    const gated = await judgeBatch(make(), [{ input: caseInput({ score: 0.1 }) }], { policy: 'disabled' });
    expect(gated.judgments[0]!.skipped_reason).toBe('disabled_by_policy');
    expect(server.requests).toHaveLength(3);
  });

  it('never has more than N requests in flight', async () => {
    // The first N answers wait until N requests are in: on a loaded machine a fixed delay let an answer go out before
    // the client had sent its N-th request, and the peak fell short of N. Past N the client must wait for an answer.
    const answerOnceFull = (n: number) => async (_: unknown, index: number) => {
      if (index < n)
        await Promise.race([server.waitForRequests(n), new Promise((resolve) => setTimeout(resolve, 10_000))]);
      return { delayMs: 20, body: protocol.wire(normal) };
    };
    // The default is the seed article's evaluate_batch(max_parallel = 10).
    server.respond(answerOnceFull(10));
    const items = Array.from({ length: 12 }, (_, i) => ({ input: caseInput({ caseId: `c${i}` }) }));
    const run = await judgeBatch(make(), items);
    expect(server.requests).toHaveLength(12);
    expect(server.maxInFlight).toBe(10);
    expect(run.summary).toMatchObject({ judged: 12, concurrency: 10 });

    await server.close();
    server = await startJudgeServer();
    server.respond(answerOnceFull(2));
    await judgeBatch(make(), items, { concurrency: 2 });
    expect(server.maxInFlight).toBe(2);
  });

  it('cancel aborts the request in flight and the cases still waiting', async () => {
    server.respond(() => ({ delayMs: 'hold' }));
    const controller = new AbortController();
    const items = Array.from({ length: 3 }, (_, i) => ({ input: caseInput({ caseId: `c${i}` }) }));
    const pending = judgeBatch(make({ transport: { ...FAST, timeoutMs: 30_000 } }), items, {
      concurrency: 1,
      signal: controller.signal,
    });
    await server.waitForRequests(1);
    controller.abort();
    const run = await pending;
    expect(run.judgments.map((j) => j.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect(run.judgments[0]!.error?.code).toBe('run.cancelled');
    expect(server.requests).toHaveLength(1);
    await expect.poll(() => server.abandoned).toBe(1);
    expect(run.summary.cancelled).toBe(3);
  });

  it('aggregates usage, latency, cost, agreement and the review queue per run', async () => {
    server.respond((request) => {
      const text = JSON.stringify(protocol.messages(request.body)[0]);
      return {
        delayMs: 20,
        body: protocol.wire(
          JSON.stringify(text.includes('case-disagree') ? ANSWER_DISAGREES_PASS : ANSWER_MISSING_FILTER),
        ),
      };
    });
    const items = [
      { input: caseInput({ caseId: 'a', question: 'q a' }) },
      { input: caseInput({ caseId: 'b', question: 'q b case-disagree' }) },
      { input: caseInput({ caseId: 'c', score: 0.99, verdict: 'pass' }) },
    ];
    const run = await judgeBatch(make(), items, { prices: { inputPer1k: 0.5, outputPer1k: 2 } });
    const s = run.summary;
    expect(s.cases).toBe(3);
    expect(s.judged).toBe(2);
    expect(s.usage).toMatchObject({
      input_tokens: 2 * protocol.usage.input,
      output_tokens: 2 * protocol.usage.output,
      requests: 2,
      http_attempts: 2,
    });
    const perCase = (protocol.usage.input / 1000) * 0.5 + (protocol.usage.output / 1000) * 2;
    expect(s.cost_estimate).toBeCloseTo(2 * perCase, 10);
    expect(s.latency_ms.total).toBeGreaterThanOrEqual(40);
    expect(s.latency_ms.mean).toBeGreaterThanOrEqual(20);
    expect(s.model_ids).toEqual([protocol.recordedModel]);
    expect(s.prompt_version).toBe(PROMPT_VERSION);
    expect(s.agreement_matrix).toEqual({
      deterministic_pass: { ai_pass: 0, ai_fail: 0 },
      deterministic_fail: { ai_pass: 1, ai_fail: 1 },
    });
    expect(s.agreement_rate).toBe(0.5);
    expect(s.review_queue).toEqual(['b']);

    const unpriced = await judgeBatch(make(), items.slice(0, 1));
    expect(unpriced.summary.cost_estimate).toBeNull();
  });

  it('executes a suggested fix through the caller and records whether it passes', async () => {
    server.respond(() => ({ body: protocol.wire(normal) }));
    // Test double for the sandbox executor only: the pipeline supplies the real one.
    const executed: string[] = [];
    const passing = await judgeCase(make(), caseInput(), {
      verifyFix: async (sql) => {
        executed.push(sql);
        return { passes: sql.includes("status = 'shipped'"), deterministic_verdict: 'pass', deterministic_score: 1 };
      },
    });
    expect(executed).toEqual([ANSWER_MISSING_FILTER.suggested_sql]);
    expect(passing.suggested_fix).toMatchObject({ verified: true, passes: true, deterministic_verdict: 'pass' });

    const failing = await judgeCase(make(), caseInput(), {
      verifyFix: async () => ({ passes: false, deterministic_verdict: 'fail', detail: 'row_count_mismatch' }),
    });
    expect(failing.suggested_fix).toMatchObject({ verified: true, passes: false, detail: 'row_count_mismatch' });
    expect(failing.warnings.join(' ')).toContain('does not pass');

    const unverified = await judgeCase(make(), caseInput());
    expect(unverified.suggested_fix).toMatchObject({ verified: false, passes: null });
  });
});

describe('OpenAI-compatible servers without JSON mode', () => {
  it('drops response_format when the server rejects it, and keeps it off', async () => {
    const server = await startJudgeServer();
    try {
      server.respond((request) =>
        request.body.response_format
          ? { status: 400, body: { error: { message: 'Unrecognized request argument supplied: response_format' } } }
          : { body: PROTOCOLS[0]!.wire(normal) },
      );
      const p = provider(PROTOCOLS[0]!.config(server.url, { transport: FAST, apiKey: 'local-key' }));
      const first = await judgeCase(p, caseInput());
      expect(first.status).toBe('judged');
      expect(server.requests).toHaveLength(2);
      expect(server.requests[0]!.headers.authorization).toBe('Bearer local-key');
      expect(server.requests[1]!.body.response_format).toBeUndefined();
      await judgeCase(p, caseInput());
      expect(server.requests).toHaveLength(3);
      expect(server.requests[2]!.body.response_format).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it('reads an answer without usage as unreported usage', async () => {
    const server = await startJudgeServer();
    try {
      server.respond(() => ({
        body: { model: 'local', choices: [{ message: { role: 'assistant', content: normal } }] },
      }));
      const judgment = await judgeCase(provider(PROTOCOLS[0]!.config(server.url, { transport: FAST })), caseInput(), {
        prices: { inputPer1k: 1, outputPer1k: 1 },
      });
      expect(judgment.status).toBe('judged');
      expect(judgment.usage).toEqual({ input_tokens: 0, output_tokens: 0, usage_reported: false });
      expect(judgment.cost_estimate).toBeNull();
    } finally {
      await server.close();
    }
  });

  it('says so when the server does not speak the protocol', async () => {
    const server = await startJudgeServer();
    try {
      server.respond(() => ({ body: '<html>not an API</html>' }));
      const judgment = await judgeCase(provider(PROTOCOLS[0]!.config(server.url, { transport: FAST })), caseInput());
      expect(judgment.error?.code).toBe('judge.http_error');
      expect(judgment.error?.message).toContain('provider kind and the base URL');
    } finally {
      await server.close();
    }
  });
});
