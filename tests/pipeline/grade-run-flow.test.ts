/**
 * How a corpus run flows, on the real engines and a local judge server:
 * judge requests run in parallel with grading (bounded) and never change an
 * outcome; cases at or above the threshold make no request; the run report
 * carries the judge's agreement matrix and review queue; review mode pauses
 * at a flagged case until the reviewer answers; a resumed run keeps the cases
 * graded before the interruption and does not execute them again.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadCorpus } from '../../src/core/corpus/load-corpus.ts';
import { loadRun } from '../../src/core/corpus/load-run.ts';
import type { LoadedCorpus } from '../../src/core/corpus/types.ts';
import type { LoadedRun } from '../../src/core/corpus/load-run.ts';
import type { Engine } from '../../src/core/engine.ts';
import { ok } from '../../src/core/errors.ts';
import { createProvider, standardRuntime, type StandardGlobals } from '../../src/core/judge/index.ts';
import { gradeRun, type CaseReport, type GradeRunInput, type RunReport } from '../../src/core/run/grade-run.ts';
import { EnginePool } from '../../src/cli/engine-pool.ts';
import { repoRoot } from '../helpers/paths.ts';
import { ANSWER_DISAGREES_PASS, ANSWER_MISSING_FILTER, PROTOCOLS } from '../judge/recorded.ts';
import { startJudgeServer, type JudgeServer } from '../judge/server.ts';

// This file tests grading, not fault recovery (tests/engines/sandbox.test.ts does): no warm spare,
// which is a second engine start and fixture load per fixture.
const NO_SPARE = { warmSpare: false };

// Two correct answers, four wrong ones that execute (judged), one that does not parse (never judged), one correct monthly case.
const IDS = [
  'retail-customer-count',
  'retail-orders-by-channel',
  'retail-country-count',
  'retail-net-revenue-2024',
  'retail-uncategorised-products',
  'retail-top-customers-2024',
  'monthly-net-revenue-2025',
  'monthly-orders-by-month',
];
const NET_REVENUE_2024 = 'What was net revenue in calendar year 2024?';
const ORDERS_BY_CHANNEL = 'How many orders came through each sales channel?';

const openai = PROTOCOLS.find((p) => p.kind === 'openai')!;
let corpus: LoadedCorpus;
let run: LoadedRun;
let pool: EnginePool;
let server: JudgeServer;
let plain: RunReport;

/** The real pooled engine, counting the queries it runs (to show a resume runs none for kept cases). */
function counting(counter: { n: number }): GradeRunInput['engineFor'] {
  return async (name) => {
    const engine = await pool.engineFor(name);
    if (!engine.ok) return engine;
    const e: Engine = engine.value;
    return ok({
      ...e,
      name: e.name,
      version: () => e.version(),
      load: (f) => e.load(f),
      contentDigest: () => e.contentDigest(),
      explain: (sql) => e.explain(sql),
      close: () => e.close(),
      execute: (sql, o) => (counter.n++, e.execute(sql, o)),
    });
  };
}

// Answers that agree with the deterministic verdict the prompt states (no fix to verify, confident, not ambiguous).
const PASS = { ...ANSWER_DISAGREES_PASS, ambiguous_case: false, confidence: 0.9 };
const FAIL = { ...ANSWER_MISSING_FILTER, suggested_sql: null };
const agreeing = (body: unknown) => (JSON.stringify(body).includes('deterministic_verdict: pass') ? PASS : FAIL);
/** The cases the judge is asked about: executed, and scoring below the threshold. */
const asked = (threshold = 0.92) =>
  plain.cases.filter((c) => c.report && !c.report.blocked_reason && c.report.overall_score < threshold);

const outcomes = (r: RunReport) => r.cases.map((c) => [c.id, c.outcome, c.reason_code]);

beforeAll(async () => {
  const doc = parse(readFileSync(path.join(repoRoot, 'fixtures/corpora/execution_goldens.yaml'), 'utf8')) as {
    cases: { id: string }[];
    case_count: number;
  };
  doc.cases = IDS.map((id) => doc.cases.find((c) => c.id === id)!);
  doc.case_count = IDS.length;
  const loaded = await loadCorpus(new TextEncoder().encode(stringify(doc)), { file: 'subset.yaml' });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  corpus = loaded.loaded;
  const demo = JSON.parse(readFileSync(path.join(repoRoot, 'src/ui/assets/demo-flawed.run.json'), 'utf8')) as {
    run: object;
    records: { id: string }[];
  };
  const runFile = { run: demo.run, records: demo.records.filter((r) => IDS.includes(r.id)) };
  const loadedRun = await loadRun(new TextEncoder().encode(JSON.stringify(runFile)), {
    file: 'subset.run.json',
    caseIds: IDS,
  });
  if (!loadedRun.ok) throw new Error(JSON.stringify(loadedRun.problems));
  run = loadedRun.run;
  pool = new EnginePool('duckdb', new Map(), repoRoot, NO_SPARE);
  server = await startJudgeServer();
  const graded = await gradeRun({ corpus, run, engineFor: pool.engineFor });
  if (!graded.ok) throw new Error(graded.error.message);
  plain = graded.value;
}, 240_000);

afterAll(async () => {
  await pool?.close();
  await server?.close();
});

function judge(threshold?: number) {
  const provider = createProvider(openai.config(server.url), standardRuntime(globalThis as unknown as StandardGlobals));
  if (!provider.ok) throw new Error(provider.error.message);
  return { provider: provider.value, options: threshold === undefined ? {} : { threshold } };
}

describe('a corpus run with the AI judge', () => {
  it('judges only the cases below the threshold, in parallel up to the bound, and never changes an outcome', async () => {
    // The judge disagrees with one case (says PASS on a failing case) and agrees elsewhere; answers take 300 ms.
    // The judge disagrees on one failing case (says PASS) and agrees elsewhere; answers take 300 ms.
    server.respond((request) => {
      const answer = JSON.stringify(request.body).includes(NET_REVENUE_2024) ? PASS : agreeing(request.body);
      return { delayMs: 300, body: openai.wire(JSON.stringify(answer)) };
    });
    const before = server.requests.length;
    const graded = await gradeRun({
      corpus,
      run,
      engineFor: pool.engineFor,
      config: { enable_ai_judge: true },
      judge: judge(),
      judgeConcurrency: 2,
      skipSelfCheck: true,
    });
    if (!graded.ok) throw new Error(graded.error.message);
    const r = graded.value;
    expect(outcomes(r)).toEqual(outcomes(plain));
    // Only cases below 0.92 are asked: never the unparsable one (blocked), never a high-scoring pass.
    const expected = asked();
    const passes = expected.filter((c) => c.report!.deterministic_verdict === 'pass').length;
    const fails = expected.length - passes;
    expect(fails).toBe(4);
    expect(server.requests.length - before).toBe(expected.length);
    expect(server.maxInFlight).toBeLessThanOrEqual(2);
    expect(r.judge_summary).toMatchObject({
      judged: expected.length,
      concurrency: 2,
      threshold: 0.92,
      agreement_matrix: {
        deterministic_pass: { ai_pass: passes, ai_fail: 0 },
        deterministic_fail: { ai_pass: 1, ai_fail: fails - 1 },
      },
      review_queue: ['retail-net-revenue-2024'],
      usage: {
        input_tokens: expected.length * openai.usage.input,
        output_tokens: expected.length * openai.usage.output,
        requests: expected.length,
      },
    });
    expect(r.judge_summary!.skipped.above_threshold).toBe(
      r.cases.filter((c) => c.report?.judge?.skipped_reason === 'above_threshold').length,
    );
    const disputed = r.cases.find((c) => c.id === 'retail-net-revenue-2024')!;
    expect(disputed).toMatchObject({
      outcome: 'wrong',
      report: { deterministic_verdict: 'fail', ai_advisory_verdict: 'pass', verdict_consistency_flag: false },
    });
    expect(disputed.review_flags.map((f) => f.code)).toContain('judge_disagrees');
    // Cases come back in corpus order whatever order the judge answered in.
    expect(r.cases.map((c) => c.id)).toEqual(IDS);
  }, 240_000);

  it('grades the next case while judge requests are in flight', async () => {
    server.respond((request) => ({ delayMs: 1500, body: openai.wire(JSON.stringify(agreeing(request.body))) }));
    const graded = await gradeRun({
      corpus,
      run,
      engineFor: pool.engineFor,
      config: { enable_ai_judge: true },
      judge: judge(),
      judgeConcurrency: 4,
      skipSelfCheck: true,
    });
    if (!graded.ok) throw new Error(graded.error.message);
    expect(server.maxInFlight).toBeGreaterThan(1);
    expect(outcomes(graded.value)).toEqual(outcomes(plain));
  }, 240_000);
});

describe('review mode', () => {
  it('pauses after a flagged case until the reviewer answers', async () => {
    server.respond((request) => {
      const ambiguous = JSON.stringify(request.body).includes(ORDERS_BY_CHANNEL);
      return { body: openai.wire(JSON.stringify({ ...agreeing(request.body), ambiguous_case: ambiguous })) };
    });
    const started: string[] = [];
    let release: () => void = () => undefined;
    let pausedAt: string | null = null;
    let startedWhenPaused = -1;
    const pending = gradeRun({
      corpus,
      run,
      engineFor: pool.engineFor,
      config: { enable_ai_judge: true },
      judge: judge(),
      judgeConcurrency: 1,
      skipSelfCheck: true,
      onProgress: (p) => {
        if (p.step === 'parse') started.push(p.id);
      },
      onReview: (c) =>
        new Promise<void>((resolve) => {
          pausedAt = c.id;
          startedWhenPaused = started.length;
          release = resolve;
        }),
    });
    await expect.poll(() => pausedAt, { timeout: 60_000 }).toBe('retail-orders-by-channel');
    await new Promise((r) => setTimeout(r, 1500));
    // Still paused: at most the case already under way when the flag arrived has started.
    expect(started.length).toBeLessThanOrEqual(startedWhenPaused + 1);
    release();
    const graded = await pending;
    if (!graded.ok) throw new Error(graded.error.message);
    expect(started.length).toBe(IDS.length);
    expect(
      graded.value.cases.find((c) => c.id === 'retail-orders-by-channel')!.review_flags.map((f) => f.code),
    ).toEqual(['ambiguous_case']);
    expect(outcomes(graded.value)).toEqual(outcomes(plain));
  }, 240_000);

  // With the self-check alongside, a case also waits for its reference's check: a flag can arrive during that wait.
  it.each([
    ['without', true],
    ['with', false],
  ])(
    'reviews flagged cases one at a time, and no case starts while one is open (%s the self-check)',
    async (_, skipSelfCheck) => {
      // Every judged case is ambiguous; with 4 requests in flight several flags arrive together.
      server.respond((request) => ({
        delayMs: 200,
        body: openai.wire(JSON.stringify({ ...agreeing(request.body), ambiguous_case: true })),
      }));
      let open = 0;
      let maxOpen = 0;
      const startedWhileOpen: string[] = [];
      const reviewed: string[] = [];
      const graded = await gradeRun({
        corpus,
        run,
        engineFor: pool.engineFor,
        config: { enable_ai_judge: true },
        judge: judge(),
        judgeConcurrency: 4,
        skipSelfCheck,
        onProgress: (p) => {
          if (p.step === 'parse' && open > 0) startedWhileOpen.push(p.id);
        },
        onReview: async (c) => {
          open++;
          maxOpen = Math.max(maxOpen, open);
          reviewed.push(c.id);
          await new Promise((r) => setTimeout(r, 100));
          open--;
        },
      });
      if (!graded.ok) throw new Error(graded.error.message);
      expect(maxOpen).toBe(1);
      expect(startedWhileOpen).toEqual([]);
      expect([...reviewed].sort()).toEqual(
        asked()
          .map((c) => c.id)
          .sort(),
      );
    },
    240_000,
  );

  it('a cancel ends a pause without an answer', async () => {
    server.respond((request) => ({
      body: openai.wire(JSON.stringify({ ...agreeing(request.body), ambiguous_case: true })),
    }));
    const controller = new AbortController();
    const graded = await gradeRun({
      corpus,
      run,
      engineFor: pool.engineFor,
      config: { enable_ai_judge: true },
      judge: judge(),
      skipSelfCheck: true,
      signal: controller.signal,
      onReview: () => {
        controller.abort();
        return new Promise<void>(() => undefined);
      },
    });
    expect(graded.ok).toBe(false);
    if (!graded.ok) expect(graded.error.code).toBe('run.cancelled');
  }, 240_000);
});

describe('resuming an interrupted run', () => {
  it('keeps the cases graded before the interruption and grades only the rest', async () => {
    const controller = new AbortController();
    const first: CaseReport[] = [];
    let digests: Record<string, string> = {};
    const cut = await gradeRun({
      corpus,
      run,
      engineFor: pool.engineFor,
      skipSelfCheck: true,
      signal: controller.signal,
      onStart: (info) => (digests = info.fixtureDigests),
      onCase: (c) => {
        first.push(c);
        if (first.length === 5) controller.abort();
      },
    });
    expect(cut.ok).toBe(false);
    expect(first.map((c) => c.id)).toEqual(IDS.slice(0, 5));

    const queries = { n: 0 };
    const resumed = await gradeRun({
      corpus,
      run,
      engineFor: counting(queries),
      skipSelfCheck: true,
      resume: { cases: first, fixtureDigests: digests },
    });
    if (!resumed.ok) throw new Error(resumed.error.message);
    expect(resumed.value.run_metadata.resumed_cases).toBe(5);
    expect(outcomes(resumed.value)).toEqual(outcomes(plain));
    expect(resumed.value.summary).toEqual({ ...plain.summary });
    // The kept cases are the same objects, not regraded.
    expect(resumed.value.cases.slice(0, 5)).toEqual(first);

    const all = { n: 0 };
    const fresh = await gradeRun({ corpus, run, engineFor: counting(all), skipSelfCheck: true });
    if (!fresh.ok) throw new Error(fresh.error.message);
    expect(queries.n).toBeLessThan(all.n);
  }, 240_000);

  it('grades everything again when a fixture changed since, or when the run has another answer', async () => {
    const kept = plain.cases.slice(0, 3);
    const changed = await gradeRun({
      corpus,
      run,
      engineFor: pool.engineFor,
      skipSelfCheck: true,
      resume: { cases: kept, fixtureDigests: { retail: 'sha256:other', retail_monthly: 'sha256:other' } },
    });
    if (!changed.ok) throw new Error(changed.error.message);
    expect(changed.value.run_metadata.resumed_cases).toBe(0);
    const tampered = kept.map((c) => ({ ...c, query: `${c.query} -- edited` }));
    const digests = Object.fromEntries(plain.fixtures.map((f) => [f.name, f.content_digest_before]));
    const other = await gradeRun({
      corpus,
      run,
      engineFor: pool.engineFor,
      skipSelfCheck: true,
      resume: { cases: tampered, fixtureDigests: digests },
    });
    if (!other.ok) throw new Error(other.error.message);
    expect(other.value.run_metadata.resumed_cases).toBe(0);
    expect(outcomes(other.value)).toEqual(outcomes(plain));
  }, 240_000);
});
