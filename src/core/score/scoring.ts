/**
 * Scores and severity, as the seed's Scoring Strategy and Failure-State
 * Precedence Rules define them (mapping documented in docs/scoring.md):
 *
 * - validity gate: a parse or execution failure (or no query) → fail,
 *   overall_score 0.0, severity critical failure;
 * - result gate: mode_pass false → fail; never a weighted input;
 * - result_score: blend of schema, row overlap, cell overlap, cardinality,
 *   numeric tolerance and NULL handling;
 * - overall_score: a pass scores 0.9 + 0.1 × structure_score (≥ 0.9); a
 *   failure at most 0.89: 0.6 × result_score + 0.3 × structure_score +
 *   0.1 × (1 − primary diagnostic error score) — so every pass outranks every
 *   failure and the judge threshold (0.92) only reaches passes that look
 *   structurally unlike the reference.
 */
import type { DiagnosticScores } from '../diagnose/types.ts';
import type { ResultComparison } from '../result/types.ts';

export const SEVERITIES = ['pass', 'minor issue', 'moderate issue', 'major issue', 'critical failure'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const RESULT_SCORE_WEIGHTS = {
  schema_match: 0.2,
  row_overlap_f1: 0.35,
  cell_overlap_f1: 0.25,
  cardinality: 0.1,
  numeric_tolerance: 0.05,
  null_handling: 0.05,
} as const;

const round = (x: number) => Math.round(x * 1000) / 1000;

export function resultScore(r: ResultComparison): number {
  const w = RESULT_SCORE_WEIGHTS;
  const c = r.cardinality_match;
  const cardinality =
    c.expected_rows === c.actual_rows
      ? 1
      : Math.min(c.expected_rows, c.actual_rows) / Math.max(c.expected_rows, c.actual_rows);
  const schema = r.schema_match.pass ? 1 : r.schema_match.column_count.equal ? 0.5 : 0;
  return round(
    w.schema_match * schema +
      w.row_overlap_f1 * r.row_overlap.f1 +
      w.cell_overlap_f1 * r.cell_overlap.f1 +
      w.cardinality * cardinality +
      w.numeric_tolerance * (r.numeric_tolerance_match.pass ? 1 : 0) +
      w.null_handling * (r.null_handling_match.pass ? 1 : 0),
  );
}

export function overallScore(
  pass: boolean,
  result: number,
  structure: number | null,
  diagnostics: DiagnosticScores | null,
): number {
  const s = structure ?? (pass ? 1 : 0.5);
  if (pass) return round(0.9 + 0.1 * s);
  const primary = diagnostics
    ? Math.max(
        diagnostics.projection_error_score,
        diagnostics.filter_error_score,
        diagnostics.join_error_score,
        diagnostics.grouping_error_score,
        diagnostics.aggregate_function_error_score,
        diagnostics.limit_topk_error_score,
        diagnostics.ordering_error_flag ? 0.2 : 0,
      )
    : 0.5;
  return round(Math.min(0.89, 0.6 * result + 0.3 * s + 0.1 * (1 - primary)));
}

/**
 * Severity of a failing result (the validity failures are critical before
 * this is reached):
 * - minor issue: the answer is right but presented differently — row order
 *   only, column names/order only (strict modes), duplicates only (bag vs set);
 * - moderate issue: same rows and columns, some values wrong (cell overlap ≥ 0.5),
 *   or only extra columns beside the right ones (a scalar's value with other columns too);
 * - major issue: missing columns, a different row count, or most values wrong; a scalar
 *   answered with other columns that do not hold its value;
 * - critical failure: nothing in common (no row matches, the reference is non-empty).
 */
export function failureSeverity(r: ResultComparison, d: DiagnosticScores): Severity {
  const codes = new Set(r.reasons.map((x) => x.code));
  const presentational = new Set([
    'order_violation',
    'column_name_mismatch',
    'column_order_mismatch',
    'duplicate_rows',
  ]);
  // What a presentational defect brings along: columns in another order (the results agree under
  // another alignment) make the positional cells differ; duplicates only (the results agree as
  // sets) make the row counts and the leftover rows differ. A scalar_shape still counts.
  if (codes.has('column_order_mismatch'))
    for (const c of ['value_mismatch', 'null_mismatch', 'type_mismatch']) presentational.add(c);
  if (codes.has('duplicate_rows'))
    for (const c of ['row_count_mismatch', 'value_mismatch', 'null_mismatch']) presentational.add(c);
  if (d.ordering_error_flag || [...codes].every((c) => presentational.has(c))) return 'minor issue';
  // A scalar answered with other columns that share nothing with it: major, not critical (it is a wrong-shaped
  // answer, not a wrong answer to another question). With the right value among its columns, the rule for
  // extra columns below (moderate) applies.
  if (codes.has('scalar_shape') && r.schema_match.column_count.actual !== 1 && r.row_overlap.matched_rows === 0)
    return 'major issue';
  const c = r.cardinality_match;
  if (c.expected_rows > 0 && r.row_overlap.matched_rows === 0 && r.cell_overlap.f1 < 0.2) return 'critical failure';
  const onlyExtraColumns =
    r.column_alignment.missing_expected_columns.length === 0 &&
    r.column_alignment.extra_actual_columns.length > 0 &&
    c.delta === 0;
  if (onlyExtraColumns) return 'moderate issue';
  if (c.delta === 0 && r.schema_match.column_count.equal && r.cell_overlap.f1 >= 0.5) return 'moderate issue';
  return 'major issue';
}
