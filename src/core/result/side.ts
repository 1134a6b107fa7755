/**
 * One side of a comparison (the expected or the actual result) with its
 * per-column hashes computed once and cached, and pairs of aligned columns.
 */
import type { Cell, Column, ResultTable } from '../value/kind.ts';
import { hashColumn, SCHEME_DOUBLE, SCHEME_NORMAL, type HashScheme } from './cell-hash.ts';
import { cellsEqual, isTolerantKind, type Tolerance } from './value-policy.ts';

export interface Side {
  readonly columns: readonly Column[];
  readonly rows: readonly (readonly Cell[])[];
  readonly n: number;
  readonly m: number;
  /** Column hashes by `${column}:${scheme}`, computed on first use. */
  readonly hashes: Map<string, Uint32Array>;
  nullCounts?: Int32Array;
}

export function prepareSide(table: ResultTable): Side {
  return { columns: table.columns, rows: table.rows, n: table.rows.length, m: table.columns.length, hashes: new Map() };
}

export function columnHashes(side: Side, index: number, scheme: HashScheme): Uint32Array {
  const key = `${index}:${scheme}`;
  let hashes = side.hashes.get(key);
  if (!hashes) {
    hashes = hashColumn(side.rows, index, side.columns[index]!, scheme);
    side.hashes.set(key, hashes);
  }
  return hashes;
}

/** NULL cells per column (computed once). */
export function nullCounts(side: Side): Int32Array {
  if (!side.nullCounts) {
    const counts = new Int32Array(side.m);
    for (let c = 0; c < side.m; c++) {
      let k = 0;
      for (let r = 0; r < side.n; r++) {
        const v = side.rows[r]![c];
        if (v === null || v === undefined) k++;
      }
      counts[c] = k;
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
  readonly eHash: Uint32Array;
  readonly aHash: Uint32Array;
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
      eHash: columnHashes(E, ei, schemeFor(ec, ac)),
      aHash: columnHashes(A, ai, schemeFor(ac, ec)),
    };
  });
}

/** Are expected row `er` and actual row `ar` equal on every aligned column? */
export function rowsEqual(E: Side, A: Side, pairs: readonly ColumnPair[], tol: Tolerance, er: number, ar: number): boolean {
  const x = E.rows[er]!;
  const y = A.rows[ar]!;
  for (let p = 0; p < pairs.length; p++) {
    const pair = pairs[p]!;
    if (!cellsEqual(pair.ec, x[pair.ei]!, pair.ac, y[pair.ai]!, tol)) return false;
  }
  return true;
}
