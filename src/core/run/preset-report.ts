/**
 * A policy preset's part of the run report: its verdict beside SQL Verdict's own on each case, the run's figures
 * under it, and the named policy differences that explain where the two decide a case differently.
 */
import type { CaseOutcome } from '../gate/outcome.ts';
import type { PolicyPresetName } from './policy-presets.ts';

export interface PresetCaseVerdict {
  preset: PolicyPresetName;
  verdict: 'pass' | 'fail';
  /** e.g. `spider.row_count`, `bird.row_set`, `spider.prediction_failed`; `spider.equal` on a pass. */
  reason_code: string;
  reason: string;
  /** What the preset's preprocessing changed in the queries (DISTINCT removed, ...). */
  changes: string[];
  /** 0-based reference that matched under the preset (null when none did). */
  matched_index: number | null;
  /** SQL Verdict's own outcome and reason for this case. */
  native_outcome: CaseOutcome;
  native_reason_code: string | null;
  /** SQL Verdict's own reason text (the case's `reason` becomes the preset's). */
  native_reason: string | null;
  /** The two policies decide this case differently. */
  differs: boolean;
  /** When they differ: the policy difference that explains it (see POLICY_DIFFERENCES). */
  policy_difference?: PolicyDifference;
  /** bird: BIRD mini-dev's Soft-F1 of the two results (0–1; 0 when a query fails). */
  soft_f1?: number;
  /** bird with timed repetitions: mean gold/prediction time ratio (outliers cleaned) and the R-VES reward band. */
  rves?: { time_ratio: number; reward: number; iterations: number };
}

/** BIRD's figures for a set of cases: EX, Soft-F1 and, when timed, R-VES and BIRD's original VES, each ×100 over all cases. */
export interface BirdFigures {
  ex: number;
  soft_f1: number;
  /** BIRD mini-dev's R-VES: 100 · Σ√reward / N (reward from the time ratio's bands; 0 when wrong). */
  r_ves: number | null;
  /** BIRD's original VES: 100 · Σ√time_ratio / N (time_ratio 0 when wrong). */
  ves: number | null;
}

/** BIRD's figures, overall and per difficulty (simple, moderate, challenging, then any other label). */
export interface BirdMetrics extends BirdFigures {
  by_difficulty: ({ difficulty: string; cases: number } & BirdFigures)[];
}

/** Why a preset and SQL Verdict's own policy can decide a case differently, by name. */
export const POLICY_DIFFERENCES = {
  distinct_removed: 'Spider removes DISTINCT from both queries before comparing; SQL Verdict keeps it.',
  empty_results: 'Spider passes two empty results whatever their columns; SQL Verdict also compares the columns.',
  value_plug: "Spider's driver replaces 'value' with 1 in the prediction before running it.",
  first_statement: "Spider's DISTINCT removal keeps only the prediction's first statement.",
  set_semantics: 'BIRD compares sets of rows (duplicates ignored); SQL Verdict compares bags.',
  python_equality:
    'The benchmark compares Python values (1 = 1.0, text is never a number); SQL Verdict compares typed values.',
  tuple_equality:
    "The benchmark compares rows as tuples in the query's column order, values exactly; SQL Verdict aligns columns and allows a float tolerance.",
  order_rule:
    "Order: Spider keeps row order only when the gold text has 'order by', compared exactly; SQL Verdict's order check is tie-aware.",
  execution:
    "The candidate ran in one policy's reading and not in the other's (sandbox gate, or the preset's rewriting).",
  other: 'None of the named differences: to be reviewed.',
} as const;
export type PolicyDifference = keyof typeof POLICY_DIFFERENCES;

/** The named policy difference behind a case the two policies decide differently. */
export function policyDifference(
  v: Pick<PresetCaseVerdict, 'preset' | 'verdict' | 'reason_code' | 'changes'>,
  nativeReasonCode: string | null,
  /** spider: whether the keep-distinct verdict agrees with SQL Verdict's (then DISTINCT removal is the whole difference). */
  keepDistinctAgrees?: boolean,
): PolicyDifference {
  const native = nativeReasonCode ?? '';
  if (keepDistinctAgrees === true && v.changes.includes('DISTINCT removed')) return 'distinct_removed';
  if (keepDistinctAgrees === false) v = { ...v, changes: v.changes.filter((c) => c !== 'DISTINCT removed') };
  if (v.verdict === 'pass') {
    if (v.changes.includes('DISTINCT removed')) return 'distinct_removed';
    if (v.reason_code.endsWith('.empty_results')) return 'empty_results';
    if (v.changes.some((c) => c.includes("'value'"))) return 'value_plug';
    if (v.changes.some((c) => c.includes('first statement'))) return 'first_statement';
    if (native.startsWith('validation.')) return 'execution';
    if (v.preset === 'bird' && /row_count_mismatch|duplicate_rows/.test(native)) return 'set_semantics';
    if (/type_mismatch|value_mismatch|column_count_mismatch|scalar_shape/.test(native)) return 'python_equality';
    if (/order/.test(native)) return 'order_rule';
    return 'other';
  }
  if (v.reason_code.endsWith('.prediction_failed') || v.reason_code.endsWith('.gold_failed')) return 'execution';
  if (v.preset === 'bird' && v.reason_code.endsWith('.row_set')) return 'tuple_equality';
  if (
    v.preset === 'spider' &&
    (v.reason_code.endsWith('.order') || (v.reason_code.endsWith('.values') && v.changes.length === 0))
  )
    return v.reason_code.endsWith('.order') ? 'order_rule' : 'tuple_equality';
  if (v.changes.includes('DISTINCT removed')) return 'distinct_removed';
  return 'other';
}

export interface PresetRunSummary {
  preset: PolicyPresetName;
  keep_distinct: boolean;
  /** SQL Verdict's own figure for the same run, beside the preset's (summary.answer_accuracy). */
  native_answer_accuracy: { correct: number; total: number };
  /** Cases the preset passes and SQL Verdict fails, and the other way round. */
  differences: { preset_pass_native_fail: string[]; preset_fail_native_pass: string[] };
  /** The differing cases per named policy difference (only the differences that occur). */
  difference_reasons: Partial<Record<PolicyDifference, number>>;
  /** bird only. */
  bird_metrics?: BirdMetrics;
}
