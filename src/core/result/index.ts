/**
 * Layer 3, result comparison: the public API.
 *
 * - `compareResults(expected, actual, config?, options?)` → `ResultComparison`
 * - `compareWithRowDiff(...)` → the same plus its row alignment row by row (`RowDiff`)
 * - `resolveComparisonConfig(input)` validates user-supplied options
 * - `findLimitTieCut(rowsWithoutLimit, limit, orderKeys, {offset})` flags unstable goldens
 * - `cellsEqual` / `floatsClose`: the value policy on single cells
 */
export { compareResults, compareWithRowDiff } from './compare.ts';
export { ROW_CHANGED, ROW_EQUAL, ROW_UNMATCHED, type RowDiff, type RowDiffSide, type RowStatus } from './row-diff.ts';
export {
  COMPARISON_MODES,
  DEFAULT_COMPARISON_CONFIG,
  NULL_EQUALITY_MODES,
  resolveComparisonConfig,
  type ComparisonConfig,
  type ComparisonMode,
  type NullEqualityMode,
} from './config.ts';
export { findLimitTieCut, type LimitTieCheck, type TieCut } from './order-check.ts';
export { canonicalTemporal, cellsEqual, floatsClose, floatTolerance, type Tolerance } from './value-policy.ts';
export * from './types.ts';
