/**
 * Judge a corpus run: bounded concurrency, and the per-run figures the
 * report needs (agreement matrix, review queue, tokens, latency, cost).
 */
import type { CancelSignal } from '../engine.ts';
import { verdictError } from '../errors.ts';
import type { CaseJudgment, JudgeOptions, SkippedReason, VerifyFix } from './judge-case.ts';
import { DEFAULT_JUDGE_THRESHOLD, judgeCase, skipReason } from './judge-case.ts';
import type { JudgeInput } from './prompt.ts';
import { PROMPT_VERSION } from './prompt.ts';
import type { JudgeProvider, ProviderKind } from './provider.ts';
import { createSemaphore } from './semaphore.ts';

/** Seed 001's evaluate_batch(max_parallel = 10). */
export const DEFAULT_JUDGE_CONCURRENCY = 10;

export interface JudgeBatchItem {
  input: JudgeInput;
  /** Per-case fix verification (it needs the case's fixture and reference). */
  verifyFix?: VerifyFix;
}

export interface JudgeBatchOptions extends Omit<JudgeOptions, 'verifyFix'> {
  /** Requests in flight at most. Default 4. */
  concurrency?: number;
  signal?: CancelSignal;
  /** Called as each case finishes (progress, incremental persistence). */
  onJudgment?: (index: number, judgment: CaseJudgment) => void;
}

/** Rows: the deterministic verdict; columns: the judge's advisory verdict. */
export interface AgreementMatrix {
  deterministic_pass: { ai_pass: number; ai_fail: number };
  deterministic_fail: { ai_pass: number; ai_fail: number };
}

export interface JudgeRunSummary {
  prompt_version: string;
  provider: ProviderKind | null;
  model: string | null;
  /** Model ids the server reported, sorted. */
  model_ids: string[];
  threshold: number;
  concurrency: number;
  cases: number;
  judged: number;
  skipped: Record<SkippedReason, number>;
  errors: number;
  cancelled: number;
  agreement_matrix: AgreementMatrix;
  /** Agreeing / judged; null when nothing was judged. */
  agreement_rate: number | null;
  /** Case ids (or indexes) where the judge disagrees: the app's review queue. */
  review_queue: string[];
  usage: {
    input_tokens: number;
    output_tokens: number;
    requests: number;
    http_attempts: number;
    usage_reported: boolean;
  };
  latency_ms: { total: number; mean: number | null; max: number };
  /** Null when prices are unknown. */
  cost_estimate: number | null;
  fixes: { suggested: number; verified: number; passing: number };
}

/** The run's figures from its judgments (pure: the app can call it on partial runs). */
export function summarizeJudgments(
  judgments: readonly CaseJudgment[],
  meta: { provider?: JudgeProvider | null; threshold?: number; concurrency?: number } = {},
): JudgeRunSummary {
  const matrix: AgreementMatrix = {
    deterministic_pass: { ai_pass: 0, ai_fail: 0 },
    deterministic_fail: { ai_pass: 0, ai_fail: 0 },
  };
  const skipped: Record<SkippedReason, number> = { above_threshold: 0, disabled_by_policy: 0, not_configured: 0 };
  const modelIds = new Set<string>();
  const reviewQueue: string[] = [];
  let judged = 0;
  let errors = 0;
  let cancelled = 0;
  let agreeing = 0;
  let cost: number | null = null;
  const usage = { input_tokens: 0, output_tokens: 0, requests: 0, http_attempts: 0, usage_reported: false };
  const latencies: number[] = [];
  const fixes = { suggested: 0, verified: 0, passing: 0 };

  judgments.forEach((j, index) => {
    if (j.status === 'skipped' && j.skipped_reason) skipped[j.skipped_reason] += 1;
    if (j.status === 'error') errors += 1;
    if (j.status === 'cancelled') cancelled += 1;
    if (j.model_id) modelIds.add(j.model_id);
    usage.input_tokens += j.usage.input_tokens;
    usage.output_tokens += j.usage.output_tokens;
    usage.requests += j.requests;
    usage.http_attempts += j.http_attempts;
    usage.usage_reported ||= j.usage.usage_reported;
    if (j.requests > 0) latencies.push(j.latency_ms);
    if (j.cost_estimate !== null) cost = (cost ?? 0) + j.cost_estimate;
    if (j.suggested_fix) {
      fixes.suggested += 1;
      if (j.suggested_fix.verified) fixes.verified += 1;
      if (j.suggested_fix.passes) fixes.passing += 1;
    }
    if (j.status !== 'judged' || !j.ai_advisory_verdict) return;
    judged += 1;
    const row = j.deterministic_verdict === 'pass' ? matrix.deterministic_pass : matrix.deterministic_fail;
    if (j.ai_advisory_verdict === 'pass') row.ai_pass += 1;
    else row.ai_fail += 1;
    if (j.verdict_consistency_flag) agreeing += 1;
    else reviewQueue.push(j.case_id ?? `#${index}`);
  });

  const total = latencies.reduce((sum, ms) => sum + ms, 0);
  return {
    prompt_version: PROMPT_VERSION,
    provider: meta.provider?.kind ?? judgments.find((j) => j.provider)?.provider ?? null,
    model: meta.provider?.model ?? judgments.find((j) => j.model)?.model ?? null,
    model_ids: [...modelIds].sort(),
    threshold: meta.threshold ?? judgments[0]?.threshold ?? DEFAULT_JUDGE_THRESHOLD,
    concurrency: meta.concurrency ?? DEFAULT_JUDGE_CONCURRENCY,
    cases: judgments.length,
    judged,
    skipped,
    errors,
    cancelled,
    agreement_matrix: matrix,
    agreement_rate: judged ? agreeing / judged : null,
    review_queue: reviewQueue,
    usage,
    latency_ms: {
      total,
      mean: latencies.length ? total / latencies.length : null,
      max: latencies.reduce((m, ms) => Math.max(m, ms), 0),
    },
    cost_estimate: cost,
    fixes,
  };
}

export interface JudgeRun {
  judgments: CaseJudgment[];
  summary: JudgeRunSummary;
}

/**
 * Judge every item, at most `concurrency` requests at once. Cases the
 * threshold or the policy skip never wait for a slot. A cancel stops waiting
 * cases and aborts those in flight; each is recorded as cancelled.
 */
export async function judgeBatch(
  provider: JudgeProvider | null,
  items: readonly JudgeBatchItem[],
  options: JudgeBatchOptions = {},
): Promise<JudgeRun> {
  const concurrency = options.concurrency ?? DEFAULT_JUDGE_CONCURRENCY;
  const semaphore = createSemaphore(concurrency);
  const { signal, onJudgment, ...caseOptions } = options;

  const judgments = await Promise.all(
    items.map(async (item, index) => {
      const judgeOptions: JudgeOptions = { ...caseOptions, verifyFix: item.verifyFix };
      let judgment: CaseJudgment;
      if (skipReason(item.input, provider, judgeOptions)) {
        judgment = await judgeCase(provider, item.input, judgeOptions, signal);
      } else {
        const release = await semaphore.acquire(signal);
        if (!release) {
          judgment = await judgeCase(provider, item.input, judgeOptions, signal);
          judgment.status = 'cancelled';
          judgment.error ??= verdictError('run.cancelled', 'The judge was cancelled before it ran.');
        } else {
          try {
            judgment = await judgeCase(provider, item.input, judgeOptions, signal);
          } finally {
            release();
          }
        }
      }
      onJudgment?.(index, judgment);
      return judgment;
    }),
  );
  return { judgments, summary: summarizeJudgments(judgments, { provider, threshold: options.threshold, concurrency }) };
}
