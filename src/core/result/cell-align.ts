/**
 * Cell-level alignment of the rows the bag matching left over: each
 * unmatched expected row is paired with the unmatched actual row sharing the
 * most cells (found through per-column hash postings, not by position), and
 * whatever is left is paired in order. Bounded by max_rows_for_cell_alignment
 * per side. The pairs feed cell_overlap, per-column mismatch rates and the
 * value/null/type witnesses.
 */
import type { MatchContext } from './row-match.ts';
import { pairCellHash, type ColumnPair, type Side } from './side.ts';

/** Postings longer than this are skipped when looking for partners (a value shared by many rows says little). */
const POSTING_LIMIT = 64;

export interface CellPairs {
  /** Expected row, actual row, and 1 when paired by shared cells (0: leftover). */
  e: Int32Array;
  a: Int32Array;
  byContent: Uint8Array;
  count: number;
  examinedE: number;
  examinedA: number;
  capped: boolean;
}

/** Positions of `rows` sorted by the hash of their cell in the pair's actual column, with the sorted hashes. */
function sortedByHash(side: Side, pair: ColumnPair, rows: Int32Array): { order: Int32Array; keys: Int32Array } {
  const hashes = Int32Array.from(rows, (r) => pairCellHash(side, pair, 'A', r));
  const idx = Array.from({ length: rows.length }, (_, i) => i);
  idx.sort((x, y) => hashes[x]! - hashes[y]! || x - y);
  const order = Int32Array.from(idx);
  const keys = Int32Array.from(order, (i) => hashes[i]!);
  return { order, keys };
}

function lowerBound(keys: Int32Array, x: number): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function alignCells(ctx: MatchContext, freeE: Int32Array, freeA: Int32Array, cap: number): CellPairs {
  const UE = freeE.subarray(0, Math.min(cap, freeE.length));
  const UA = freeA.subarray(0, Math.min(cap, freeA.length));
  const capped = UE.length < freeE.length || UA.length < freeA.length;
  const size = Math.min(UE.length, UA.length);
  const out: CellPairs = {
    e: new Int32Array(size),
    a: new Int32Array(size),
    byContent: new Uint8Array(size),
    count: 0,
    examinedE: UE.length,
    examinedA: UA.length,
    capped,
  };
  if (size === 0) return out;
  const postings = ctx.pairs.map((p) => sortedByHash(ctx.A, p, UA));
  const taken = new Uint8Array(UA.length);
  const pairedE = new Uint8Array(UE.length);
  const counts = new Int32Array(UA.length);
  const touched: number[] = [];
  for (let i = 0; i < UE.length && out.count < size; i++) {
    const er = UE[i]!;
    for (let p = 0; p < ctx.pairs.length; p++) {
      const { order, keys } = postings[p]!;
      const h = pairCellHash(ctx.E, ctx.pairs[p]!, 'E', er);
      const from = lowerBound(keys, h);
      let to = from;
      while (to < keys.length && keys[to] === h && to - from <= POSTING_LIMIT) to++;
      if (to - from > POSTING_LIMIT) continue;
      for (let k = from; k < to; k++) {
        const j = order[k]!;
        if (taken[j]) continue;
        if (counts[j] === 0) touched.push(j);
        counts[j]!++;
      }
    }
    let best = -1;
    let bestCount = 0;
    for (const j of touched) {
      const c = counts[j]!;
      if (c > bestCount || (c === bestCount && j < best)) {
        best = j;
        bestCount = c;
      }
      counts[j] = 0;
    }
    touched.length = 0;
    if (best >= 0) {
      taken[best] = 1;
      pairedE[i] = 1;
      out.e[out.count] = er;
      out.a[out.count] = UA[best]!;
      out.byContent[out.count] = 1;
      out.count++;
    }
  }
  let j = 0;
  for (let i = 0; i < UE.length && out.count < size; i++) {
    if (pairedE[i]) continue;
    while (j < UA.length && taken[j]) j++;
    if (j >= UA.length) break;
    taken[j] = 1;
    out.e[out.count] = UE[i]!;
    out.a[out.count] = UA[j]!;
    out.byContent[out.count] = 0;
    out.count++;
  }
  // Report pairs in expected row order (witnesses point at the first differing expected row).
  const order = Array.from({ length: out.count }, (_, k) => k).sort((x, y) => out.e[x]! - out.e[y]!);
  const e = Int32Array.from(order, (k) => out.e[k]!);
  const a = Int32Array.from(order, (k) => out.a[k]!);
  const byContent = Uint8Array.from(order, (k) => out.byContent[k]!);
  return { ...out, e, a, byContent };
}
