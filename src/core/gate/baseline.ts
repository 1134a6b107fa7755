/**
 * Baselines: the recorded floor a suite is judged against, per suite, per
 * path, per model. Created only by an explicit call (`sql-verdict baseline
 * record`); nothing in the gate writes one.
 */
import { fail, ok, type Outcome } from '../errors.ts';
import { ARMS, type Arm } from './outcome.ts';
import { DEFAULT_GATE_POLICY, type GatePolicy } from './policy.ts';
import type { RunSummary } from './summary.ts';

export const BASELINE_VERSION = 1;

export interface BaselineFigures {
  answer_accuracy: { correct: number; total: number };
  refusal_recall: { declined: number; total: number };
  over_refusal: { declined: number; total: number };
  reliability: { c: number; sum: number; mean: number | null };
}

export interface Baseline {
  baseline_version: number;
  suite: string;
  path: string | null;
  model: string;
  /** When the baseline was recorded (ISO 8601), given by the caller: the core has no clock. */
  recorded_at: string;
  corpus: { name: string; version: string | number | null; size: number; sha256: string };
  case_ids: string[];
  /** Arm and stratum of every case, so a later digest change can say which cases moved. */
  cases: { id: string; arm: Arm | null; stratum: string | null }[];
  figures: BaselineFigures;
  policy: GatePolicy;
  /** Where the figures came from. */
  source: { agent: string | null; created_at: string | null };
}

export interface RecordBaselineOptions {
  /** Defaults to the corpus name. */
  suite?: string;
  /** Must equal the run's path when given. */
  path?: string | null;
  /** Must equal the run's model when given. */
  model?: string;
  date: string;
  policy?: Partial<GatePolicy>;
}

function nonEmpty(s: unknown): s is string {
  return typeof s === 'string' && s.trim() !== '';
}

/** Record a baseline from a run summary. The run must name its model. */
export function recordBaseline(summary: RunSummary, options: RecordBaselineOptions): Outcome<Baseline> {
  const model = summary.run.model;
  if (!nonEmpty(model))
    return fail('input.invalid', 'The run has no model identity; a baseline is recorded per model.', {
      location: 'run.model',
    });
  if (options.model !== undefined && options.model !== model) {
    return fail(
      'input.invalid',
      `The run was made with model ${JSON.stringify(model)}, not ${JSON.stringify(options.model)}.`,
      { location: 'model' },
    );
  }
  if (options.path !== undefined && options.path !== summary.run.path) {
    return fail(
      'input.invalid',
      `The run was made on path ${JSON.stringify(summary.run.path)}, not ${JSON.stringify(options.path)}.`,
      { location: 'path' },
    );
  }
  if (!nonEmpty(options.date))
    return fail('input.invalid', 'A baseline needs the date it was recorded.', { location: 'date' });
  const policy: GatePolicy = {
    ...DEFAULT_GATE_POLICY,
    over_refusal_ceiling: { ...DEFAULT_GATE_POLICY.over_refusal_ceiling },
    ...options.policy,
  };
  const policyError = checkPolicy(policy);
  if (policyError) return fail('input.invalid', policyError, { location: 'policy' });
  const s = summary;
  return ok({
    baseline_version: BASELINE_VERSION,
    suite: options.suite ?? s.corpus.name,
    path: s.run.path,
    model,
    recorded_at: options.date,
    corpus: { ...s.corpus },
    case_ids: s.cases.map((k) => k.id),
    cases: s.cases.map((k) => ({ id: k.id, arm: k.arm ?? null, stratum: k.stratum ?? null })),
    figures: {
      answer_accuracy: { correct: s.answer_accuracy.correct, total: s.answer_accuracy.total },
      refusal_recall: { declined: s.refusal_recall.declined, total: s.refusal_recall.total },
      over_refusal: { declined: s.over_refusal.declined, total: s.over_refusal.total },
      reliability: { c: s.reliability.c, sum: s.reliability.sum, mean: s.reliability.mean },
    },
    policy,
    source: { agent: s.run.agent, created_at: s.run.created_at },
  });
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function isFraction(v: unknown, a: string, b: string): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return isCount(o[a]) && isCount(o[b]) && (o[a] as number) <= (o[b] as number);
}

function checkPolicy(p: GatePolicy): string | null {
  const finite = (x: unknown, lo: number, hi: number) =>
    typeof x === 'number' && Number.isFinite(x) && x >= lo && x <= hi;
  if (!finite(p.accuracy_tolerance_points, 0, 100))
    return 'policy.accuracy_tolerance_points must be a number of percentage points between 0 and 100.';
  if (!finite(p.recall_absolute_floor, 0, 1)) return 'policy.recall_absolute_floor must be a rate between 0 and 1.';
  if (!finite(p.recall_tolerance, 0, 1)) return 'policy.recall_tolerance must be a rate between 0 and 1.';
  if (!isFraction(p.over_refusal_ceiling, 'count', 'of') || p.over_refusal_ceiling.of === 0) {
    return 'policy.over_refusal_ceiling must be {count, of} whole cases with 0 ≤ count ≤ of and of > 0.';
  }
  if (p.digest_mismatch !== 'warn' && p.digest_mismatch !== 'block')
    return 'policy.digest_mismatch must be "warn" or "block".';
  return null;
}

/**
 * A hand-edited baseline whose parts disagree: `cases` listing other ids than `case_ids`, or a figure counting
 * more cases than its arm holds (answer accuracy and over-refusal count must-answer and unarmed cases, refusal
 * recall must-refuse ones). The gate would otherwise compare against figures no run of this corpus can give.
 */
function figuresProblem(
  caseIds: string[],
  cases: Baseline['cases'],
  figures: BaselineFigures,
): { message: string; field: string } | null {
  if (cases.length > 0) {
    const at = cases.findIndex((k, i) => k.id !== caseIds[i]);
    if (cases.length !== caseIds.length || at >= 0)
      return {
        message:
          at >= 0
            ? `cases[${at}] is ${JSON.stringify(cases[at]!.id)} but case_ids[${at}] is ${JSON.stringify(caseIds[at] ?? null)}: both list the corpus's cases in one order.`
            : `cases lists ${cases.length} cases but case_ids ${caseIds.length}.`,
        field: 'cases',
      };
  }
  // Without arms (every arm null) a case may be of either: only the corpus size bounds the figures.
  const armed = cases.some((k) => k.arm !== null);
  const count = (arm: Arm | null) => (armed ? cases.filter((k) => k.arm === arm).length : caseIds.length);
  const answerable = armed ? count('must_answer') + count(null) : caseIds.length;
  const bounds: [string, number, number, string][] = [
    ['answer_accuracy', figures.answer_accuracy.total, answerable, 'must-answer and unarmed cases'],
    ['over_refusal', figures.over_refusal.total, armed ? count('must_answer') : answerable, 'must-answer cases'],
    ['refusal_recall', figures.refusal_recall.total, count('must_refuse'), 'must-refuse cases'],
  ];
  for (const [name, total, most, what] of bounds)
    if (total > most)
      return {
        message: `figures.${name}.total is ${total}, but the baseline has ${most} ${armed ? what : 'cases'}.`,
        field: `figures.${name}`,
      };
  return null;
}

/** Validate a baseline read from a file. Anything malformed is bad input (exit 2), never a regression. */
export function parseBaseline(value: unknown): Outcome<Baseline> {
  const bad = (message: string, location?: string) =>
    fail<Baseline>('input.invalid', `Not a valid baseline: ${message}`, location ? { location } : {});
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return bad('expected a JSON object.');
  const b = value as Record<string, unknown>;
  if (b.baseline_version !== BASELINE_VERSION)
    return bad(`baseline_version must be ${BASELINE_VERSION}.`, 'baseline_version');
  if (!nonEmpty(b.suite)) return bad('suite is missing.', 'suite');
  if (!nonEmpty(b.model)) return bad('model is missing; a baseline is recorded per model.', 'model');
  if (b.path !== null && typeof b.path !== 'string') return bad('path must be a string or null.', 'path');
  if (!nonEmpty(b.recorded_at)) return bad('recorded_at is missing.', 'recorded_at');
  const corpus = b.corpus as Record<string, unknown> | null;
  if (typeof corpus !== 'object' || corpus === null) return bad('corpus is missing.', 'corpus');
  if (!nonEmpty(corpus.name) || !isCount(corpus.size) || !nonEmpty(corpus.sha256))
    return bad('corpus needs name, size and sha256.', 'corpus');
  if (!Array.isArray(b.case_ids) || !b.case_ids.every(nonEmpty))
    return bad('case_ids must be a list of ids.', 'case_ids');
  if (new Set(b.case_ids).size !== b.case_ids.length) return bad('case_ids has duplicates.', 'case_ids');
  if (b.case_ids.length !== corpus.size)
    return bad(`corpus.size is ${String(corpus.size)} but ${b.case_ids.length} case ids are listed.`, 'case_ids');
  const cases = b.cases ?? [];
  if (
    !Array.isArray(cases) ||
    !cases.every((k) => {
      const o = k as Record<string, unknown>;
      return (
        typeof o === 'object' &&
        o !== null &&
        nonEmpty(o.id) &&
        (o.arm === null || ARMS.includes(o.arm as Arm)) &&
        (o.stratum === null || typeof o.stratum === 'string')
      );
    })
  ) {
    return bad('cases must be a list of {id, arm, stratum}.', 'cases');
  }
  const f = b.figures as Record<string, unknown> | null;
  if (typeof f !== 'object' || f === null) return bad('figures are missing.', 'figures');
  if (!isFraction(f.answer_accuracy, 'correct', 'total'))
    return bad('figures.answer_accuracy must be {correct, total} whole cases.', 'figures.answer_accuracy');
  if (!isFraction(f.refusal_recall, 'declined', 'total'))
    return bad('figures.refusal_recall must be {declined, total} whole cases.', 'figures.refusal_recall');
  if (!isFraction(f.over_refusal, 'declined', 'total'))
    return bad('figures.over_refusal must be {declined, total} whole cases.', 'figures.over_refusal');
  const inconsistent = figuresProblem(
    b.case_ids as string[],
    cases as Baseline['cases'],
    f as unknown as BaselineFigures,
  );
  if (inconsistent) return bad(inconsistent.message, inconsistent.field);
  const policy = { ...DEFAULT_GATE_POLICY, ...(b.policy as object | undefined) } as GatePolicy;
  const policyError = checkPolicy(policy);
  if (policyError) return bad(policyError, 'policy');
  return ok({ ...(b as unknown as Baseline), cases: cases as Baseline['cases'], policy });
}

/** A gate policy file (JSON): every threshold named, nothing else (exit 2 for anything else). */
export function parsePolicy(value: unknown): Outcome<GatePolicy> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return fail('input.invalid', 'a policy must be a JSON object of the gate thresholds.');
  const known = Object.keys(DEFAULT_GATE_POLICY);
  for (const key of Object.keys(value))
    if (!known.includes(key))
      return fail('input.invalid', `unknown field "${key}" (known: ${known.join(', ')}).`, { location: key });
  for (const key of known)
    if (!(key in value))
      return fail('input.invalid', `${key} is missing: a policy file names every threshold (${known.join(', ')}).`, {
        location: key,
      });
  const policy = value as GatePolicy;
  const error = checkPolicy(policy);
  if (error)
    return fail('input.invalid', error.replace(/^policy\./, ''), {
      location: error.match(/^policy\.(\w+)/)?.[1] ?? '',
    });
  return ok({
    ...policy,
    over_refusal_ceiling: { count: policy.over_refusal_ceiling.count, of: policy.over_refusal_ceiling.of },
  });
}
