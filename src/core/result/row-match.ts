/**
 * Bag (multiset) matching of rows under a column alignment.
 *
 * 1. Exact phase: every row gets a 64-bit key from the hashes of its key
 *    columns (exact columns only, as few as tell rows apart: see
 *    `chooseKeyPairs`), computed on the fly (nothing is stored per cell);
 *    actual rows go into an open-addressing table (one typed array; chains
 *    keep row order); each expected row takes the first unmatched actual row
 *    with the same key that `rowsEqual` confirms on every column. Keys only
 *    propose; equality decides.
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
import { fmix, hashByKind, HASH_NULL, type HashScheme } from './cell-hash.ts';
import { SEARCH_LIMITS } from './limits.ts';
import { rowsEqual, type ColumnPair, type Side } from './side.ts';
import { classOf, EXACT, FLOAT, LIST, STRUCT, toDouble, type Tolerance } from './value-policy.ts';

/** One side's aligned columns (all, or the key columns), laid out for the row-key loop. */
interface KeyLayout {
  columns: ColumnPair['ec'][];
  index: Int32Array;
  scheme: Int32Array;
  tolerant: Uint8Array;
  /** Index into ctx.pairs of each entry. */
  pair: Int32Array;
}

export interface MatchContext {
  E: Side;
  A: Side;
  pairs: ColumnPair[];
  tol: Tolerance;
  /** Every aligned column: group keys of the tolerance phase. */
  eLayout: KeyLayout;
  aLayout: KeyLayout;
  /** The key columns: row keys of the exact phase (see `chooseKeyPairs`). */
  eKeyLayout: KeyLayout;
  aKeyLayout: KeyLayout;
  /** Indices into `pairs` of the key columns. */
  keyPairs: number[];
  /** The keys include tolerant columns (there is no other column): equal rows may then differ in key. */
  keyTolerant: boolean;
  /** Indices into `pairs` of tolerant columns. */
  tolerantPairs: number[];
  /** Rows holding a NULL in an aligned column (only under `sql_semantic`, where they can match nothing). */
  eUnmatchable: Uint8Array | null;
  aUnmatchable: Uint8Array | null;
  budget: { left: number; exhausted: boolean };
}

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

const SEED_1 = 0x9747b28c | 0;
const SEED_2 = 0x2545f491;

function mix1(a: number, k: number): number {
  a ^= Math.imul(rotl(Math.imul(k, 0xcc9e2d51), 15), 0x1b873593);
  return (Math.imul(rotl(a, 13), 5) + 0xe6546b64) | 0;
}

function mix2(b: number, k: number, c: number): number {
  b ^= fmix(k ^ Math.imul(c + 1, 0x9e3779b9));
  return (Math.imul(rotl(b, 17), 0x27d4eb2f) + 0x165667b1) | 0;
}

/**
 * The two 32-bit halves of row `r`'s key on one side, written to `out`.
 * With `group`, numeric cells of tolerant columns contribute only a tag
 * (their values are compared within tolerance): the tolerance phase groups
 * rows by this key.
 */
export function rowKey(
  ctx: MatchContext,
  side: 'E' | 'A',
  r: number,
  out: Int32Array,
  group = false,
  fp: Int32Array | null = null,
): void {
  const layout = group ? (side === 'E' ? ctx.eLayout : ctx.aLayout) : side === 'E' ? ctx.eKeyLayout : ctx.aKeyLayout;
  const row = (side === 'E' ? ctx.E : ctx.A).rows[r]!;
  const { columns, index, scheme, tolerant, pair } = layout;
  const m = columns.length;
  let a = SEED_1;
  let b = SEED_2;
  for (let p = 0; p < m; p++) {
    const cell = row[index[p]!];
    const k =
      group && tolerant[p] ? groupHash(columns[p]!, cell) : hashByKind(columns[p]!, cell, scheme[p] as HashScheme);
    if (fp !== null) {
      // The column's bag-of-values fingerprint and NULL count (see `scanColumn`), for free.
      const q = pair[p]! * 3;
      fp[q] = (fp[q]! + fmix(k ^ 0x5f356495)) | 0;
      fp[q + 1] = (fp[q + 1]! + fmix(Math.imul(k, 0x2c1b3c6d) ^ 0x297a2d39)) | 0;
      if (cell === null || cell === undefined) fp[q + 2]!++;
    }
    a = mix1(a, k);
    b = mix2(b, k, p);
  }
  out[0] = fmix(a ^ m);
  out[1] = fmix(b ^ (m << 8));
}

function layoutOf(pairs: ColumnPair[], side: 'E' | 'A', chosen: number[]): KeyLayout {
  const selected = chosen.map((i) => pairs[i]!);
  return {
    columns: selected.map((p) => (side === 'E' ? p.ec : p.ac)),
    index: Int32Array.from(selected, (p) => (side === 'E' ? p.ei : p.ai)),
    scheme: Int32Array.from(selected, (p) => (side === 'E' ? p.eScheme : p.aScheme)),
    tolerant: Uint8Array.from(selected, (p) => (p.tolerant ? 1 : 0)),
    pair: Int32Array.from(chosen),
  };
}

const KEY_SAMPLE = 4096;

/**
 * The columns that make up row keys. Equal rows need equal keys, so only
 * columns without tolerance may serve (a float may differ in its last bits).
 * Fewer columns mean less hashing: on a sample of expected rows, columns are
 * added, most distinct first, until the key tells the sampled rows apart as
 * well as all exact columns together. Verification always compares every
 * column, so the choice only affects speed.
 */
export function chooseKeyPairs(E: Side, pairs: ColumnPair[]): number[] {
  const everything = pairs.map((_, i) => i);
  const exact = pairs.map((p, i) => (p.tolerant ? -1 : i)).filter((i) => i >= 0);
  if (exact.length === 0 || E.n === 0) return exact.length > 0 ? exact : everything;
  const size = Math.min(E.n, KEY_SAMPLE);
  const rows = Array.from({ length: size }, (_, k) => Math.floor((k * E.n) / size));
  const hashOf = (i: number) => {
    const pair = pairs[i]!;
    return Int32Array.from(rows, (r) => hashByKind(pair.ec, E.rows[r]![pair.ei], pair.eScheme));
  };
  const hashes = exact.map(hashOf);
  const distinctOf = (combined: Int32Array) => new Set(combined).size;
  const all = new Int32Array(size);
  for (const h of hashes) for (let k = 0; k < size; k++) all[k] = mix1(all[k]!, h[k]!);
  const target = distinctOf(all);
  if (exact.length < pairs.length) {
    // When the exact columns leave many rows alike that floats tell apart, chains of equal keys
    // would be long: key on every column then (last-bit float differences go to the tolerance phase).
    const full = all.slice();
    for (let i = 0; i < pairs.length; i++) {
      if (!pairs[i]!.tolerant) continue;
      const h = hashOf(i);
      for (let k = 0; k < size; k++) full[k] = mix1(full[k]!, h[k]!);
    }
    if (target * 2 < distinctOf(full)) return everything;
  }
  if (exact.length === 1) return exact;
  const distinct = hashes.map(distinctOf);
  const order = exact.map((_, e) => e).sort((x, y) => distinct[y]! - distinct[x]!);
  const chosen: number[] = [];
  const combined = new Int32Array(size);
  for (const e of order) {
    chosen.push(exact[e]!);
    for (let k = 0; k < size; k++) combined[k] = mix1(combined[k]!, hashes[e]![k]!);
    if (distinctOf(combined) >= target) break;
  }
  return chosen.sort((x, y) => x - y);
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
  const all = pairs.map((_, i) => i);
  const keyPairs = chooseKeyPairs(E, pairs);
  return {
    E,
    A,
    pairs,
    tol,
    eLayout: layoutOf(pairs, 'E', all),
    aLayout: layoutOf(pairs, 'A', all),
    eKeyLayout: layoutOf(pairs, 'E', keyPairs),
    aKeyLayout: layoutOf(pairs, 'A', keyPairs),
    keyPairs,
    keyTolerant: keyPairs.some((i) => pairs[i]!.tolerant),
    tolerantPairs,
    eUnmatchable: tol.nullsEqual
      ? null
      : unmatchableRows(
          E,
          pairs.map((p) => p.ei),
        ),
    aUnmatchable: tol.nullsEqual
      ? null
      : unmatchableRows(
          A,
          pairs.map((p) => p.ai),
        ),
    budget: { left: SEARCH_LIMITS.toleranceComparisons, exhausted: false },
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

function groupHash(column: ColumnPair['ec'], cell: Cell | undefined): number {
  if (cell === null || cell === undefined) return HASH_NULL;
  const cls = classOf(column.kind, cell);
  if (isNumericFinite(cls, cell)) return TAG_NUMBER;
  if (cls === LIST || cls === STRUCT) return TAG_NESTED;
  return hashByKind(column, cell, 0);
}

function numericValue(kind: ColumnPair['ec']['kind'], cell: Cell): number {
  if (cell === null || cell === undefined) return NaN;
  const cls = classOf(kind, cell);
  if (!isNumericFinite(cls, cell)) return NaN;
  return toDouble(cell as number | string | bigint);
}

// ---------------------------------------------------------------------------

/**
 * An index over the rows of one side (a list of row numbers): exact keys to
 * chains of rows, and, built on first use, tolerance groups sorted by a
 * numeric column. The exact table interleaves, per slot, the chain's first
 * entry and the two key halves, so a probe touches one cache line; the slot
 * count is 1.5× the rows (no power of two: a multiply maps keys to slots).
 */
export interface RowIndex {
  side: 'E' | 'A';
  list: Int32Array;
  /** True when `list` is 0..n-1 (positions are row numbers). */
  identity: boolean;
  slots: number;
  /** Per slot: [first, key1, key2]; first is a position in `list`, -1 for an empty slot (-2: consumed by matching). */
  table: Int32Array;
  next: Int32Array;
  /** Each slot's first chain entry as built, kept once matching starts consuming `table` heads. */
  firsts: Int32Array | null;
  groups?: ToleranceGroups;
}

interface ToleranceGroups {
  slots: number;
  /** Per slot: [group, key1, key2]; group -1 for an empty slot. */
  table: Int32Array;
  start: Int32Array;
  members: Int32Array;
  values: Float64Array;
  /** Position of the first non-numeric window value in each group (values are sorted, NaN last). */
  nanStart: Int32Array;
  /** Index into ctx.pairs of the window column, or -1 (compare with the whole group). */
  windowPair: Int32Array;
  sorted: Uint8Array;
}

/** Scratch for one row key outside the bulk loops (reused: no allocation per probe). */
const SCRATCH_KEY = new Int32Array(2);

function unmatchable(ctx: MatchContext, side: 'E' | 'A'): Uint8Array | null {
  return side === 'E' ? ctx.eUnmatchable : ctx.aUnmatchable;
}

function slotOf(k1: number, slots: number): number {
  return Math.floor(((k1 >>> 0) * slots) / 4294967296);
}

export function buildIndex(
  ctx: MatchContext,
  side: 'E' | 'A',
  list: Int32Array,
  identity = false,
  fp: Int32Array | null = null,
): RowIndex {
  const skip = unmatchable(ctx, side);
  const n = list.length;
  const slots = Math.max(4, Math.ceil(n * 1.5));
  const table = new Int32Array(slots * 3);
  for (let s = 0; s < slots; s++) table[s * 3] = -1;
  const next = new Int32Array(n);
  const key = new Int32Array(2);
  for (let i = n - 1; i >= 0; i--) {
    const r = identity ? i : list[i]!;
    rowKey(ctx, side, r, key, false, fp);
    if (skip && skip[r]) continue;
    const k1 = key[0]!;
    const k2 = key[1]!;
    let s = slotOf(k1, slots);
    for (;;) {
      const at = s * 3;
      const first = table[at]!;
      if (first === -1) {
        table[at] = i;
        table[at + 1] = k1;
        table[at + 2] = k2;
        next[i] = -1;
        break;
      }
      if (table[at + 1] === k1 && table[at + 2] === k2) {
        next[i] = first;
        table[at] = i;
        break;
      }
      s = s + 1 === slots ? 0 : s + 1;
    }
  }
  return { side, list, identity, slots, table, next, firsts: null };
}

/** The table offset of the slot whose key is `key`, or -1. */
function findSlotByKey(index: RowIndex, key: Int32Array): number {
  const k1 = key[0]!;
  const k2 = key[1]!;
  const table = index.table;
  let s = slotOf(k1, index.slots);
  for (;;) {
    const at = s * 3;
    if (table[at] === -1) return -1;
    if (table[at + 1] === k1 && table[at + 2] === k2) return at;
    s = s + 1 === index.slots ? 0 : s + 1;
  }
}

/** First entry of a slot's full chain (also after matching consumed its head). */
function chainStart(index: RowIndex, at: number): number {
  return index.firsts ? index.firsts[at / 3]! : index.table[at]!;
}

function equalAcross(ctx: MatchContext, index: RowIndex, local: number, probe: number): boolean {
  const r = index.list[local]!;
  return index.side === 'A'
    ? rowsEqual(ctx.E, ctx.A, ctx.pairs, ctx.tol, probe, r)
    : rowsEqual(ctx.E, ctx.A, ctx.pairs, ctx.tol, r, probe);
}

/** Tolerance groups over the rows at `subset` (positions in `index.list`; all when absent). */
function buildGroups(ctx: MatchContext, index: RowIndex, subset: Int32Array | null = null): ToleranceGroups {
  const skip = unmatchable(ctx, index.side);
  const n = subset ? subset.length : index.list.length;
  const slots = Math.max(4, Math.ceil(n * 1.5));
  const table = new Int32Array(slots * 3);
  for (let s = 0; s < slots; s++) table[s * 3] = -1;
  const groupOf = new Int32Array(n).fill(-1);
  const key = new Int32Array(2);
  let groupCount = 0;
  for (let i = 0; i < n; i++) {
    const r = index.list[subset ? subset[i]! : i]!;
    if (skip && skip[r]) continue;
    rowKey(ctx, index.side, r, key, true);
    const k1 = key[0]!;
    const k2 = key[1]!;
    let s = slotOf(k1, slots);
    for (;;) {
      const at = s * 3;
      if (table[at] === -1) {
        table[at] = groupCount++;
        table[at + 1] = k1;
        table[at + 2] = k2;
        break;
      }
      if (table[at + 1] === k1 && table[at + 2] === k2) break;
      s = s + 1 === slots ? 0 : s + 1;
    }
    groupOf[i] = table[s * 3]!;
  }
  const start = new Int32Array(groupCount + 1);
  for (let i = 0; i < n; i++) if (groupOf[i]! >= 0) start[groupOf[i]! + 1]!++;
  for (let g = 0; g < groupCount; g++) start[g + 1]! += start[g]!;
  const fill = start.slice(0, groupCount);
  const members = new Int32Array(start[groupCount]!);
  for (let i = 0; i < n; i++) {
    const g = groupOf[i]!;
    if (g >= 0) members[fill[g]!++] = subset ? subset[i]! : i;
  }
  return {
    slots,
    table,
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

const SAMPLE = new Float64Array(64);
/** Tolerance groups up to this size are scanned whole instead of sorted by a numeric column. */
const SMALL_GROUP = 8;

/** Distinct numeric values among up to 64 evenly spaced members of a group, in one tolerant column. */
function sampledDistinct(
  ctx: MatchContext,
  index: RowIndex,
  groups: ToleranceGroups,
  from: number,
  to: number,
  p: number,
): number {
  const kind = kindOf(ctx, index.side, p);
  const size = Math.min(to - from, SAMPLE.length);
  let k = 0;
  for (let q = 0; q < size; q++) {
    const row = index.list[groups.members[from + Math.floor((q * (to - from)) / size)]!]!;
    const v = numericValue(kind, cellOf(ctx, index.side, row, p));
    if (v === v) SAMPLE[k++] = v;
  }
  const sample = SAMPLE.subarray(0, k).sort();
  let distinct = k > 0 ? 1 : 0;
  for (let q = 1; q < k; q++) if (sample[q] !== sample[q - 1]) distinct++;
  return distinct;
}

/** Ascending with NaN last. */
function before(a: number, b: number): boolean {
  return b !== b ? a === a : a < b;
}

/** Sort one group by its most selective numeric tolerant column (on first use). */
function prepareGroup(ctx: MatchContext, index: RowIndex, groups: ToleranceGroups, g: number): void {
  if (groups.sorted[g]) return;
  groups.sorted[g] = 1;
  const from = groups.start[g]!;
  const to = groups.start[g + 1]!;
  const side = index.side;
  const members = groups.members;
  const values = groups.values;
  // The window column: in a large group the one with the most distinct values, else the first numeric one.
  let best = -1;
  if (to - from > 64) {
    let bestDistinct = 0;
    for (const p of ctx.tolerantPairs) {
      const distinct = sampledDistinct(ctx, index, groups, from, to, p);
      if (distinct > bestDistinct) {
        bestDistinct = distinct;
        best = p;
      }
    }
  } else {
    const row = index.list[members[from]!]!;
    for (const p of ctx.tolerantPairs) {
      const v = numericValue(kindOf(ctx, side, p), cellOf(ctx, side, row, p));
      if (v === v) {
        best = p;
        break;
      }
    }
  }
  groups.windowPair[g] = best;
  if (best < 0) {
    groups.nanStart[g] = from;
    return;
  }
  const kind = kindOf(ctx, side, best);
  for (let k = from; k < to; k++) values[k] = numericValue(kind, cellOf(ctx, side, index.list[members[k]!]!, best));
  if (to - from === 1) {
    groups.nanStart[g] = values[from] === values[from] ? to : from;
    return;
  }
  if (to - from <= 32) {
    // Insertion sort in place (values and members together), NaN last, stable.
    for (let k = from + 1; k < to; k++) {
      const v = values[k]!;
      const m = members[k]!;
      let q = k - 1;
      while (q >= from && before(v, values[q]!)) {
        values[q + 1] = values[q]!;
        members[q + 1] = members[q]!;
        q--;
      }
      values[q + 1] = v;
      members[q + 1] = m;
    }
  } else {
    const vals = values.slice(from, to);
    const order = argsortDoubles(vals);
    const local = members.slice(from, to);
    for (let k = 0; k < order.length; k++) {
      values[from + k] = vals[order[k]!]!;
      members[from + k] = local[order[k]!]!;
    }
  }
  let nan = to;
  for (let k = from; k < to; k++) {
    if (values[k] !== values[k]) {
      nan = k;
      break;
    }
  }
  groups.nanStart[g] = nan;
}

/**
 * Stable order of `values` ascending, NaN last: LSD radix sort (4 passes of
 * 16 bits) on the doubles' bits mapped to unsigned order. No comparator calls.
 */
export function argsortDoubles(values: Float64Array): Int32Array {
  const n = values.length;
  if (n < 512) {
    const order = Array.from({ length: n }, (_, k) => k);
    order.sort((x, y) => {
      const a = values[x]!;
      const b = values[y]!;
      if (a !== a) return b !== b ? x - y : 1;
      if (b !== b) return -1;
      return a < b ? -1 : a > b ? 1 : x - y;
    });
    return Int32Array.from(order);
  }
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  const bits = new Uint32Array(values.buffer, values.byteOffset, n * 2);
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (v !== v) {
      hi[i] = 0xffffffff;
      lo[i] = 0xffffffff;
      continue;
    }
    let h = bits[i * 2 + 1]!;
    let l = bits[i * 2]!;
    if (v === 0) {
      h = 0;
      l = 0;
    }
    if (h & 0x80000000) {
      h = ~h >>> 0;
      l = ~l >>> 0;
    } else h = (h | 0x80000000) >>> 0;
    hi[i] = h;
    lo[i] = l;
  }
  let order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  let spare = new Int32Array(n);
  const count = new Int32Array(65536);
  for (let pass = 0; pass < 4; pass++) {
    const words = pass < 2 ? lo : hi;
    const shift = pass % 2 === 0 ? 0 : 16;
    count.fill(0);
    for (let i = 0; i < n; i++) count[(words[order[i]!]! >>> shift) & 0xffff]!++;
    let sum = 0;
    for (let d = 0; d < 65536; d++) {
      const c = count[d]!;
      count[d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const k = order[i]!;
      spare[count[(words[k]! >>> shift) & 0xffff]!++] = k;
    }
    const t = order;
    order = spare;
    spare = t;
  }
  return order;
}

/** The positions in `groups.members` that may hold a row equal to `probe` (a row of the other side): [from, to). */
function windowOf(ctx: MatchContext, index: RowIndex, probe: number, out: Int32Array): boolean {
  if (!index.groups) index.groups = buildGroups(ctx, index);
  const groups = index.groups;
  const probeSide = index.side === 'E' ? 'A' : 'E';
  const key = SCRATCH_KEY;
  rowKey(ctx, probeSide, probe, key, true);
  const k1 = key[0]!;
  const k2 = key[1]!;
  let s = slotOf(k1, groups.slots);
  for (;;) {
    const at = s * 3;
    if (groups.table[at] === -1) return false;
    if (groups.table[at + 1] === k1 && groups.table[at + 2] === k2) break;
    s = s + 1 === groups.slots ? 0 : s + 1;
  }
  const g = groups.table[s * 3]!;
  const from = groups.start[g]!;
  const to = groups.start[g + 1]!;
  if (to - from <= SMALL_GROUP) {
    // A small group is compared whole: no sorting.
    out[0] = from;
    out[1] = to;
    return true;
  }
  prepareGroup(ctx, index, groups, g);
  const p = groups.windowPair[g]!;
  if (p < 0) {
    out[0] = from;
    out[1] = to;
    return true;
  }
  const cell = cellOf(ctx, probeSide, probe, p);
  const v =
    typeof cell === 'number'
      ? cell === Infinity || cell === -Infinity
        ? NaN
        : cell
      : numericValue(kindOf(ctx, probeSide, p), cell);
  const nan = groups.nanStart[g]!;
  if (v !== v) {
    out[0] = nan;
    out[1] = to;
    return true;
  }
  // The window [v − d, v + d] (see windowHalfWidth), computed and searched inline: no boxed doubles.
  const { atol, rtol } = ctx.tol;
  let d = Infinity;
  if (rtol < 1) {
    const r = (rtol * (v < 0 ? -v : v)) / (1 - rtol);
    d = (atol > r ? atol : r) * (1 + 1e-9) + 1e-300;
  }
  const values = groups.values;
  const low = v - d;
  const high = v + d;
  let lo = from;
  let hi = nan;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < low) lo = mid + 1;
    else hi = mid;
  }
  out[0] = lo;
  hi = nan;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! <= high) lo = mid + 1;
    else hi = mid;
  }
  out[1] = lo;
  return true;
}

export interface ListMatch {
  /** For each position of the expected list, the matched position of the actual list, or -1. */
  matchE: Int32Array;
  matchA: Int32Array;
  matched: number;
  /** Pairs found by the tolerance phase (not exact-hash equal). */
  toleranceMatched: number;
  /** Expected positions whose final pair was made by the tolerance phase (null when none). */
  byTolerance: Uint8Array | null;
  /**
   * With tolerant columns, for every matched pair: actual − expected in each tolerant column
   * (ctx.tolerantPairs order; NaN when not two numbers), recorded while both rows are at hand so
   * statistics need not revisit them; `recorded` flags the expected positions that have them.
   */
  deltas: Float64Array | null;
  recorded: Uint8Array | null;
}

/** Record a matched pair's differences in the tolerant columns. */
function recordDeltas(ctx: MatchContext, result: ListMatch, i: number, er: number, ar: number): void {
  const T = ctx.tolerantPairs.length;
  const x = ctx.E.rows[er]!;
  const y = ctx.A.rows[ar]!;
  const deltas = result.deltas!;
  for (let t = 0; t < T; t++) {
    const pair = ctx.pairs[ctx.tolerantPairs[t]!]!;
    const u = x[pair.ei];
    const v = y[pair.ai];
    deltas[i * T + t] = typeof u === 'number' && typeof v === 'number' ? (u === v ? 0 : v - u) : NaN;
  }
  result.recorded![i] = 1;
}

/** The first step of a matching: keys of the expected rows and an index of the actual rows. */
export interface PreparedMatch {
  eList: Int32Array;
  aList: Int32Array;
  identity: boolean;
  eKeys: Int32Array;
  index: RowIndex;
  /** Per aligned column: [fingerprint a, fingerprint b, NULLs] on each side (see `rowKey`). */
  eFp: Int32Array;
  aFp: Int32Array;
}

const MAX_CHAIN_MISSES = 32;
const BLOCK = 64;

/** Hash both sides (row keys, column fingerprints) and index the actual rows. */
export function prepareMatch(ctx: MatchContext, eList: Int32Array, aList: Int32Array, identity = false): PreparedMatch {
  const m = ctx.pairs.length;
  const aFp = new Int32Array(m * 3);
  const eFp = new Int32Array(m * 3);
  const index = buildIndex(ctx, 'A', aList, identity, aFp);
  const eKeys = new Int32Array(eList.length * 2);
  const key = new Int32Array(2);
  for (let i = 0; i < eList.length; i++) {
    rowKey(ctx, 'E', identity ? i : eList[i]!, key, false, eFp);
    eKeys[i * 2] = key[0]!;
    eKeys[i * 2 + 1] = key[1]!;
  }
  return { eList, aList, identity, eKeys, index, eFp, aFp };
}

/**
 * Aligned columns whose bags of values differ for sure (different
 * fingerprints on a column without floats or untyped values): a bag match is
 * then impossible under this alignment.
 */
export function fingerprintsDiffer(ctx: MatchContext, prepared: PreparedMatch): boolean {
  const { eFp, aFp } = prepared;
  return ctx.keyPairs.some(
    (p) =>
      !ctx.pairs[p]!.tolerant &&
      (eFp[p * 3] !== aFp[p * 3] || eFp[p * 3 + 1] !== aFp[p * 3 + 1] || eFp[p * 3 + 2] !== aFp[p * 3 + 2]),
  );
}

/**
 * A sure sign that no bag match exists: some sampled expected row has no
 * equal actual row at all. Sound only when keys have no tolerant column
 * (equal rows then share a key, so the row's chain holds every candidate);
 * otherwise, or when a chain is too long to scan, it says nothing (false).
 */
export function sampleFindsMissingRow(ctx: MatchContext, prepared: PreparedMatch, samples = 32): boolean {
  if (ctx.keyTolerant) return false;
  const { eList, identity, eKeys, index } = prepared;
  const n = eList.length;
  const count = Math.min(samples, n);
  const key = new Int32Array(2);
  for (let k = 0; k < count; k++) {
    const i = Math.floor(((k + 0.5) * n) / count);
    const er = identity ? i : eList[i]!;
    if (ctx.eUnmatchable && ctx.eUnmatchable[er]) return true;
    key[0] = eKeys[i * 2]!;
    key[1] = eKeys[i * 2 + 1]!;
    const at = findSlotByKey(index, key);
    if (at < 0) return true;
    let found = false;
    let scanned = 0;
    for (let j = index.table[at]!; j >= 0 && !found; j = index.next[j]!) {
      if (++scanned > 1000) return false;
      found = rowsEqual(ctx.E, ctx.A, ctx.pairs, ctx.tol, er, identity ? j : index.list[j]!);
    }
    if (!found) return true;
  }
  return false;
}

/** Maximum bag matching between expected rows `eList` and actual rows `aList`. */
export function matchLists(ctx: MatchContext, eList: Int32Array, aList: Int32Array, identity = false): ListMatch {
  return matchPrepared(ctx, prepareMatch(ctx, eList, aList, identity));
}

/** A matching with no pair yet; with tolerant columns, room for each pair's differences. */
function emptyListMatch(ctx: MatchContext, nE: number, nA: number): ListMatch {
  const T = ctx.tolerantPairs.length;
  return {
    matchE: new Int32Array(nE).fill(-1),
    matchA: new Int32Array(nA).fill(-1),
    matched: 0,
    toleranceMatched: 0,
    byTolerance: null,
    deltas: T > 0 ? new Float64Array(nE * T) : null,
    recorded: T > 0 ? new Uint8Array(nE) : null,
  };
}

/** Copy each slot's chain start before the exact phase consumes `table` heads (see `chainStart`). */
function keepChainStarts(index: RowIndex): void {
  const { table, slots } = index;
  const firsts = new Int32Array(slots);
  for (let s = 0; s < slots; s++) firsts[s] = table[s * 3]!;
  index.firsts = firsts;
}

/** For expected positions base..end-1, the table offset of the slot with their key (-1: none) into `at[i - base]`. */
function findBlockSlots(
  eKeys: Int32Array,
  table: Int32Array,
  slots: number,
  base: number,
  end: number,
  at: Int32Array,
): void {
  for (let i = base; i < end; i++) {
    const k1 = eKeys[i * 2]!;
    const k2 = eKeys[i * 2 + 1]!;
    let s = slotOf(k1, slots);
    for (;;) {
      const o = s * 3;
      if (table[o] === -1) {
        at[i - base] = -1;
        break;
      }
      if (table[o + 1] === k1 && table[o + 2] === k2) {
        at[i - base] = o;
        break;
      }
      s = s + 1 === slots ? 0 : s + 1;
    }
  }
}

/** The exact phase, then the tolerance phase, on a prepared matching. */
export function matchPrepared(ctx: MatchContext, prepared: PreparedMatch): ListMatch {
  const { eList, aList, identity, eKeys, index } = prepared;
  const nE = eList.length;
  const result = emptyListMatch(ctx, nE, aList.length);
  const { matchE, matchA } = result;
  const skip = ctx.eUnmatchable;
  const { table, next, slots } = index;
  keepChainStarts(index);
  const { E, A, pairs, tol } = ctx;
  const at = new Int32Array(BLOCK);
  const aRows = A.rows;
  const T = ctx.tolerantPairs.length;
  let touched = 0;
  let matched = 0;
  // In blocks: find every slot of a block first (independent loads overlap), then verify.
  for (let base = 0; base < nE; base += BLOCK) {
    const end = Math.min(nE, base + BLOCK);
    findBlockSlots(eKeys, table, slots, base, end, at);
    // Touch the candidate rows and their cells first: these loads do not depend on each other, so the
    // memory system serves them in parallel and the verification below finds them in cache.
    for (let i = base; i < end; i++) {
      const o = at[i - base]!;
      if (o < 0) continue;
      const j = table[o]!;
      if (j < 0) continue;
      const row = aRows[identity ? j : aList[j]!]!;
      for (let c = 0; c < row.length; c++) {
        const v = row[c];
        if (typeof v === 'string') touched ^= v.length;
        else if (typeof v === 'number') touched ^= v > 0 ? 1 : 0;
      }
    }
    for (let i = base; i < end; i++) {
      const o = at[i - base]!;
      if (o < 0) continue;
      const er = identity ? i : eList[i]!;
      if (skip && skip[er]) continue;
      // The slot's head is the first chain entry not yet matched (matching consumes heads; -2: chain used up).
      // Entries behind the head may have been matched out of turn after a key collision. With tolerant
      // columns a chain may hold rows alike except in floats: after a few misses the row is left to the
      // tolerance phase, which searches such rows by value instead of one by one.
      let misses = 0;
      for (let j = table[o]!, head = true; j >= 0; j = next[j]!, head = false) {
        if (!head && matchA[j] !== -1) continue;
        if (T > 0 && ++misses > MAX_CHAIN_MISSES) break;
        const ar = identity ? j : aList[j]!;
        if (rowsEqual(E, A, pairs, tol, er, ar)) {
          matchE[i] = j;
          matchA[j] = i;
          matched++;
          if (T > 0) recordDeltas(ctx, result, i, er, ar);
          if (head) {
            let c = next[j]!;
            while (c !== -1 && matchA[c] !== -1) c = next[c]!;
            table[o] = c === -1 ? -2 : c;
          }
          break;
        }
      }
    }
  }
  if (touched === 0x7fffffff) matched += 0; // keeps the touch loop from being optimized away
  result.matched = matched;
  if (ctx.tolerantPairs.length > 0 && matched < nE && matched < aList.length)
    toleranceMatch(ctx, eList, aList, identity, result);
  return result;
}

/** A set of 64-bit keys (two int32 halves), open addressing. */
class KeySet {
  private table = new Int32Array(3 * 16).fill(0);
  private slots = 16;
  size = 0;

  private find(k1: number, k2: number): number {
    let s = slotOf(k1, this.slots);
    for (;;) {
      const o = s * 3;
      if (this.table[o] === 0 || (this.table[o + 1] === k1 && this.table[o + 2] === k2)) return o;
      s = s + 1 === this.slots ? 0 : s + 1;
    }
  }

  has(k1: number, k2: number): boolean {
    return this.table[this.find(k1, k2)] === 1;
  }

  add(k1: number, k2: number): void {
    const o = this.find(k1, k2);
    if (this.table[o] === 1) return;
    this.table[o] = 1;
    this.table[o + 1] = k1;
    this.table[o + 2] = k2;
    if (++this.size * 2 > this.slots) {
      const old = this.table;
      this.slots *= 2;
      this.table = new Int32Array(this.slots * 3);
      this.size = 0;
      for (let q = 0; q < old.length; q += 3) if (old[q] === 1) this.add(old[q + 1]!, old[q + 2]!);
    }
  }
}

function freePositions(match: Int32Array): Int32Array {
  let k = 0;
  for (let i = 0; i < match.length; i++) if (match[i] === -1) k++;
  const out = new Int32Array(k);
  k = 0;
  for (let i = 0; i < match.length; i++) if (match[i] === -1) out[k++] = i;
  return out;
}

/**
 * Stage 1 pairs the leftover rows among themselves (greedy in the float
 * window, then augmenting paths). Stage 2, only when rows are still left on
 * both sides, lets augmenting paths run through already matched actual rows
 * of the same groups, so the matching is maximum.
 */
function toleranceMatch(
  ctx: MatchContext,
  eList: Int32Array,
  aList: Int32Array,
  identity: boolean,
  result: ListMatch,
): void {
  const paths = new AugmentingPaths(ctx, eList, aList, identity, result);
  const skip = ctx.eUnmatchable;
  // Expected rows in the order of their first tolerant number: greedy pairing along sorted values
  // is already maximum on one float column (intervals), so augmenting paths stay short.
  const pending: number[] = [];
  for (let i = 0; i < eList.length; i++) if (result.matchE[i] === -1 && !(skip && skip[paths.rowE(i)])) pending.push(i);
  const firstTolerant = ctx.tolerantPairs[0]!;
  const sortValues = Float64Array.from(pending, (i) =>
    numericValue(kindOf(ctx, 'E', firstTolerant), cellOf(ctx, 'E', paths.rowE(i), firstTolerant)),
  );
  const sorted = Array.from(argsortDoubles(sortValues), (k) => pending[k]!);
  const done = () => ctx.budget.exhausted || result.matched === eList.length || result.matched === aList.length;
  // Stage 1: the leftover actual rows only.
  paths.run(sorted, freePositions(result.matchA));
  if (done()) return;
  // Stage 2: every actual row in a group of a still unmatched expected row.
  const keep = reachableActualRows(ctx, paths, eList, aList, result);
  if (keep) paths.run(sorted, keep);
}

/**
 * Stage 2's actual rows: an augmenting path stays in one group and ends at a free actual row, so
 * only groups of a still unmatched expected row that hold a free actual row are searched (null: none).
 */
function reachableActualRows(
  ctx: MatchContext,
  paths: AugmentingPaths,
  eList: Int32Array,
  aList: Int32Array,
  result: ListMatch,
): Int32Array | null {
  const { matchE, matchA } = result;
  const skip = ctx.eUnmatchable;
  const key = new Int32Array(2);
  const wanted = new KeySet();
  for (let i = 0; i < eList.length; i++) {
    if (matchE[i] !== -1 || (skip && skip[paths.rowE(i)])) continue;
    rowKey(ctx, 'E', paths.rowE(i), key, true);
    wanted.add(key[0]!, key[1]!);
  }
  const reachable = new KeySet();
  for (let j = 0; j < aList.length; j++) {
    if (matchA[j] !== -1) continue;
    rowKey(ctx, 'A', paths.rowA(j), key, true);
    if (wanted.has(key[0]!, key[1]!)) reachable.add(key[0]!, key[1]!);
  }
  if (reachable.size === 0) return null;
  const keep: number[] = [];
  for (let j = 0; j < aList.length; j++) {
    rowKey(ctx, 'A', paths.rowA(j), key, true);
    if (reachable.has(key[0]!, key[1]!)) keep.push(j);
  }
  return Int32Array.from(keep);
}

/**
 * Augmenting paths (Kuhn), searched iteratively with an explicit stack: no recursion and no depth
 * limit, so a long chain of float pairings is followed to its end. Each frame scans its row's
 * window twice: for a free equal partner first (greedy), then through matched equal rows. A row is
 * marked visited only once it is known to be equal to the frame's row: a row unequal to one
 * expected row may still be the partner another one needs.
 */
class AugmentingPaths {
  private readonly index: RowIndex;
  private readonly byTolerance: Uint8Array;
  private readonly visited: Int32Array;
  private stamp = 0;
  private readonly w = new Int32Array(2);
  private readonly frameRow: Int32Array;
  private readonly frameAt: Int32Array;
  private readonly frameTo: Int32Array;
  private readonly frameFrom: Int32Array;
  private readonly framePass: Uint8Array;
  private readonly frameVia: Int32Array;

  constructor(
    private readonly ctx: MatchContext,
    private readonly eList: Int32Array,
    private readonly aList: Int32Array,
    private readonly identity: boolean,
    private readonly result: ListMatch,
  ) {
    this.byTolerance = new Uint8Array(eList.length);
    result.byTolerance = this.byTolerance;
    this.index = {
      side: 'A',
      list: aList,
      identity,
      slots: 0,
      table: new Int32Array(0),
      next: new Int32Array(0),
      firsts: null,
    };
    this.visited = new Int32Array(aList.length);
    const depth = aList.length + 2;
    this.frameRow = new Int32Array(depth);
    this.frameAt = new Int32Array(depth);
    this.frameTo = new Int32Array(depth);
    this.frameFrom = new Int32Array(depth);
    this.framePass = new Uint8Array(depth);
    this.frameVia = new Int32Array(depth);
  }

  rowE(i: number): number {
    return this.identity ? i : this.eList[i]!;
  }

  rowA(j: number): number {
    return this.identity ? j : this.aList[j]!;
  }

  /** Augment from each still unmatched expected row in `order`, over the groups of the actual rows `rows`. */
  run(order: readonly number[], rows: Int32Array): void {
    const { result } = this;
    this.index.groups = buildGroups(this.ctx, this.index, rows);
    for (const i of order) {
      if (result.matchE[i] !== -1) continue;
      this.stamp++;
      if (this.augment(i)) {
        result.matched++;
        result.toleranceMatched++;
        if (result.matched === this.eList.length || result.matched === this.aList.length) return;
      }
      if (this.ctx.budget.exhausted) return;
    }
  }

  private push(top: number, i: number): boolean {
    const { w } = this;
    if (!windowOf(this.ctx, this.index, this.rowE(i), w)) return false;
    this.frameRow[top] = i;
    this.frameFrom[top] = w[0]!;
    this.frameAt[top] = w[0]!;
    this.frameTo[top] = w[1]!;
    this.framePass[top] = 0;
    return true;
  }

  private augment(root: number): boolean {
    if (!this.push(0, root)) return false;
    const { ctx, frameAt, frameTo, frameFrom, framePass, frameRow, frameVia, visited } = this;
    const { matchA } = this.result;
    const members = this.index.groups!.members;
    const budget = ctx.budget;
    let top = 1;
    while (top > 0) {
      const f = top - 1;
      if (frameAt[f]! >= frameTo[f]!) {
        if (framePass[f] === 0) {
          framePass[f] = 1;
          frameAt[f] = frameFrom[f]!;
        } else top--;
        continue;
      }
      const j = members[frameAt[f]!++]!;
      const holder = matchA[j]!;
      const pass = framePass[f]!;
      if (pass === 0 ? holder !== -1 : holder === -1 || visited[j] === this.stamp) continue;
      if (budget.left-- <= 0) {
        budget.exhausted = true;
        return false;
      }
      if (!rowsEqual(ctx.E, ctx.A, ctx.pairs, ctx.tol, this.rowE(frameRow[f]!), this.rowA(j))) continue;
      frameVia[f] = j;
      if (pass === 0) {
        this.flip(f);
        return true;
      }
      visited[j] = this.stamp;
      if (this.push(top, holder)) top++;
    }
    return false;
  }

  /** A free partner found: flip the path, every frame takes the row it came through. */
  private flip(f: number): void {
    const { matchE, matchA } = this.result;
    for (let q = f; q >= 0; q--) {
      const ii = this.frameRow[q]!;
      const jj = this.frameVia[q]!;
      matchA[jj] = ii;
      matchE[ii] = jj;
      this.byTolerance[ii] = 1;
      recordDeltas(this.ctx, this.result, ii, this.rowE(ii), this.rowA(jj));
    }
  }
}

/**
 * The probes (rows of the other side) that have no equal row in `index`,
 * matched or not. Exact keys first; for what remains, when columns are
 * tolerant, one scan collects only the index rows in the probes' tolerance
 * groups (no index over every group).
 */
export function rowsWithoutEqual(ctx: MatchContext, index: RowIndex, probes: Int32Array): Int32Array {
  const probeSide = index.side === 'E' ? 'A' : 'E';
  const skip = unmatchable(ctx, probeSide);
  const key = SCRATCH_KEY;
  const left: number[] = [];
  let unsure = false;
  for (const probe of probes) {
    if (skip && skip[probe]) {
      left.push(probe);
      continue;
    }
    rowKey(ctx, probeSide, probe, key);
    const s = index.slots > 0 ? findSlotByKey(index, key) : -1;
    let found = false;
    let scanned = 0;
    if (s >= 0)
      for (let j = chainStart(index, s); j >= 0 && !found; j = index.next[j]!) {
        if (ctx.tolerantPairs.length > 0 && ++scanned > 1000) {
          unsure = true;
          break;
        }
        found = equalAcross(ctx, index, j, probe);
      }
    if (!found) left.push(probe);
  }
  // Without tolerant key columns, equal rows share a key: the chains above held every candidate
  // (unless a long chain was cut short).
  if (left.length === 0 || ctx.tolerantPairs.length === 0 || (!ctx.keyTolerant && !unsure))
    return Int32Array.from(left);
  const wanted = new KeySet();
  for (const probe of left) {
    if (skip && skip[probe]) continue;
    rowKey(ctx, probeSide, probe, key, true);
    wanted.add(key[0]!, key[1]!);
  }
  const keep: number[] = [];
  for (let j = 0; j < index.list.length; j++) {
    rowKey(ctx, index.side, index.list[j]!, key, true);
    if (wanted.has(key[0]!, key[1]!)) keep.push(j);
  }
  const local: RowIndex = { ...index, groups: buildGroups(ctx, index, Int32Array.from(keep)) };
  const w = new Int32Array(2);
  return Int32Array.from(
    left.filter((probe) => {
      if ((skip && skip[probe]) || !windowOf(ctx, local, probe, w)) return true;
      for (let k = w[0]!; k < w[1]!; k++) if (equalAcross(ctx, local, local.groups!.members[k]!, probe)) return false;
      return true;
    }),
  );
}

/**
 * Position in `index.list` of some row equal to `probe` (a row of the other
 * side), matched or not, or -1. Used for set semantics and duplicate counts;
 * `index` must be fresh (not consumed by `matchLists`).
 */
export function findEqual(ctx: MatchContext, index: RowIndex, probe: number): number {
  const probeSide = index.side === 'E' ? 'A' : 'E';
  const skip = unmatchable(ctx, probeSide);
  if (skip && skip[probe]) return -1;
  const key = new Int32Array(2);
  rowKey(ctx, probeSide, probe, key);
  const s = index.slots > 0 ? findSlotByKey(index, key) : -1;
  if (s >= 0) {
    for (let j = chainStart(index, s); j >= 0; j = index.next[j]!) if (equalAcross(ctx, index, j, probe)) return j;
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
  const key = new Int32Array(2);
  rowKey(ctx, index.side === 'E' ? 'A' : 'E', probe, key);
  const s = index.slots > 0 ? findSlotByKey(index, key) : -1;
  if (s >= 0) {
    for (let j = chainStart(index, s); j >= 0 && seen.size < limit; j = index.next[j]!)
      if (equalAcross(ctx, index, j, probe)) seen.add(j);
  }
  if (ctx.tolerantPairs.length > 0) {
    const w = new Int32Array(2);
    if (windowOf(ctx, index, probe, w)) {
      const members = index.groups!.members;
      for (let k = w[0]!; k < w[1]! && seen.size < limit; k++)
        if (equalAcross(ctx, index, members[k]!, probe)) seen.add(members[k]!);
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
