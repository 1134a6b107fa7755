/**
 * The comparison's row alignment, row by row, for showing whole results side
 * by side: which rows have an equal partner, which were paired by shared cells
 * (and in which cells they differ), and which have no partner at all. It is
 * read off the very matching `compareResults` made, so the marks a viewer
 * shows agree with the verdict (no second, looser comparison in the UI).
 */
import type { Mapping } from './alignment.ts';
import type { CellPairs } from './cell-align.ts';
import type { Side } from './side.ts';
import { cellsEqual, type Tolerance } from './value-policy.ts';

/** An equal row is on the other side (a bag partner, or under set semantics any equal row). */
export const ROW_EQUAL = 0;
/**
 * No equal row; paired with a row of the other side (by shared cells, or, when both sides
 * have as many rows without an equal, in order), differing in `cells`.
 */
export const ROW_CHANGED = 1;
/** No equal row and no partner: missing from the actual result (expected side) or extra in it (actual side). */
export const ROW_UNMATCHED = 2;
export type RowStatus = typeof ROW_EQUAL | typeof ROW_CHANGED | typeof ROW_UNMATCHED;

export interface RowDiffSide {
  /** One status per row of this side (ROW_EQUAL, ROW_CHANGED, ROW_UNMATCHED). */
  status: Uint8Array;
  /** The partner row on the other side (equal or changed), -1 when none is recorded. */
  partner: Int32Array;
  /** For changed rows: this side's column indexes whose cells differ from the partner's. */
  cells: Record<number, number[]>;
  changed: number;
  unmatched: number;
}

export interface RowDiff {
  expected: RowDiffSide;
  actual: RowDiffSide;
  /** Expected column → actual column pairs the rows were compared on. */
  mapping: [number, number][];
  /** Expected columns without a partner, actual columns left over (whole columns differ). */
  missingColumns: number[];
  extraColumns: number[];
  /** Bag (multiplicity counts) or set semantics. */
  basis: 'bag' | 'set';
  /**
   * The cell pairing looked at only the first max_rows_for_cell_alignment
   * unmatched rows per side: rows past it are unmatched without a partner.
   */
  cellPairingCapped: boolean;
}

export interface RowDiffInput {
  E: Side;
  A: Side;
  mapping: Mapping;
  tol: Tolerance;
  setMode: boolean;
  /** The bag matching: expected row → actual row or -1, and back. */
  matchE: Int32Array;
  matchA: Int32Array;
  /** Rows without an equal under the comparison's semantics (bag residue, or set residue). */
  residueE: Int32Array;
  residueA: Int32Array;
  /** The cell-level pairing of the residue. */
  pairs: CellPairs;
}

function side(n: number): RowDiffSide {
  return { status: new Uint8Array(n), partner: new Int32Array(n).fill(-1), cells: {}, changed: 0, unmatched: 0 };
}

export function buildRowDiff(input: RowDiffInput): RowDiff {
  const { E, A, mapping, tol, pairs } = input;
  const expected = side(E.n);
  const actual = side(A.n);
  for (let i = 0; i < E.n; i++) expected.partner[i] = input.matchE[i] ?? -1;
  for (let j = 0; j < A.n; j++) actual.partner[j] = input.matchA[j] ?? -1;
  // Under set semantics a row left over by the bag matching may still have an equal row: only the set residue differs.
  for (const r of input.residueE) {
    expected.status[r] = ROW_UNMATCHED;
    expected.partner[r] = -1;
  }
  for (const r of input.residueA) {
    actual.status[r] = ROW_UNMATCHED;
    actual.partner[r] = -1;
  }
  // Pairs made by shared cells are one changed row. Pairs made of what was left (in order) are
  // changed rows only when both residues are the same size, so every row has its counterpart
  // (a one-row answer with a wrong value); otherwise they are arbitrary and stay missing / extra.
  const oneToOne = input.residueE.length === input.residueA.length && !pairs.capped;
  for (let k = 0; k < pairs.count; k++) {
    if (!pairs.byContent[k] && !oneToOne) continue;
    const er = pairs.e[k]!;
    const ar = pairs.a[k]!;
    const eCells: number[] = [];
    const aCells: number[] = [];
    for (const [ei, ai] of mapping) {
      if (!cellsEqual(E.columns[ei]!, E.rows[er]![ei] ?? null, A.columns[ai]!, A.rows[ar]![ai] ?? null, tol)) {
        eCells.push(ei);
        aCells.push(ai);
      }
    }
    expected.status[er] = ROW_CHANGED;
    expected.partner[er] = ar;
    expected.cells[er] = eCells;
    actual.status[ar] = ROW_CHANGED;
    actual.partner[ar] = er;
    actual.cells[ar] = aCells;
  }
  for (const s of [expected, actual]) {
    for (const v of s.status) {
      if (v === ROW_CHANGED) s.changed++;
      else if (v === ROW_UNMATCHED) s.unmatched++;
    }
  }
  const usedE = new Set(mapping.map(([i]) => i));
  const usedA = new Set(mapping.map(([, j]) => j));
  return {
    expected,
    actual,
    mapping: mapping.map(([i, j]) => [i, j]),
    missingColumns: E.columns.map((_, i) => i).filter((i) => !usedE.has(i)),
    extraColumns: A.columns.map((_, j) => j).filter((j) => !usedA.has(j)),
    basis: input.setMode ? 'set' : 'bag',
    cellPairingCapped: pairs.capped,
  };
}
