/**
 * Bag (multiset) matching of rows under a column alignment.
 *
 * 1. Exact phase: every row gets a 64-bit key from its cell hashes; actual
 *    rows go into an open-addressing table (typed arrays, chains in row
 *    order); each expected row takes the first unmatched actual row with the
 *    same key that `rowsEqual` confirms. Keys only propose; equality decides.
 * 2. Tolerance phase (only when a column is tolerant — floats, untyped or
 *    nested values — and rows are left on both sides): rows are grouped by
 *    their non-numeric cells, sorted by one numeric column, and matched
 *    within the float rule's window by maximum bipartite matching (augmenting
 *    paths, Kuhn), which also repairs any unlucky choice of the exact phase.
 *
 * Equality on exact kinds is an equivalence, so the exact phase alone is
 * optimal there; the tolerance phase makes the matching maximum when the
 * float rule (not transitive) is involved. Work is bounded by a budget of
 * row comparisons; running out is reported, never hidden.
 */
import type { Cell } from '../value/kind.ts';
import { fmix, HASH_NULL } from './cell-hash.ts';
import { rowsEqual, type ColumnPair, type Side } from './side.ts';
import { classOf, EXACT, FLOAT, LIST, STRUCT, type Tolerance } from './value-policy.ts';

export interface RowKeys {
  h1: Int32Array;
  h2: Int32Array;
}

export interface MatchContext {
  E: Side;
  A: Side;
  pairs: ColumnPair[];
  tol: Tolerance;
  eKeys: RowKeys;
  aKeys: RowKeys;
  /** Indices into `pairs` of tolerant columns. */
  tolerantPairs: number[];
  /** Rows holding a NULL in an aligned column (only under `sql_semantic`, where they can match nothing). */
  eUnmatchable: Uint8Array | null;
  aUnmatchable: Uint8Array | null;
  eGroupKeys?: RowKeys;
  aGroupKeys?: RowKeys;
  budget: { left: number; exhausted: boolean };
}

/** Row comparisons the tolerance phase may spend per comparison before it gives up (and says so). */
export const TOLERANCE_BUDGET = 30_000_000;

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

/** Combine per-column hashes (in column order) into two independent 32-bit row hashes. */
export function combineRowKeys(n: number, columns: readonly Int32Array[]): RowKeys {
  const h1 = new Int32Array(n);
  const h2 = new Int32Array(n);
  const m = columns.length;
  const salts = Int32Array.from(columns, (_, c) => Math.imul(c + 1, 0x9e3779b9));
  for (let r = 0; r < n; r++) {
    let a = 0x9747b28c | 0;
    let b = 0x2545f491;
    for (let c = 0; c < m; c++) {
      const k = columns[c]![r]!;
      a ^= Math.imul(rotl(Math.imul(k, 0xcc9e2d51), 15), 0x1b873593);
      a = (Math.imul(rotl(a, 13), 5) + 0xe6546b64) | 0;
      b ^= fmix(k ^ salts[c]!);
      b = (Math.imul(rotl(b, 17), 0x27d4eb2f) + 0x165667b1) | 0;
    }
    h1[r] = fmix(a ^ m);
    h2[r] = fmix(b ^ (m << 8));
  }
  return { h1, h2 };
}

function unmatchableRows(side: Side, columns: readonly number[]): Uint8Array {
  const out = new Uint8Array(side.n);
  for (const c of columns) {
    for (let r = 0; r < side.n; r++) {
      const v = side.rows[r]![c];
      if (v === null || v === undefined) out[r] = 1;
    }
  }
  return out;
}

export function createMatchContext(E: Side, A: Side, pairs: ColumnPair[], tol: Tolerance): MatchContext {
  const tolerantPairs: number[] = [];
  pairs.forEach((p, i) => {
    if (p.tolerant) tolerantPairs.push(i);
  });
  return {
    E,
    A,
    pairs,
    tol,
    eKeys: combineRowKeys(E.n, pairs.map((p) => p.eHash)),
    aKeys: combineRowKeys(A.n, pairs.map((p) => p.aHash)),
    tolerantPairs,
    eUnmatchable: tol.nullsEqual ? null : unmatchableRows(E, pairs.map((p) => p.ei)),
    aUnmatchable: tol.nullsEqual ? null : unmatchableRows(A, pairs.map((p) => p.ai)),
    budget: { left: TOLERANCE_BUDGET, exhausted: false },
  };
}

// ---------------------------------------------------------------------------
// Grouping keys for the tolerance phase: numeric cells of tolerant columns
// contribute only a tag (their value is compared within tolerance), every
// other cell contributes its hash.

const TAG_NUMBER = 0x3d4d51c3;
const TAG_NESTED = 0x68e31da4;

function isNumericFinite(cls: number, cell: Cell): boolean {
  if (cls === EXACT) return true;
  return cls === FLOAT && Number.isFinite(cell as number);
}

function groupKeysOf(ctx: MatchContext, side: 'E' | 'A'): RowKeys {
  const cached = side === 'E' ? ctx.eGroupKeys : ctx.aGroupKeys;
  if (cached) return cached;
  const S = side === 'E' ? ctx.E : ctx.A;
  const columns = ctx.pairs.map((pair) => {
    const base = side === 'E' ? pair.eHash : pair.aHash;
    if (!pair.tolerant) return base;
    const index = side === 'E' ? pair.ei : pair.ai;
    const kind = (side === 'E' ? pair.ec : pair.ac).kind;
    const out = new Int32Array(S.n);
    for (let r = 0; r < S.n; r++) {
      const cell = S.rows[r]![index];
      if (cell === null || cell === undefined) {
        out[r] = HASH_NULL;
        continue;
      }
      const cls = classOf(kind, cell);
      out[r] = isNumericFinite(cls, cell) ? TAG_NUMBER : cls === LIST || cls === STRUCT ? TAG_NESTED : base[r]!;
    }
    return out;
  });
  const keys = combineRowKeys(S.n, columns);
  if (side === 'E') ctx.eGroupKeys = keys;
  else ctx.aGroupKeys = keys;
  return keys;
}

function nextPow2(x: number): number {
  let c = 4;
  while (c < x) c *= 2;
  return c;
}

function numericValue(kind: ColumnPair['ec']['kind'], cell: Cell): number {
  if (cell === null || cell === undefined) return NaN;
  const cls = classOf(kind, cell);
  if (!isNumericFinite(cls, cell)) return NaN;
  return typeof cell === 'number' ? cell : Number(cell as string | bigint);
}

// ---------------------------------------------------------------------------

/**
 * An index over the rows of one side (a list of row numbers): exact keys to
 * chains of rows, and, built on first use, tolerance groups sorted by a
 * numeric column. The exact table interleaves, per slot, the chain's first
 * entry, a cursor to its first possibly unmatched entry and the two key
 * halves, so a probe touches one cache line.
 */
export interface RowIndex {
  side: 'E' | 'A';
  list: Int32Array;
  /** True when `list` is 0..n-1 (positions are row numbers). */
  identity: boolean;
  mask: number;
  /** Per slot: [first, cursor, key1, key2]; first is a position in `list`, -1 for an empty slot. */
  table: Int32Array;
  next: Int32Array;
  groups?: ToleranceGroups;
}

const FIRST = 0;
const CURSOR = 1;
const KEY1 = 2;
const KEY2 = 3;

interface ToleranceGroups {
  mask: number;
  slotRep: Int32Array;
  slotGroup: Int32Array;
  start: Int32Array;
  members: Int32Array;
  values: Float64Array;
  /** Position of the first non-numeric window value in each group (values are sorted, NaN last). */
  nanStart: Int32Array;
  /** Index into ctx.pairs of the window column, or -1 (compare with the whole group). */
  windowPair: Int32Array;
  sorted: Uint8Array;
}

function keysOf(ctx: MatchContext, side: 'E' | 'A'): RowKeys {
  return side === 'E' ? ctx.eKeys : ctx.aKeys;
}

function unmatchable(ctx: MatchContext, side: 'E' | 'A'): Uint8Array | null {
  return side === 'E' ? ctx.eUnmatchable : ctx.aUnmatchable;
}

export function buildIndex(ctx: MatchContext, side: 'E' | 'A', list: Int32Array, identity = false): RowIndex {
  const { h1, h2 } = keysOf(ctx, side);
  const skip = unmatchable(ctx, side);
  const n = list.length;
  const cap = nextPow2(Math.ceil(n * 1.5));
  const mask = cap - 1;
  const table = new Int32Array(cap * 4);
  for (let s = 0; s < cap; s++) table[s * 4] = -1;
  const next = new Int32Array(n);
  for (let i = n - 1; i >= 0; i--) {
    const r = identity ? i : list[i]!;
    if (skip && skip[r]) continue;
    const k1 = h1[r]!;
    const k2 = h2[r]!;
    let s = k1 & mask;
    for (;;) {
      const at = s * 4;
      const first = table[at + FIRST]!;
      if (first === -1) {
        table[at + FIRST] = i;
        table[at + CURSOR] = i;
        table[at + KEY1] = k1;
        table[at + KEY2] = k2;
        next[i] = -1;
        break;
      }
      if (table[at + KEY1] === k1 && table[at + KEY2] === k2) {
        next[i] = first;
        table[at + FIRST] = i;
        table[at + CURSOR] = i;
        break;
      }
      s = (s + 1) & mask;
    }
  }
  return { side, list, identity, mask, table, next };
}

/** The table offset of the slot holding rows whose key equals row `r` of the other side, or -1. */
function findSlot(index: RowIndex, ctx: MatchContext, r: number): number {
  const probe = keysOf(ctx, index.side === 'E' ? 'A' : 'E');
  const k1 = probe.h1[r]!;
  const k2 = probe.h2[r]!;
  const table = index.table;
  let s = k1 & index.mask;
  for (;;) {
    const at = s * 4;
    if (table[at + FIRST] === -1) return -1;
    if (table[at + KEY1] === k1 && table[at + KEY2] === k2) return at;
    s = (s + 1) & index.mask;
  }
}

function equalAcross(ctx: MatchContext, index: RowIndex, local: number, probe: number): boolean {
  const r = index.list[local]!;
  return index.side === 'A'
    ? rowsEqual(ctx.E, ctx.A, ctx.pairs, ctx.tol, probe, r)
    : rowsEqual(ctx.E, ctx.A, ctx.pairs, ctx.tol, r, probe);
}

function windowHalfWidth(v: number, tol: Tolerance): number {
  if (tol.rtol >= 1) return Infinity;
  const d = Math.max(tol.atol, (tol.rtol * Math.abs(v)) / (1 - tol.rtol));
  return d * (1 + 1e-9) + 1e-300;
}

function buildGroups(ctx: MatchContext, index: RowIndex): ToleranceGroups {
  const gk = groupKeysOf(ctx, index.side);
  const skip = unmatchable(ctx, index.side);
  const n = index.list.length;
  const cap = nextPow2(n * 2);
  const mask = cap - 1;
  const slotRep = new Int32Array(cap).fill(-1);
  const slotGroup = new Int32Array(cap).fill(-1);
  const groupOf = new Int32Array(n).fill(-1);
  let groupCount = 0;
  for (let i = 0; i < n; i++) {
    const r = index.list[i]!;
    if (skip && skip[r]) continue;
    const k1 = gk.h1[r]!;
    const k2 = gk.h2[r]!;
    let s = k1 & mask;
    for (;;) {
      const rep = slotRep[s]!;
      if (rep === -1) {
        slotRep[s] = i;
        slotGroup[s] = groupCount++;
        break;
      }
      const rr = index.list[rep]!;
      if (gk.h1[rr] === k1 && gk.h2[rr] === k2) break;
      s = (s + 1) & mask;
    }
    groupOf[i] = slotGroup[s]!;
  }
  const start = new Int32Array(groupCount + 1);
  for (let i = 0; i < n; i++) if (groupOf[i]! >= 0) start[groupOf[i]! + 1]!++;
  for (let g = 0; g < groupCount; g++) start[g + 1]! += start[g]!;
  const fill = start.slice(0, groupCount);
  const members = new Int32Array(start[groupCount]!);
  for (let i = 0; i < n; i++) {
    const g = groupOf[i]!;
    if (g >= 0) members[fill[g]!++] = i;
  }
  return {
    mask,
    slotRep,
    slotGroup,
    start,
    members,
    values: new Float64Array(members.length),
    nanStart: new Int32Array(groupCount),
    windowPair: new Int32Array(groupCount).fill(-1),
    sorted: new Uint8Array(groupCount),
  };
}

function cellOf(ctx: MatchContext, side: 'E' | 'A', row: number, pairIndex: number): Cell {
  const pair = ctx.pairs[pairIndex]!;
  return side === 'E' ? ctx.E.rows[row]![pair.ei]! : ctx.A.rows[row]![pair.ai]!;
}

function kindOf(ctx: MatchContext, side: 'E' | 'A', pairIndex: number): ColumnPair['ec']['kind'] {
  const pair = ctx.pairs[pairIndex]!;
  return (side === 'E' ? pair.ec : pair.ac).kind;
}

/** Sort one group by its most selective numeric tolerant column (on first use). */
function prepareGroup(ctx: MatchContext, index: RowIndex, groups: ToleranceGroups, g: number): void {
  if (groups.sorted[g]) return;
  groups.sorted[g] = 1;
  const from = groups.start[g]!;
  const to = groups.start[g + 1]!;
  const side = index.side;
  let best = -1;
  let bestDistinct = 0;
  const sample = Math.min(to - from, 64);
  for (const p of ctx.tolerantPairs) {
    const seen = new Set<number>();
    for (let k = 0; k < sample; k++) {
      const row = index.list[groups.members[from + Math.floor((k * (to - from)) / sample)]!]!;
      const v = numericValue(kindOf(ctx, side, p), cellOf(ctx, side, row, p));
      if (v === v) seen.add(v);
    }
    if (seen.size > bestDistinct) {
      bestDistinct = seen.size;
      best = p;
    }
  }
  groups.windowPair[g] = best;
  if (best < 0) {
    groups.nanStart[g] = from;
    return;
  }
  const kind = kindOf(ctx, side, best);
  const local = groups.members.subarray(from, to);
  const vals = new Float64Array(to - from);
  for (let k = 0; k < local.length; k++) vals[k] = numericValue(kind, cellOf(ctx, side, index.list[local[k]!]!, best));
  const order = Array.from({ length: local.length }, (_, k) => k);
  order.sort((x, y) => {
    const a = vals[x]!;
    const b = vals[y]!;
    if (a !== a) return b !== b ? x - y : 1;
    if (b !== b) return -1;
    return a < b ? -1 : a > b ? 1 : x - y;
  });
  const sortedMembers = order.map((k) => local[k]!);
  let nan = to;
  for (let k = 0; k < order.length; k++) {
    const v = vals[order[k]!]!;
    groups.values[from + k] = v;
    if (v !== v && nan === to) nan = from + k;
  }
  local.set(sortedMembers);
  groups.nanStart[g] = nan;
}

function lowerBound(values: Float64Array, from: number, to: number, x: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function upperBound(values: Float64Array, from: number, to: number, x: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The positions in `groups.members` that may hold a row equal to `probe` (a row of the other side): [from, to). */
function windowOf(ctx: MatchContext, index: RowIndex, probe: number, out: Int32Array): boolean {
  if (!index.groups) index.groups = buildGroups(ctx, index);
  const groups = index.groups;
  const probeSide = index.side === 'E' ? 'A' : 'E';
  const gk = groupKeysOf(ctx, probeSide);
  const own = groupKeysOf(ctx, index.side);
  const k1 = gk.h1[probe]!;
  const k2 = gk.h2[probe]!;
  let s = k1 & groups.mask;
  for (;;) {
    const rep = groups.slotRep[s]!;
    if (rep === -1) return false;
    const rr = index.list[rep]!;
    if (own.h1[rr] === k1 && own.h2[rr] === k2) break;
    s = (s + 1) & groups.mask;
  }
  const g = groups.slotGroup[s]!;
  prepareGroup(ctx, index, groups, g);
  const from = groups.start[g]!;
  const to = groups.start[g + 1]!;
  const p = groups.windowPair[g]!;
  if (p < 0) {
    out[0] = from;
    out[1] = to;
    return true;
  }
  const v = numericValue(kindOf(ctx, probeSide, p), cellOf(ctx, probeSide, probe, p));
  const nan = groups.nanStart[g]!;
  if (v !== v) {
    out[0] = nan;
    out[1] = to;
    return true;
  }
  const d = windowHalfWidth(v, ctx.tol);
  out[0] = lowerBound(groups.values, from, nan, v - d);
  out[1] = upperBound(groups.values, from, nan, v + d);
  return true;
}

export interface ListMatch {
  /** For each position of the expected list, the matched position of the actual list, or -1. */
  matchE: Int32Array;
  matchA: Int32Array;
  matched: number;
  /** Pairs found by the tolerance phase (not exact-hash equal). */
  toleranceMatched: number;
  index: RowIndex;
}

const MAX_AUGMENT_DEPTH = 256;

/** Maximum bag matching between expected rows `eList` and actual rows `aList`. */
export function matchLists(ctx: MatchContext, eList: Int32Array, aList: Int32Array, identity = false): ListMatch {
  const index = buildIndex(ctx, 'A', aList, identity);
  const nE = eList.length;
  const matchE = new Int32Array(nE).fill(-1);
  const matchA = new Int32Array(aList.length).fill(-1);
  const skip = ctx.eUnmatchable;
  const { table, next } = index;
  const { E, A, pairs, tol } = ctx;
  let matched = 0;
  for (let i = 0; i < nE; i++) {
    const er = identity ? i : eList[i]!;
    if (skip && skip[er]) continue;
    const at = findSlot(index, ctx, er);
    if (at < 0) continue;
    // The cursor is the first entry not yet matched (entries behind it may be matched out of turn after a collision).
    for (let j = table[at + CURSOR]!, first = true; j !== -1; j = next[j]!, first = false) {
      if (!first && matchA[j] !== -1) continue;
      if (rowsEqual(E, A, pairs, tol, er, identity ? j : aList[j]!)) {
        matchE[i] = j;
        matchA[j] = i;
        matched++;
        if (table[at + CURSOR] === j) {
          let c = next[j]!;
          while (c !== -1 && matchA[c] !== -1) c = next[c]!;
          table[at + CURSOR] = c;
        }
        break;
      }
    }
  }
  const result: ListMatch = { matchE, matchA, matched, toleranceMatched: 0, index };
  if (ctx.tolerantPairs.length > 0 && matched < nE && matched < aList.length) toleranceMatch(ctx, eList, aList, result);
  return result;
}

function toleranceMatch(ctx: MatchContext, eList: Int32Array, aList: Int32Array, result: ListMatch): void {
  const { index, matchE, matchA } = result;
  const window = new Int32Array(2);
  const skip = ctx.eUnmatchable;
  const budget = ctx.budget;
  // Greedy: each free expected row takes the first free actual row in its window.
  for (let i = 0; i < eList.length; i++) {
    if (matchE[i] !== -1) continue;
    const er = eList[i]!;
    if ((skip && skip[er]) || !windowOf(ctx, index, er, window)) continue;
    const members = index.groups!.members;
    for (let k = window[0]!; k < window[1]!; k++) {
      const j = members[k]!;
      if (matchA[j] !== -1) continue;
      if (budget.left-- <= 0) {
        budget.exhausted = true;
        return;
      }
      if (rowsEqual(ctx.E, ctx.A, ctx.pairs, ctx.tol, er, aList[j]!)) {
        matchE[i] = j;
        matchA[j] = i;
        result.matched++;
        result.toleranceMatched++;
        break;
      }
    }
  }
  if (result.matched === eList.length || result.matched === aList.length) return;
  // Augmenting paths for what is left (Kuhn), so the matching is maximum.
  const visited = new Int32Array(aList.length);
  let stamp = 0;
  const augment = (i: number, depth: number): boolean => {
    const er = eList[i]!;
    const w = new Int32Array(2);
    if (!windowOf(ctx, index, er, w)) return false;
    const members = index.groups!.members;
    for (let k = w[0]!; k < w[1]!; k++) {
      const j = members[k]!;
      if (visited[j] === stamp) continue;
      visited[j] = stamp;
      if (budget.left-- <= 0) {
        budget.exhausted = true;
        return false;
      }
      if (!rowsEqual(ctx.E, ctx.A, ctx.pairs, ctx.tol, er, aList[j]!)) continue;
      const holder = matchA[j]!;
      if (holder === -1 || (depth < MAX_AUGMENT_DEPTH && augment(holder, depth + 1))) {
        matchA[j] = i;
        matchE[i] = j;
        return true;
      }
    }
    return false;
  };
  for (let i = 0; i < eList.length; i++) {
    if (matchE[i] !== -1) continue;
    if (skip && skip[eList[i]!]) continue;
    stamp++;
    if (augment(i, 0)) {
      result.matched++;
      result.toleranceMatched++;
    }
    if (budget.exhausted) return;
  }
}

/**
 * Position in `index.list` of some row equal to `probe` (a row of the other
 * side), matched or not, or -1. Used for set semantics and duplicate counts.
 */
export function findEqual(ctx: MatchContext, index: RowIndex, probe: number): number {
  const skip = unmatchable(ctx, index.side === 'E' ? 'A' : 'E');
  if (skip && skip[probe]) return -1;
  const s = findSlot(index, ctx, probe);
  if (s >= 0) {
    for (let j = index.table[s + FIRST]!; j !== -1; j = index.next[j]!) if (equalAcross(ctx, index, j, probe)) return j;
  }
  if (ctx.tolerantPairs.length === 0) return -1;
  const w = new Int32Array(2);
  if (!windowOf(ctx, index, probe, w)) return -1;
  const members = index.groups!.members;
  for (let k = w[0]!; k < w[1]!; k++) {
    if (ctx.budget.left-- <= 0) {
      ctx.budget.exhausted = true;
      return -1;
    }
    if (equalAcross(ctx, index, members[k]!, probe)) return members[k]!;
  }
  return -1;
}

/** How many rows of `index` equal `probe` (exact chains plus the tolerance window). */
export function countEqual(ctx: MatchContext, index: RowIndex, probe: number, limit = 1_000_000): number {
  const seen = new Set<number>();
  const s = findSlot(index, ctx, probe);
  if (s >= 0) {
    for (let j = index.table[s + FIRST]!; j !== -1 && seen.size < limit; j = index.next[j]!)
      if (equalAcross(ctx, index, j, probe)) seen.add(j);
  }
  if (ctx.tolerantPairs.length > 0) {
    const w = new Int32Array(2);
    if (windowOf(ctx, index, probe, w)) {
      const members = index.groups!.members;
      for (let k = w[0]!; k < w[1]! && seen.size < limit; k++) if (equalAcross(ctx, index, members[k]!, probe)) seen.add(members[k]!);
    }
  }
  return seen.size;
}

/** Identity list 0..n-1. */
export function allRows(n: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

/**
 * Bag equality of two short lists by maximum matching over all pairs (used
 * for ties in the order check, where runs are usually a handful of rows).
 * Returns the first position of `aList` left unmatched, or -1 when equal.
 */
export function smallBagDiff(ctx: MatchContext, eList: ArrayLike<number>, aList: ArrayLike<number>): number {
  const n = eList.length;
  if (n !== aList.length) return Math.min(n, aList.length);
  const matchA = new Int32Array(n).fill(-1);
  const matchE = new Int32Array(n).fill(-1);
  const visited = new Int32Array(n);
  let stamp = 0;
  const equal = (i: number, j: number) => rowsEqual(ctx.E, ctx.A, ctx.pairs, ctx.tol, eList[i]!, aList[j]!);
  const augment = (i: number): boolean => {
    for (let j = 0; j < n; j++) {
      if (visited[j] === stamp || !equal(i, j)) continue;
      visited[j] = stamp;
      if (matchA[j] === -1 || augment(matchA[j]!)) {
        matchA[j] = i;
        matchE[i] = j;
        return true;
      }
    }
    return false;
  };
  for (let i = 0; i < n; i++) {
    // Fast path: the same position.
    if (matchA[i] === -1 && equal(i, i)) {
      matchA[i] = i;
      matchE[i] = i;
      continue;
    }
    stamp++;
    augment(i);
  }
  for (let j = 0; j < n; j++) if (matchA[j] === -1) return j;
  return -1;
}
