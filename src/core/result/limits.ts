/**
 * Work budgets of the result comparison's searches, per comparison. Running
 * out is never silent: a comparison that has not passed when a budget runs
 * out is `undecided` (see compare.ts), never a fail. The figures are far
 * beyond what realistic results need (the bench shows the margins); tests
 * lower them, and restore them, to reach the undecided paths quickly.
 */
export const SEARCH_LIMITS = {
  /** Row comparisons of the tolerance matchings (float windows, augmenting paths), shared by every alignment tried. */
  toleranceComparisons: 30_000_000,
  /** Cells hashed or probed while the column search extends partial mappings. */
  alignmentCells: 200_000_000,
  /** Cells of complete mappings compared in full by the column search (at least 64 mappings are always allowed). */
  alignmentCheckCells: 100_000_000,
};
