/**
 * The result comparison configuration (seed "Configuration Model", Layer 3
 * options). Field names are the seed's, in snake_case, because they appear in
 * corpora, in the CLI and, echoed, in every report.
 */
import { fail, ok, type Outcome } from '../errors.ts';

export const COMPARISON_MODES = ['exact', 'order-insensitive', 'order-sensitive'] as const;
export type ComparisonMode = (typeof COMPARISON_MODES)[number];

export const NULL_EQUALITY_MODES = ['strict', 'sql_semantic'] as const;
/**
 * - `strict`: NULL equals NULL and nothing else (SQL's `IS NOT DISTINCT FROM`,
 *   the rule SQL itself applies in EXCEPT, INTERSECT, DISTINCT and GROUP BY).
 * - `sql_semantic`: SQL's `=` under three-valued logic: a comparison with a
 *   NULL on either side is UNKNOWN, never TRUE, so a NULL cell matches
 *   nothing, not even NULL, and a row holding a NULL matches no row.
 */
export type NullEqualityMode = (typeof NULL_EQUALITY_MODES)[number];

export interface ComparisonConfig {
  /** exact: schema, values and row order; order-insensitive: bag (the default); order-sensitive: rows in order (tie-aware). */
  comparison_mode: ComparisonMode;
  /** Compare distinct rows (set semantics) instead of the bag; only with order-insensitive. */
  set_semantics: boolean;
  /** atol of the float rule |a − b| ≤ max(atol, rtol · max(|a|, |b|)). */
  numeric_abs_tolerance: number;
  /** rtol of the float rule. */
  numeric_rel_tolerance: number;
  null_equality_mode: NullEqualityMode;
  /** Aligned columns must carry the same name (exact, case-sensitive). */
  require_column_name_match: boolean;
  /** Columns must align by position. */
  require_column_order_match: boolean;
  /**
   * Unmatched rows per side that the cell-level alignment (partial row
   * pairing for cell_overlap, per-column mismatch rates and witnesses) and
   * the content-based column scoring consider at most. Beyond it the figures
   * are estimates and the report says so. Never affects the verdict.
   */
  max_rows_for_cell_alignment: number;
}

export const DEFAULT_COMPARISON_CONFIG: Readonly<ComparisonConfig> = Object.freeze({
  comparison_mode: 'order-insensitive',
  set_semantics: false,
  numeric_abs_tolerance: 1e-6,
  numeric_rel_tolerance: 1e-6,
  null_equality_mode: 'strict',
  require_column_name_match: false,
  require_column_order_match: false,
  max_rows_for_cell_alignment: 10_000,
});

const KEYS = Object.keys(DEFAULT_COMPARISON_CONFIG) as (keyof ComparisonConfig)[];

function problem(input: Record<string, unknown>): string | null {
  for (const [key, value] of Object.entries(input)) {
    if (value !== undefined && !(KEYS as string[]).includes(key))
      return `unknown option "${key}" (known: ${KEYS.join(', ')})`;
  }
  const v = input as Partial<Record<keyof ComparisonConfig, unknown>>;
  if (v.comparison_mode !== undefined && !(COMPARISON_MODES as readonly unknown[]).includes(v.comparison_mode))
    return `comparison_mode must be one of ${COMPARISON_MODES.join(', ')}`;
  if (v.null_equality_mode !== undefined && !(NULL_EQUALITY_MODES as readonly unknown[]).includes(v.null_equality_mode))
    return `null_equality_mode must be one of ${NULL_EQUALITY_MODES.join(', ')}`;
  for (const key of ['numeric_abs_tolerance', 'numeric_rel_tolerance'] as const) {
    const t = v[key];
    if (t !== undefined && (typeof t !== 'number' || !Number.isFinite(t) || t < 0))
      return `${key} must be a finite number ≥ 0`;
  }
  for (const key of ['set_semantics', 'require_column_name_match', 'require_column_order_match'] as const) {
    if (v[key] !== undefined && typeof v[key] !== 'boolean') return `${key} must be true or false`;
  }
  const cap = v.max_rows_for_cell_alignment;
  if (cap !== undefined && (typeof cap !== 'number' || !Number.isSafeInteger(cap) || cap < 0))
    return 'max_rows_for_cell_alignment must be a whole number ≥ 0';
  return null;
}

/** Validate user-supplied options (a corpus, the CLI, the app) and fill in the defaults. */
export function resolveComparisonConfig(input: unknown = {}): Outcome<ComparisonConfig> {
  if (input === null || input === undefined) return ok({ ...DEFAULT_COMPARISON_CONFIG });
  if (typeof input !== 'object' || Array.isArray(input))
    return fail('input.invalid', 'The comparison config must be an object of options.', { location: 'config' });
  const why = problem(input as Record<string, unknown>);
  if (why) return fail('input.invalid', `Invalid comparison config: ${why}.`, { location: 'config' });
  const given = Object.entries(input).filter(([, value]) => value !== undefined);
  return ok({ ...DEFAULT_COMPARISON_CONFIG, ...(Object.fromEntries(given) as Partial<ComparisonConfig>) });
}

/** Merge programmatic options with the defaults; throws RangeError on an invalid value (a caller bug). */
export function withDefaults(input: Partial<ComparisonConfig> = {}): ComparisonConfig {
  const resolved = resolveComparisonConfig(input);
  if (!resolved.ok) throw new RangeError(resolved.error.message);
  return resolved.value;
}
