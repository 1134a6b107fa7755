/**
 * Judge one case: the two-layer skip, the grounded prompt, the validated
 * answer with one repair retry, the advisory mapping and its consistency
 * flag, and the verification of a suggested fix. The deterministic verdict
 * is echoed unchanged: the judge annotates, it never decides.
 */
import type { CancelSignal } from '../engine.ts';
import type { VerdictError } from '../errors.ts';
import { messageOf, verdictError } from '../errors.ts';
import type { JudgeAnswer, OverallVerdict } from './answer.ts';
import { parseJudgeAnswer } from './answer.ts';
import type { PromptCaps, JudgeInput, JudgePrompt } from './prompt.ts';
import { buildJudgePrompt, PROMPT_VERSION, repairMessage } from './prompt.ts';
import type { ChatMessage, Completion, JudgeProvider, ProviderKind, TokenUsage } from './provider.ts';

export const DEFAULT_JUDGE_THRESHOLD = 0.92;

export type Verdict = 'pass' | 'fail';
/** The deterministic side also knows `undecided` (a result search ran out of budget); the judge never answers it. */
export type DeterministicVerdict = Verdict | 'undecided';

/** `disabled`: the judge never runs (policy for production gates: SPEC 6, seed "AI Judge Guardrails"). */
export type JudgePolicy = 'advisory' | 'disabled';

/** Prices per 1 000 tokens, in the caller's currency; 0 (the default) means unknown. */
export interface JudgePrices {
  inputPer1k: number;
  outputPer1k: number;
}

/** What the caller's sandbox says about a suggested SQL, graded against the reference like any candidate. */
export interface FixVerification {
  passes: boolean;
  deterministic_verdict?: Verdict;
  deterministic_score?: number;
  /** One line for the report: why it fails, or what was checked. */
  detail?: string;
  error?: VerdictError;
}

/** The hook the pipeline supplies: execute `sql` in the sandbox and grade it against the reference. */
export type VerifyFix = (sql: string, signal?: CancelSignal) => Promise<FixVerification>;

export interface JudgeOptions {
  /** Skip the judge when deterministic_score ≥ threshold. Default 0.92. */
  threshold?: number;
  /** Default `advisory`. */
  policy?: JudgePolicy;
  prices?: JudgePrices;
  caps?: PromptCaps;
  verifyFix?: VerifyFix;
}

export interface SuggestedFix {
  sql: string;
  /** True when the caller's sandbox executed and graded it. */
  verified: boolean;
  /** Null when not verified: such a fix must not be shown as a fix. */
  passes: boolean | null;
  deterministic_verdict: Verdict | null;
  deterministic_score: number | null;
  detail: string | null;
  error: VerdictError | null;
}

export type JudgmentStatus = 'judged' | 'skipped' | 'error' | 'cancelled';
export type SkippedReason = 'above_threshold' | 'disabled_by_policy' | 'not_configured';

/** One case's judge record, as it goes into the report (seed field names). */
export interface CaseJudgment {
  case_id: string | null;
  status: JudgmentStatus;
  skipped_reason: SkippedReason | null;
  /** Echoed unchanged from the input: authoritative. */
  deterministic_verdict: DeterministicVerdict;
  deterministic_score: number;
  threshold: number;
  /** PASS → pass; PARTIAL and FAIL → fail. Null when the judge did not answer. */
  ai_advisory_verdict: Verdict | null;
  /** True when both verdicts agree; false raises a consistency warning. Null when not judged. */
  verdict_consistency_flag: boolean | null;
  warnings: string[];
  judgment: JudgeAnswer | null;
  error: VerdictError | null;
  repair_attempted: boolean;
  prompt_version: string;
  provider: ProviderKind | null;
  /** The model asked for. */
  model: string | null;
  /** The model the server says answered. */
  model_id: string | null;
  usage: TokenUsage;
  /** Completion calls made (1, or 2 with the repair retry). */
  requests: number;
  /** HTTP attempts, retries included. */
  http_attempts: number;
  latency_ms: number;
  /** Null when prices are unknown (0) or the server reported no usage. */
  cost_estimate: number | null;
  suggested_fix: SuggestedFix | null;
}

/** The advisory mapping: only PASS agrees with a deterministic pass; PARTIAL is not a pass. */
export function advisoryVerdict(overall: OverallVerdict): Verdict {
  return overall === 'PASS' ? 'pass' : 'fail';
}

export function consistencyWarning(deterministic: DeterministicVerdict, advisory: Verdict): string {
  return `The AI judge's advisory verdict (${advisory}) disagrees with the deterministic verdict (${deterministic}); the deterministic verdict stands. Review this case.`;
}

export function costEstimate(usage: TokenUsage, prices: JudgePrices | undefined): number | null {
  if (!prices || (prices.inputPer1k <= 0 && prices.outputPer1k <= 0) || !usage.usage_reported) return null;
  return (usage.input_tokens / 1000) * prices.inputPer1k + (usage.output_tokens / 1000) * prices.outputPer1k;
}

const REPAIR_ECHO_CAP = 4000;

function base(input: JudgeInput, provider: JudgeProvider | null, threshold: number): CaseJudgment {
  return {
    case_id: input.caseId ?? null,
    status: 'skipped',
    skipped_reason: null,
    deterministic_verdict: input.evidence.deterministic_verdict,
    deterministic_score: input.evidence.deterministic_score,
    threshold,
    ai_advisory_verdict: null,
    verdict_consistency_flag: null,
    warnings: [],
    judgment: null,
    error: null,
    repair_attempted: false,
    prompt_version: PROMPT_VERSION,
    provider: provider?.kind ?? null,
    model: provider?.model ?? null,
    model_id: null,
    usage: { input_tokens: 0, output_tokens: 0, usage_reported: false },
    requests: 0,
    http_attempts: 0,
    latency_ms: 0,
    cost_estimate: null,
    suggested_fix: null,
  };
}

/** Why the judge would not run for this case, or null when it would. */
export function skipReason(
  input: JudgeInput,
  provider: JudgeProvider | null,
  options: JudgeOptions = {},
): SkippedReason | null {
  if (options.policy === 'disabled') return 'disabled_by_policy';
  if (!provider) return 'not_configured';
  return input.evidence.deterministic_score >= (options.threshold ?? DEFAULT_JUDGE_THRESHOLD)
    ? 'above_threshold'
    : null;
}

async function verify(
  sql: string,
  verifyFix: VerifyFix | undefined,
  signal: CancelSignal | undefined,
): Promise<SuggestedFix> {
  const fix: SuggestedFix = {
    sql,
    verified: false,
    passes: null,
    deterministic_verdict: null,
    deterministic_score: null,
    detail: null,
    error: null,
  };
  if (!verifyFix) return fix;
  try {
    const result = await verifyFix(sql, signal);
    return {
      ...fix,
      verified: true,
      passes: result.passes === true,
      deterministic_verdict: result.deterministic_verdict ?? null,
      deterministic_score: result.deterministic_score ?? null,
      detail: result.detail ?? null,
      error: result.error ?? null,
    };
  } catch (thrown) {
    return {
      ...fix,
      verified: true,
      passes: false,
      error: verdictError('execution.error', `The suggested SQL could not be verified: ${messageOf(thrown)}`),
    };
  }
}

/** Add one completion's HTTP attempts, latency, answering model and token usage to the record. */
function addCompletion(record: CaseJudgment, c: Completion): void {
  record.http_attempts += c.attempts;
  record.latency_ms += c.latency_ms;
  record.model_id = c.model_id;
  record.usage = {
    input_tokens: record.usage.input_tokens + c.usage.input_tokens,
    output_tokens: record.usage.output_tokens + c.usage.output_tokens,
    usage_reported: record.usage.usage_reported || c.usage.usage_reported,
  };
}

/**
 * Ask for the judgment, with one repair round when the answer does not fit
 * the schema. A failure is recorded in `record`; null when no valid answer came.
 */
async function requestAnswer(
  provider: JudgeProvider,
  prompt: JudgePrompt,
  record: CaseJudgment,
  signal: CancelSignal | undefined,
): Promise<JudgeAnswer | null> {
  const messages: ChatMessage[] = [{ role: 'user', content: prompt.user }];
  let answer: JudgeAnswer | null = null;

  for (let round = 0; round < 2 && !answer; round++) {
    const completion = await provider.complete({ system: prompt.system, messages }, signal).catch(
      (thrown: unknown) =>
        ({
          ok: false,
          error: verdictError('judge.http_error', `The judge provider failed: ${messageOf(thrown)}`),
        }) as const,
    );
    record.requests += 1;
    if (!completion.ok) {
      record.status = completion.error.code === 'run.cancelled' ? 'cancelled' : 'error';
      record.error = completion.error;
      break;
    }
    const c = completion.value;
    addCompletion(record, c);
    const parsed = parseJudgeAnswer(c.text);
    if (parsed.ok) {
      answer = parsed.value;
    } else if (round === 0) {
      record.repair_attempted = true;
      messages.push(
        { role: 'assistant', content: c.text.slice(0, REPAIR_ECHO_CAP) },
        { role: 'user', content: repairMessage(parsed.errors) },
      );
    } else {
      record.status = 'error';
      record.error = verdictError(
        'judge.invalid_answer',
        `The judge's answer did not match the judgment schema after one repair attempt: ${parsed.errors.slice(0, 3).join('; ')}.`,
        {
          raw: parsed.errors.join('\n'),
        },
      );
    }
  }
  return answer;
}

/** Record a valid answer: the advisory mapping and its consistency flag. */
function recordAnswer(record: CaseJudgment, answer: JudgeAnswer): void {
  record.status = 'judged';
  record.judgment = answer;
  record.ai_advisory_verdict = advisoryVerdict(answer.overall_verdict);
  record.verdict_consistency_flag = record.ai_advisory_verdict === record.deterministic_verdict;
  if (!record.verdict_consistency_flag)
    record.warnings.push(consistencyWarning(record.deterministic_verdict, record.ai_advisory_verdict));
}

/** Run the suggested SQL through the caller's sandbox; one that does not pass is flagged as no fix. */
async function verifySuggestedFix(
  record: CaseJudgment,
  sql: string,
  verifyFix: VerifyFix | undefined,
  signal: CancelSignal | undefined,
): Promise<void> {
  record.suggested_fix = await verify(sql, verifyFix, signal);
  if (record.suggested_fix.verified && !record.suggested_fix.passes) {
    record.warnings.push('The suggested SQL was executed and does not pass against the reference; it is not a fix.');
  }
}

/**
 * Judge one case. Never throws for a provider or answer problem: those are
 * recorded in `error`. With no provider (`null`) the case is skipped as
 * `not_configured`.
 */
export async function judgeCase(
  provider: JudgeProvider | null,
  input: JudgeInput,
  options: JudgeOptions = {},
  signal?: CancelSignal,
): Promise<CaseJudgment> {
  const threshold = options.threshold ?? DEFAULT_JUDGE_THRESHOLD;
  const record = base(input, provider, threshold);
  const skipped = skipReason(input, provider, options);
  if (skipped || !provider) {
    record.skipped_reason = skipped ?? 'not_configured';
    return record;
  }
  if (signal?.aborted) {
    record.status = 'cancelled';
    record.error = verdictError('run.cancelled', 'The judge was cancelled before it ran.');
    return record;
  }

  const answer = await requestAnswer(provider, buildJudgePrompt(input, options.caps), record, signal);
  record.cost_estimate = costEstimate(record.usage, options.prices);
  if (!answer) return record;

  recordAnswer(record, answer);
  if (answer.suggested_sql) await verifySuggestedFix(record, answer.suggested_sql, options.verifyFix, signal);
  return record;
}
