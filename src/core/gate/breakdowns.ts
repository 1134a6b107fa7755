/**
 * Breakdowns of a run summary: outcome counts and rates by fixture, tag,
 * difficulty, shape and arm/stratum, each rate with its Wilson 95% interval (an arm's strata: counts only).
 * Built from the per-case results only, so the CLI, the exports and the app
 * show the same rows.
 *
 * Every case falls in exactly one row of by_fixture, by_difficulty, by_shape
 * and by_stratum (a case without the label goes to the "(none)" / "unrated"
 * row), so each of those sums to the run's totals. A case counts once per tag
 * in by_tag (untagged cases in "(untagged)"): its rows overlap.
 */
import { wilson, type Interval } from './interval.ts';
import { SHAPES } from '../vocabulary.ts';
import {
  BIRD_DIFFICULTIES,
  CASE_OUTCOMES,
  DIFFICULTIES,
  isSuccess,
  type CaseOutcome,
  type CaseResult,
} from './outcome.ts';

export type BreakdownOutcomes = { [K in CaseOutcome]: number };

export interface BreakdownRate {
  count: number;
  total: number;
  rate: number | null;
  ci95: Interval | null;
}

export interface BreakdownRow {
  key: string;
  /** Cases in the row. */
  total: number;
  outcomes: BreakdownOutcomes;
  /** Answer accuracy inside the row: correct out of the answer set (no arm, or must_answer). */
  accuracy: BreakdownRate;
  /** Right out of every case in the row: correct answers and correct refusals. */
  success: BreakdownRate;
}

export interface Breakdowns {
  by_fixture: BreakdownRow[];
  by_tag: BreakdownRow[];
  by_difficulty: BreakdownRow[];
  by_shape: BreakdownRow[];
  /** Keyed `arm/stratum`; cases with no arm are "(no arm)". */
  by_stratum: BreakdownRow[];
}

export const BREAKDOWN_KEYS = ['by_fixture', 'by_tag', 'by_difficulty', 'by_shape', 'by_stratum'] as const;
export const NO_LABEL = '(none)';
export const UNTAGGED = '(untagged)';
export const UNRATED = 'unrated';
export const NO_ARM = '(no arm)';

export function rateOf(count: number, total: number): BreakdownRate {
  return { count, total, rate: total === 0 ? null : count / total, ci95: wilson(count, total) };
}

function row(key: string, cases: readonly CaseResult[], legacy: boolean): BreakdownRow {
  const outcomes = {} as BreakdownOutcomes;
  for (const o of CASE_OUTCOMES) outcomes[o] = 0;
  for (const k of cases) outcomes[k.outcome]++;
  // A broken reference is not graded (SPEC 4): outside the accuracy and the right rate, as in the
  // summary's answer accuracy. `legacy` counts it as reports written before this did.
  const graded = legacy ? cases : cases.filter((k) => k.outcome !== 'broken_reference');
  const answerSet = graded.filter((k) => k.arm !== 'must_refuse');
  return {
    key,
    total: cases.length,
    outcomes,
    accuracy: rateOf(outcomes.correct, answerSet.length),
    success: rateOf(graded.filter((k) => isSuccess(k.outcome)).length, graded.length),
  };
}

/** Rows in `known` order first, then the rest alphabetically, the catch-all label last. */
function group(
  cases: readonly CaseResult[],
  labelsOf: (k: CaseResult) => string[],
  known: readonly string[] = [],
  last = '',
  legacy = false,
): BreakdownRow[] {
  const by = new Map<string, CaseResult[]>();
  for (const k of cases)
    for (const label of labelsOf(k)) {
      const list = by.get(label);
      if (list) list.push(k);
      else by.set(label, [k]);
    }
  const rank = (label: string) => (label === last ? 2 : known.includes(label) ? 0 : 1);
  const keys = [...by.keys()].sort(
    (a, b) => rank(a) - rank(b) || (rank(a) === 0 ? known.indexOf(a) - known.indexOf(b) : a < b ? -1 : a > b ? 1 : 0),
  );
  return keys.map((key) => row(key, by.get(key)!, legacy));
}

/**
 * A refusal stratum as counts only (seed 003: "Strata are reported as counts rather than as per-stratum rates ...
 * 1 of 2 is a fact, '50%' is not a statistic"): rate and interval are null; the arm totals keep theirs.
 */
export function countsOnly(r: BreakdownRow): BreakdownRow {
  const counts = (x: BreakdownRate): BreakdownRate => ({ count: x.count, total: x.total, rate: null, ci95: null });
  return { ...r, accuracy: counts(r.accuracy), success: counts(r.success) };
}

/** `legacy`: broken references counted in accuracy and right rate, as reports written before they were left out (read back only). */
export function computeBreakdowns(cases: readonly CaseResult[], legacy = false): Breakdowns {
  return {
    by_fixture: group(cases, (k) => [k.fixture ?? NO_LABEL], [], NO_LABEL, legacy),
    by_tag: group(cases, (k) => (k.tags?.length ? [...new Set(k.tags)] : [UNTAGGED]), [], UNTAGGED, legacy),
    by_difficulty: group(
      cases,
      (k) => [k.difficulty ?? UNRATED],
      [...DIFFICULTIES, ...BIRD_DIFFICULTIES],
      UNRATED,
      legacy,
    ),
    by_shape: group(cases, (k) => [k.shape ?? NO_LABEL], SHAPES, NO_LABEL, legacy),
    by_stratum: group(cases, (k) => [k.arm ? `${k.arm}/${k.stratum ?? NO_LABEL}` : NO_ARM], [], NO_ARM, legacy).map(
      (r) => (r.key === NO_ARM ? r : countsOnly(r)),
    ),
  };
}
