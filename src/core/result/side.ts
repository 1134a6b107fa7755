/**
 * One side of a comparison (the expected or the actual result) with its
 * per-column hashes computed once and cached, and pairs of aligned columns.
 */
import type { Cell, Column, ResultTable } from '../value/kind.ts';
import {
  hashByKind,
  scanColumn,
  SCHEME_DOUBLE,
  SCHEME_NORMAL,
  type ColumnSummary,
  type HashScheme,
} from './cell-hash.ts';
import { cellsEqual, isTolerantKind, type Tolerance } from './value-policy.ts';

export interface Side {
  readonly columns: readonly Column[];
  readonly rows: readonly (readonly Cell[])[];
  readonly n: number;
  readonly m: number;
  /** Column fingerprints by `${column}:${scheme}`, computed on first use. */
  readonly summaries: Map<string, ColumnSummary>;
  nullCounts?: Int32Array;
}

export function prepareSide(table: ResultTable): Side {
  return {
    columns: table.columns,
    rows: table.rows,
    n: table.rows.length,
    m: table.columns.length,
    summaries: new Map(),
  };
}

/** A column's NULL count and bag-of-values fingerprint under a hash scheme (one pass, nothing stored per row). */
export function columnSummary(side: Side, index: number, scheme: HashScheme): ColumnSummary {
  const key = `${index}:${scheme}`;
  let summary = side.summaries.get(key);
  if (!summary) {
    summary = scanColumn(side.rows, index, side.columns[index]!, scheme);
    side.summaries.set(key, summary);
  }
  return summary;
}

/** NULL cells per column (computed once). */
export function nullCounts(side: Side): Int32Array {
  if (!side.nullCounts) {
    const counts = new Int32Array(side.m);
    const m = side.m;
    for (let r = 0; r < side.n; r++) {
      const row = side.rows[r]!;
      for (let c = 0; c < m; c++) {
        const v = row[c];
        if (v === null || v === undefined) counts[c]!++;
      }
    }
    side.nullCounts = counts;
  }
  return side.nullCounts;
}

/** A pair of aligned columns: expected column `ei` is compared with actual column `ai`. */
export interface ColumnPair {
  readonly ei: number;
  readonly ai: number;
  readonly ec: Column;
  readonly ac: Column;
  /** Equal cells may hash differently (floats, untyped or nested values): the tolerance phase applies. */
  readonly tolerant: boolean;
  /** Identical non-NULL JavaScript values are equal cells (same kind, or integer with float). */
  readonly identity: boolean;
  readonly eScheme: HashScheme;
  readonly aScheme: HashScheme;
}

/** Exact numbers paired with a float column hash as doubles, so equal values still meet. */
export function schemeFor(own: Column, other: Column): HashScheme {
  const exact = own.kind === 'integer' || own.kind === 'decimal';
  return exact && other.kind === 'float' ? SCHEME_DOUBLE : SCHEME_NORMAL;
}

export function makePairs(E: Side, A: Side, mapping: readonly (readonly [number, number])[]): ColumnPair[] {
  return mapping.map(([ei, ai]) => {
    const ec = E.columns[ei]!;
    const ac = A.columns[ai]!;
    return {
      ei,
      ai,
      ec,
      ac,
      tolerant: isTolerantKind(ec.kind) || isTolerantKind(ac.kind),
      identity:
        ec.kind === ac.kind ||
        ((ec.kind === 'integer' || ec.kind === 'float') && (ac.kind === 'integer' || ac.kind === 'float')),
      eScheme: schemeFor(ec, ac),
      aScheme: schemeFor(ac, ec),
    };
  });
}

/** The hash of the cell of row `r` in the pair's column on one side. */
export function pairCellHash(side: Side, pair: ColumnPair, which: 'E' | 'A', r: number): number {
  return which === 'E'
    ? hashByKind(pair.ec, side.rows[r]![pair.ei], pair.eScheme)
    : hashByKind(pair.ac, side.rows[r]![pair.ai], pair.aScheme);
}

/** Are expected row `er` and actual row `ar` equal on every aligned column? */
export function rowsEqual(
  E: Side,
  A: Side,
  pairs: readonly ColumnPair[],
  tol: Tolerance,
  er: number,
  ar: number,
): boolean {
  const x = E.rows[er]!;
  const y = A.rows[ar]!;
  for (let p = 0; p < pairs.length; p++) {
    const pair = pairs[p]!;
    const u = x[pair.ei]!;
    const v = y[pair.ai]!;
    if (u === v && pair.identity && u !== null && u !== undefined) continue;
    if (!cellsEqual(pair.ec, u, pair.ac, v, tol)) return false;
  }
  return true;
}
