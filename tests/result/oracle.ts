/**
 * The reference oracle for the result comparison (tests only, never product
 * code): on small tables (≤ ~6 columns × ~10 rows) it decides `mode_pass` by
 * brute force, written to be obviously right rather than fast:
 *
 *   some allowed one-to-one column mapping π (every permutation, or only the
 *   positional / same-name ones under the strict options) makes the rows
 *   pair up — a perfect bipartite matching of expected to actual rows, where
 *   two rows are an edge when every aligned cell pair is equal by
 *   `cellsEqual` (the value rule, tested on its own in policy-conformance).
 *
 * Per mode:
 * - order-insensitive (bag): a perfect matching of all rows;
 * - set semantics: every row on each side has an equal row on the other;
 * - order-sensitive: the expected rows cut into tie groups (a run of rows
 *   whose ORDER BY key cells equal the run's first row's, NULL tying with
 *   NULL; each row alone when the keys are unknown, one group for `[]`);
 *   each group [s, e) perfectly matches the actual rows at s..e-1;
 * - exact: positional columns, equal names, equal kinds (a `null`-kind
 *   column matches any kind), every row equal to the actual row at its
 *   position;
 * - a scalar shape needs a 1×1 actual result; column counts must agree.
 */
import { cellsEqual, type ComparisonConfig, type Tolerance } from '../../src/core/result/index.ts';
import type { CaseShape } from '../../src/core/result/types.ts';
import type { ResultTable } from '../../src/core/value/kind.ts';

export interface OracleOptions {
  orderKeys?: readonly number[] | null;
  shape?: CaseShape;
}

/** Every permutation of 0..n-1. */
export function permutations(n: number): number[][] {
  if (n === 0) return [[]];
  const out: number[][] = [];
  for (const rest of permutations(n - 1))
    for (let k = 0; k <= rest.length; k++) out.push([...rest.slice(0, k), n - 1, ...rest.slice(k)]);
  return out;
}

/** Is there a matching that pairs every row of `left` with a distinct row of `right`? (Kuhn, recursion is fine at this size.) */
function perfectMatching(left: number[], right: number[], edge: (i: number, j: number) => boolean): boolean {
  if (left.length !== right.length) return false;
  const owner = new Array<number>(right.length).fill(-1);
  const tryLeft = (i: number, seen: boolean[]): boolean => {
    for (let k = 0; k < right.length; k++) {
      if (seen[k] || !edge(left[i]!, right[k]!)) continue;
      seen[k] = true;
      if (owner[k] === -1 || tryLeft(owner[k]!, seen)) {
        owner[k] = i;
        return true;
      }
    }
    return false;
  };
  for (let i = 0; i < left.length; i++) if (!tryLeft(i, new Array<boolean>(right.length).fill(false))) return false;
  return true;
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, k) => k);
}

/** The oracle's `mode_pass` for `expected` vs `actual` under `config`. */
export function oracleModePass(
  expected: ResultTable,
  actual: ResultTable,
  config: ComparisonConfig,
  options: OracleOptions = {},
): boolean {
  const E = expected;
  const A = actual;
  const m = E.columns.length;
  if (options.shape === 'scalar' && (A.rows.length !== 1 || A.columns.length !== 1)) return false;
  if (A.columns.length !== m) return false;
  const tol: Tolerance = {
    atol: config.numeric_abs_tolerance,
    rtol: config.numeric_rel_tolerance,
    nullsEqual: config.null_equality_mode === 'strict',
  };
  const mode = config.comparison_mode;
  const strictOrder = config.require_column_order_match || mode === 'exact';
  const strictNames = config.require_column_name_match || mode === 'exact';

  const mappings = permutations(m).filter(
    (pi) =>
      (!strictOrder || pi.every((j, i) => j === i)) &&
      (!strictNames || pi.every((j, i) => E.columns[i]!.name === A.columns[j]!.name)),
  );
  // cellEqual[c][k][i][j]: expected row i's cell in column c equals actual row j's cell in column k (computed once).
  const cellEqual = E.columns.map((ec, c) =>
    A.columns.map((ac, k) => E.rows.map((er) => A.rows.map((ar) => cellsEqual(ec, er[c]!, ac, ar[k]!, tol)))),
  );
  const rowsEqual = (pi: number[]) => (i: number, j: number) => pi.every((k, c) => cellEqual[c]![k]![i]![j]!);

  const n = E.rows.length;
  const bag = (pi: number[]) => perfectMatching(range(n), range(A.rows.length), rowsEqual(pi));

  if (mode === 'exact') {
    const pi = range(m);
    if (!mappings.length) return false;
    const kindsEqual = pi.every(
      (i) =>
        E.columns[i]!.kind === A.columns[i]!.kind || E.columns[i]!.kind === 'null' || A.columns[i]!.kind === 'null',
    );
    return kindsEqual && n === A.rows.length && range(n).every((r) => rowsEqual(pi)(r, r));
  }
  if (mode === 'order-insensitive' && config.set_semantics) {
    return mappings.some((pi) => {
      const eq = rowsEqual(pi);
      return (
        range(n).every((i) => range(A.rows.length).some((j) => eq(i, j))) &&
        range(A.rows.length).every((j) => range(n).some((i) => eq(i, j)))
      );
    });
  }
  if (mode === 'order-insensitive') return mappings.some(bag);

  // order-sensitive: tie groups of the expected rows.
  const keys = options.orderKeys === undefined ? null : options.orderKeys;
  const keyTol = { ...tol, nullsEqual: true };
  const ties = (r: number, s: number) =>
    keys !== null &&
    keys.every((k) => cellsEqual(E.columns[k]!, E.rows[r]![k]!, E.columns[k]!, E.rows[s]![k]!, keyTol));
  const groups: number[][] = [];
  for (let start = 0; start < n;) {
    let end = start + 1;
    while (end < n && ties(start, end)) end++;
    groups.push(range(end - start).map((k) => start + k));
    start = end;
  }
  if (n !== A.rows.length) return false;
  return mappings.some((pi) => groups.every((g) => perfectMatching(g, g, rowsEqual(pi))));
}

/** The oracle's bag verdict (order-insensitive, no set semantics) with the same column rules: for ordering-only diagnoses. */
export function oracleBagPass(expected: ResultTable, actual: ResultTable, config: ComparisonConfig): boolean {
  return oracleModePass(expected, actual, { ...config, comparison_mode: 'order-insensitive', set_semantics: false });
}

/**
 * Compare the product's verdict on a pair with the oracle's: null when they
 * agree (a failure carries reasons, a pass none), else what differs.
 */
export function disagreement(
  pair: {
    expected: ResultTable;
    actual: ResultTable;
    config: ComparisonConfig;
    orderKeys: number[] | null;
    shape?: CaseShape;
  },
  compare: (
    e: ResultTable,
    a: ResultTable,
    c: ComparisonConfig,
    o: { orderKeys: number[] | null; shape?: CaseShape },
  ) => {
    result_equality_family: { mode_pass: boolean };
    reasons: { code: string }[];
  },
): string | null {
  const options = { orderKeys: pair.orderKeys, ...(pair.shape ? { shape: pair.shape } : {}) };
  const want = oracleModePass(pair.expected, pair.actual, pair.config, options);
  const got = compare(pair.expected, pair.actual, pair.config, options);
  const pass = got.result_equality_family.mode_pass;
  if (pass !== want)
    return `oracle ${want ? 'pass' : 'fail'}, product ${pass ? 'pass' : 'fail'} (${got.reasons.map((r) => r.code).join(', ')})`;
  if (pass && got.reasons.length > 0) return `pass with reasons ${got.reasons.map((r) => r.code).join(', ')}`;
  if (!pass && got.reasons.length === 0) return 'fail without a reason';
  return null;
}
