/**
 * Row order under `order-sensitive` comparison, tie-aware.
 *
 * The expected rows are cut into tie groups: maximal runs of consecutive rows
 * whose ORDER BY key tuple is equal (NULL keys tie with each other, as they
 * sort together). The actual result is in order when, for every tie group
 * [s, e), its rows at positions s..e-1 are the same bag as the expected rows
 * there: rows may trade places within a tie, never across distinct keys.
 * No sort direction is needed for this. With unknown keys every row is its
 * own group (strict order); with no ORDER BY (keys = []) the whole result is
 * one group.
 */
import type { ResultTable } from '../value/kind.ts';
import { withDefaults, type ComparisonConfig } from './config.ts';
import { allRows, createMatchContext, matchLists, smallBagDiff, type MatchContext } from './row-match.ts';
import { makePairs, prepareSide, rowsEqual, type Side } from './side.ts';
import { cellsEqual, type Tolerance } from './value-policy.ts';
import { cellWitness, rowWitness, type RowWitness } from './witness.ts';
import type { JsonValue } from '../value/json-codec.ts';

export interface OrderResult {
  pass: boolean;
  tieGroups: number;
  /** The first position where the actual row does not belong, with its tie group. */
  violation: { position: number; start: number; end: number } | null;
}

function keysTie(side: Side, keys: readonly number[], r: number, s: number, tol: Tolerance): boolean {
  const x = side.rows[r]!;
  const y = side.rows[s]!;
  const keyTol = tol.nullsEqual ? tol : { ...tol, nullsEqual: true };
  for (const k of keys) {
    const column = side.columns[k]!;
    if (!cellsEqual(column, x[k]!, column, y[k]!, keyTol)) return false;
  }
  return true;
}

/** End (exclusive) of the tie group starting at `start`. */
function groupEnd(side: Side, keys: readonly number[] | null, start: number, tol: Tolerance): number {
  if (keys === null) return start + 1;
  let end = start + 1;
  while (end < side.n && keysTie(side, keys, start, end, tol)) end++;
  return end;
}

const SMALL_GROUP = 32;

/**
 * Check the order of the actual rows against the expected rows (same count,
 * same bag, under the context's column alignment). `matched` (optional) is
 * the bag matching over all rows: a group whose expected rows are all
 * matched to actual rows inside the same group is in order without
 * comparing rows again.
 */
export function checkOrder(ctx: MatchContext, keys: readonly number[] | null, matched?: Int32Array): OrderResult {
  const { E, A } = ctx;
  let groups = 0;
  const rows = allRows(E.n);
  if (E.n !== A.n) return { pass: false, tieGroups: 0, violation: { position: Math.min(E.n, A.n), start: 0, end: 0 } };
  for (let start = 0; start < E.n;) {
    const end = groupEnd(E, keys, start, ctx.tol);
    groups++;
    const length = end - start;
    let bad = -1;
    let inside = matched !== undefined;
    for (let i = start; i < end && inside; i++) {
      const j = matched![i]!;
      inside = j >= start && j < end;
    }
    if (inside) {
      // Verified pairs, a bijection within the group.
    } else if (length === 1) {
      if (!rowsEqual(E, A, ctx.pairs, ctx.tol, start, start)) bad = 0;
    } else if (length <= SMALL_GROUP) {
      const list = rows.subarray(start, end);
      bad = smallBagDiff(ctx, list, list);
    } else {
      const list = rows.subarray(start, end);
      const match = matchLists(ctx, list, list);
      if (match.matched < length) bad = match.matchA.indexOf(-1);
    }
    if (bad >= 0) return { pass: false, tieGroups: groups, violation: { position: start + bad, start, end } };
    start = end;
  }
  return { pass: true, tieGroups: groups, violation: null };
}

// ---------------------------------------------------------------------------
// Unstable goldens: a LIMIT (or OFFSET) that cuts through a tie.

export interface TieCut {
  /** Which boundary of the window [offset, offset + limit) the tie crosses. */
  boundary: 'limit' | 'offset';
  /** First row position outside the window at that boundary (offset + limit, or offset − 1). */
  position: number;
  tie_group: { start: number; end: number };
  rows_inside: number;
  rows_outside: number;
  /** The tied ORDER BY key values. */
  key: JsonValue[];
  example_inside: RowWitness;
  example_outside: RowWitness;
}

export interface LimitTieCheck {
  /** true: the rows the LIMIT keeps depend on how the engine breaks a tie; null: cannot tell (keys unknown). */
  unstable: boolean | null;
  limit: number;
  offset: number;
  cuts: TieCut[];
  note: string;
}

/**
 * Does a reference's LIMIT (and OFFSET) cut through a tie? Pass the
 * reference's rows computed *without* LIMIT/OFFSET (same ORDER BY), the
 * LIMIT and OFFSET values, and the ORDER BY keys as column indices (`[]`
 * when there is no ORDER BY, null when unknown). A cut through a tie group
 * whose rows are not all identical means another engine, or another run,
 * may return different rows: the golden is unstable.
 */
export function findLimitTieCut(
  ordered: ResultTable,
  limit: number,
  orderKeys: readonly number[] | null,
  options: { offset?: number; config?: Partial<ComparisonConfig> } = {},
): LimitTieCheck {
  const offset = Math.max(0, options.offset ?? 0);
  if (orderKeys === null)
    return {
      unstable: null,
      limit,
      offset,
      cuts: [],
      note: 'The ORDER BY keys are unknown: tie cuts cannot be checked.',
    };
  const cfg = withDefaults(options.config);
  const tol: Tolerance = { atol: cfg.numeric_abs_tolerance, rtol: cfg.numeric_rel_tolerance, nullsEqual: true };
  const side = prepareSide(ordered);
  const all = side.columns.map((_, i) => [i, i] as const);
  const ctx = createMatchContext(side, side, makePairs(side, side, all), tol);
  const end = Math.min(side.n, offset + limit);
  const cuts: TieCut[] = [];
  const consider = (boundary: 'limit' | 'offset', inside: number, outside: number) => {
    if (inside < 0 || outside < 0 || inside >= side.n || outside >= side.n) return;
    if (!keysTie(side, orderKeys, inside, outside, tol)) return;
    let start = Math.min(inside, outside);
    while (start > 0 && keysTie(side, orderKeys, start - 1, inside, tol)) start--;
    let stop = Math.max(inside, outside) + 1;
    while (stop < side.n && keysTie(side, orderKeys, stop, inside, tol)) stop++;
    // Identical rows can be cut anywhere without changing the answer.
    let allSame = true;
    for (let r = start + 1; r < stop && allSame; r++) allSame = rowsEqual(side, side, ctx.pairs, tol, start, r);
    if (allSame) return;
    const windowStart = offset;
    const rowsInside = Math.max(0, Math.min(stop, end) - Math.max(start, windowStart));
    cuts.push({
      boundary,
      position: outside,
      tie_group: { start, end: stop },
      rows_inside: rowsInside,
      rows_outside: stop - start - rowsInside,
      key: orderKeys.map((k) => cellWitness(side.columns[k], side.rows[inside]![k])),
      example_inside: rowWitness(side, inside),
      example_outside: rowWitness(side, outside),
    });
  };
  if (end < side.n && end > offset) consider('limit', end - 1, end);
  if (offset > 0 && offset < side.n) consider('offset', offset, offset - 1);
  const unstable = cuts.length > 0;
  return {
    unstable,
    limit,
    offset,
    cuts,
    note: unstable
      ? `The ${cuts[0]!.boundary === 'limit' ? 'LIMIT' : 'OFFSET'} cuts through ${cuts[0]!.rows_inside + cuts[0]!.rows_outside} rows that tie on the ORDER BY keys: which of them are returned is up to the engine.`
      : 'No tie crosses the LIMIT/OFFSET boundary.',
  };
}
