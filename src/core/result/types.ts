/**
 * The output of Layer 3 (result comparison). Plain JSON data: no class
 * instances, no bigint, no NaN (numbers that are not finite are null), so it
 * crosses worker boundaries and is written into reports unchanged. Field
 * names are the seed's glossary names.
 */
import type { JsonValue } from '../value/json-codec.ts';
import type { Kind } from '../value/kind.ts';
import type { Shape } from '../vocabulary.ts';
import type { ComparisonConfig, ComparisonMode } from './config.ts';
import type { RowWitness } from './witness.ts';

export type { RowWitness } from './witness.ts';

export const REASON_CODES = [
  'row_count_mismatch',
  'column_count_mismatch',
  'value_mismatch',
  'null_mismatch',
  'type_mismatch',
  'order_violation',
  'duplicate_rows',
  'scalar_shape',
  'column_name_mismatch',
  'column_order_mismatch',
  'matching_incomplete',
  'coincidental_match',
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

/** One side of an aligned column pair (null on the side where the column is absent). */
export interface ColumnRef {
  expected_index: number | null;
  expected_name: string | null;
  actual_index: number | null;
  actual_name: string | null;
}

export interface NamedColumn {
  index: number;
  name: string;
}

interface ReasonBase {
  code: ReasonCode;
  /** One plain-language sentence. */
  message: string;
}

export interface RowCountMismatch extends ReasonBase {
  code: 'row_count_mismatch';
  expected_rows: number;
  actual_rows: number;
  /** What the counts are of: all rows (bag), or distinct rows (set semantics). */
  basis: 'bag' | 'set';
  unmatched_expected_rows: number;
  unmatched_actual_rows: number;
  /** The first expected row with no partner in the actual result, and vice versa. */
  first_unmatched_expected: RowWitness | null;
  first_unmatched_actual: RowWitness | null;
}

export interface ColumnCountMismatch extends ReasonBase {
  code: 'column_count_mismatch';
  expected_columns: number;
  actual_columns: number;
  /** The best partial alignment: expected columns left without a partner, actual columns left over. */
  missing_expected_columns: NamedColumn[];
  extra_actual_columns: NamedColumn[];
}

/** A differing cell: value_mismatch and null_mismatch share this witness. */
export interface CellMismatch extends ReasonBase {
  code: 'value_mismatch' | 'null_mismatch';
  column: ColumnRef;
  expected: JsonValue;
  actual: JsonValue;
  /** actual − expected: exact decimal text (exact numbers), a number (floats), null otherwise. */
  delta: string | number | null;
  /** The tolerance the float rule granted, or null (exact rule, not numbers). */
  tolerance: number | null;
  rule: 'exact' | 'float' | 'null' | 'equality';
  /** The first differing row pair, one row from each side. */
  expected_row: RowWitness;
  actual_row: RowWitness;
  /** How the rows were paired: by the most shared cells, or in order of what was left. */
  pairing: 'best_partial' | 'leftover';
  /** Aligned row pairs differing in this column (among those examined). */
  mismatched_pairs: number;
  expected_kind: Kind;
  actual_kind: Kind;
  expected_engine_type: string;
  actual_engine_type: string;
}

/** Aligned columns whose values can never be equal (e.g. a boolean and an integer), or whose kinds differ in exact mode. */
export interface TypeMismatch extends ReasonBase {
  code: 'type_mismatch';
  column: ColumnRef;
  expected_kind: Kind;
  actual_kind: Kind;
  expected_engine_type: string;
  actual_engine_type: string;
  /** A differing cell pair, when the rows show one (null when only the declared kinds differ). */
  expected: JsonValue | null;
  actual: JsonValue | null;
  expected_row: RowWitness | null;
  actual_row: RowWitness | null;
  mismatched_pairs: number;
}

export interface OrderViolation extends ReasonBase {
  code: 'order_violation';
  /** 0-based position where the actual row breaks the expected order. */
  position: number;
  expected_row: RowWitness;
  actual_row: RowWitness;
  /** The tie group (rows whose ORDER BY keys tie) the position belongs to, [start, end). */
  tie_group: { start: number; end: number } | null;
  tie_aware: boolean;
  order_keys: number[] | null;
}

export interface DuplicateRows extends ReasonBase {
  code: 'duplicate_rows';
  /** A row whose multiplicity differs; the results agree as sets. */
  row: RowWitness;
  side: 'expected' | 'actual';
  expected_count: number;
  actual_count: number;
}

export interface ScalarShape extends ReasonBase {
  code: 'scalar_shape';
  expected_shape: { rows: number; columns: number };
  actual_shape: { rows: number; columns: number };
}

export interface ColumnNameMismatch extends ReasonBase {
  code: 'column_name_mismatch';
  /** Aligned pairs whose names differ (and columns without a same-named partner). */
  columns: ColumnRef[];
}

export interface ColumnOrderMismatch extends ReasonBase {
  code: 'column_order_mismatch';
  /** An alignment (expected → actual index) under which the results would agree, if any. */
  matching_alignment: { expected_index: number; actual_index: number }[] | null;
}

export interface MatchingIncomplete extends ReasonBase {
  code: 'matching_incomplete';
}

export type Reason =
  | RowCountMismatch
  | ColumnCountMismatch
  | CellMismatch
  | TypeMismatch
  | OrderViolation
  | DuplicateRows
  | ScalarShape
  | ColumnNameMismatch
  | ColumnOrderMismatch
  | MatchingIncomplete
  | CoincidentalMatch;

/** The results agree on the fixture but not on a generated neighbour database (SPEC 4.1; evidence.neighbours has the counterexample). */
export interface CoincidentalMatch extends ReasonBase {
  code: 'coincidental_match';
  neighbour_index: number;
  neighbour_seed: number;
}

export interface ModeOutcome {
  pass: boolean;
  /** Reason codes behind a failure under this mode. */
  reasons: ReasonCode[];
  note?: string;
}

export interface ResultEqualityFamily {
  comparison_mode: ComparisonMode;
  set_semantics: boolean;
  /** The verdict under the selected mode (and set semantics), the result gate (false when undecided). */
  mode_pass: boolean;
  /**
   * Present, true, only when the comparison is undecided: a search ran out of
   * its work budget before it could find an alignment or a row pairing that
   * passes (mode_pass is then false, the only reason is `matching_incomplete`
   * and a `comparison_undecided` warning says which search). See `resultVerdict`.
   */
  undecided?: true;
  /** Outcomes under every mode, for diagnosis only (e.g. ordering-only mismatches). */
  mode_details: {
    exact: ModeOutcome;
    'order-insensitive': ModeOutcome;
    'order-sensitive': ModeOutcome;
    set: ModeOutcome;
  };
}

/** The comparison's verdict: pass, fail, or undecided (a search budget ran out). */
export function resultVerdict(comparison: {
  result_equality_family: Pick<ResultEqualityFamily, 'mode_pass' | 'undecided'>;
}): 'pass' | 'fail' | 'undecided' {
  const family = comparison.result_equality_family;
  return family.mode_pass ? 'pass' : family.undecided ? 'undecided' : 'fail';
}

export interface AlignedColumn {
  expected_index: number;
  expected_name: string;
  actual_index: number;
  actual_name: string;
  same_position: boolean;
  same_name: boolean;
}

export interface ColumnAlignment {
  /**
   * positional / name / content: the first alignment (in that order of
   * preference) under which the results agree; strict options force
   * positional or name; best_effort: none agrees, this one shares the most values.
   */
  method: 'positional' | 'name' | 'content' | 'best_effort';
  mapping: AlignedColumn[];
  missing_expected_columns: NamedColumn[];
  extra_actual_columns: NamedColumn[];
  strict_names: boolean;
  strict_order: boolean;
  /** Complete alignments whose rows were compared in full while searching. */
  alignments_checked: number;
  /** The content search ran out of its work budget before it was complete (the verdict is then undecided unless it passed). */
  search_capped: boolean;
}

export interface SchemaColumn {
  index: number;
  name: string;
  kind: Kind;
  engine_type: string;
}

export interface SchemaMatch {
  /** Same column count, and (under the alignment) compatible kinds. */
  pass: boolean;
  column_count: { expected: number; actual: number; equal: boolean };
  /** Names equal position by position. */
  names_equal: boolean;
  /** The same names as multisets (order aside). */
  names_equal_as_set: boolean;
  /** Aligned columns have identical kinds (a column of kind null, all NULL, matches any). */
  kinds_equal: boolean;
  /** Aligned columns have kinds whose values can be equal (integer, decimal and float; date and timestamp), or one holds only NULLs. */
  kinds_compatible: boolean;
  /** The alignment keeps every column at its position. */
  order_equal: boolean;
  expected: SchemaColumn[];
  actual: SchemaColumn[];
}

export interface Overlap {
  /** |shared| / |union| (1 when both are empty). */
  jaccard: number;
  /** 2·|shared| / (|expected| + |actual|) (1 when both are empty). */
  f1: number;
  /** |shared| / |actual|. */
  precision: number;
  /** |shared| / |expected|. */
  recall: number;
}

export interface RowOverlap extends Overlap {
  /** Rows paired as equal (the bag intersection under the alignment). */
  matched_rows: number;
  expected_rows: number;
  actual_rows: number;
  /** all_columns; mapped_columns when the column counts differ (rows compared on the aligned columns only). */
  basis: 'all_columns' | 'mapped_columns';
}

export interface CellOverlap extends Overlap {
  matching_cells: number;
  expected_cells: number;
  actual_cells: number;
  /** Unmatched rows paired cell by cell (at most max_rows_for_cell_alignment per side). */
  aligned_partial_pairs: number;
  /** True when the cap applied and the figures extrapolate from the pairs examined. */
  estimated: boolean;
}

export interface CardinalityMatch {
  pass: boolean;
  expected_rows: number;
  actual_rows: number;
  /** actual − expected. */
  delta: number;
  /** actual / expected (null when expected is 0 and actual is not). */
  ratio: number | null;
}

export interface NumericToleranceMatch {
  /** No numeric cell of the aligned row pairs is outside the rules. */
  pass: boolean;
  atol: number;
  rtol: number;
  rule: string;
  /** Numeric cells compared by the float rule (at least one side a float), over aligned row pairs. */
  float_cells_compared: number;
  /** Of those, equal within tolerance but not identical. */
  within_tolerance_not_identical: number;
  outside_tolerance: number;
  /** Exact numbers (integer, decimal) compared, and how many differ. */
  exact_cells_compared: number;
  exact_mismatches: number;
  /** Largest |actual − expected| and relative difference seen on aligned numeric cells. */
  max_abs_delta: number;
  max_rel_delta: number;
}

export interface NullHandlingMatch {
  /** NULLs per aligned column are equal in number and no aligned row pair has NULL on one side only. */
  pass: boolean;
  null_equality_mode: ComparisonConfig['null_equality_mode'];
  expected_nulls: number;
  actual_nulls: number;
  /** Aligned cell pairs with NULL on exactly one side. */
  null_mismatches: number;
  columns: { expected_index: number; actual_index: number; expected_nulls: number; actual_nulls: number }[];
}

export interface ColumnMismatchRate {
  expected_index: number | null;
  expected_name: string | null;
  actual_index: number | null;
  actual_name: string | null;
  status: 'aligned' | 'missing' | 'extra';
  /** Aligned row pairs examined (matched rows plus partially paired rows). */
  compared: number;
  mismatched: number;
  /** mismatched / compared (1 for a missing or extra column). */
  mismatch_rate: number;
  null_mismatches: number;
  type_mismatches: number;
  max_abs_delta: number | null;
}

export interface OrderCheck {
  applied: boolean;
  pass: boolean;
  /** Ties were allowed to come in any order (the ORDER BY keys were known). */
  tie_aware: boolean;
  order_keys: number[] | null;
  tie_groups: number;
  note: string;
}

export interface LimitsApplied {
  max_rows_for_cell_alignment: number;
  /** The cell-level alignment examined only part of the unmatched rows. */
  cell_alignment_capped: boolean;
  unmatched_expected_examined: number;
  unmatched_actual_examined: number;
  /** The tolerance matching ran out of its work budget: rows may be left unmatched that a longer search would pair. */
  tolerance_budget_exhausted: boolean;
  /** Column similarity was scored on a consistent sample of values. */
  column_scoring_sampled: boolean;
}

export interface ComparisonWarning {
  code: string;
  message: string;
}

export interface ResultComparison {
  result_equality_family: ResultEqualityFamily;
  reasons: Reason[];
  column_alignment: ColumnAlignment;
  schema_match: SchemaMatch;
  row_overlap: RowOverlap;
  cell_overlap: CellOverlap;
  cardinality_match: CardinalityMatch;
  numeric_tolerance_match: NumericToleranceMatch;
  null_handling_match: NullHandlingMatch;
  /** Per-column mismatch rates; the diagnostics layer builds per_column_mismatch_map from them. */
  per_column: ColumnMismatchRate[];
  order_check: OrderCheck;
  limits: LimitsApplied;
  warnings: ComparisonWarning[];
  config: ComparisonConfig;
}

/** A case's declared shape (corpus `shape`). */
export type CaseShape = Shape;

export interface CompareOptions {
  /** With `scalar`, the actual result must be exactly one row and one column. */
  shape?: CaseShape;
  /**
   * The reference's ORDER BY keys as indices into the expected columns
   * (derived from the reference SQL by the structural layer). `[]`: no ORDER
   * BY (every row ties). Absent or null: unknown, strict row order applies
   * and the output says so.
   */
  orderKeys?: readonly number[] | null;
}
