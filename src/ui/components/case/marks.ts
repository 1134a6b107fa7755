/**
 * Which cells and rows of the two result samples to highlight, from the
 * comparison's reasons (their witnesses name rows and columns) and, for rows,
 * from the samples themselves (a row with no equal on the other side).
 */
import type { RowDiff } from '../../../core/result/row-diff.ts';
import type { ResultComparison } from '../../../core/result/types.ts';
import type { JsonValue } from '../../../core/value/json-codec.ts';

export interface SideMarks {
  /** "row:column" of differing cells. */
  cells: Set<string>;
  /** Rows with no equal row on the other side (missing from the actual side, or extra in it). */
  rows: Set<number>;
  /** Rows a reason points at (out of order, first differing pair). */
  pointed: Set<number>;
}

export interface Marks {
  expected: SideMarks;
  actual: SideMarks;
}

const empty = (): SideMarks => ({ cells: new Set(), rows: new Set(), pointed: new Set() });

export function cellText(value: JsonValue): string {
  if (value === null) return 'NULL';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** Both samples of a report hold every row of their result. */
export function samplesWhole(ev: {
  expected_sample: { rows: unknown[]; total_rows: number } | null;
  actual_sample: { rows: unknown[]; total_rows: number } | null;
}): boolean {
  return (
    !!ev.expected_sample &&
    !!ev.actual_sample &&
    ev.expected_sample.rows.length === ev.expected_sample.total_rows &&
    ev.actual_sample.rows.length === ev.actual_sample.total_rows
  );
}

/**
 * `whole`: both samples hold every row of their result. Only then can a row without an equal in the
 * other sample be called missing or extra: from capped samples (the first N rows of each side) a
 * result that is merely out of order would look like rows missing from the candidate.
 */
export function computeMarks(
  result: ResultComparison | null,
  expectedRows: JsonValue[][] | null,
  actualRows: JsonValue[][] | null,
  whole = true,
): Marks {
  const marks: Marks = { expected: empty(), actual: empty() };
  for (const reason of result?.reasons ?? []) {
    switch (reason.code) {
      case 'value_mismatch':
      case 'null_mismatch':
      case 'type_mismatch':
        if (reason.expected_row && reason.column.expected_index !== null)
          marks.expected.cells.add(`${reason.expected_row.position}:${reason.column.expected_index}`);
        if (reason.actual_row && reason.column.actual_index !== null)
          marks.actual.cells.add(`${reason.actual_row.position}:${reason.column.actual_index}`);
        break;
      case 'row_count_mismatch':
        if (reason.first_unmatched_expected) marks.expected.rows.add(reason.first_unmatched_expected.position);
        if (reason.first_unmatched_actual) marks.actual.rows.add(reason.first_unmatched_actual.position);
        break;
      case 'order_violation':
        marks.expected.pointed.add(reason.expected_row.position);
        marks.actual.pointed.add(reason.actual_row.position);
        break;
      default:
        break;
    }
  }
  // Rows without an equal on the other side (bag semantics), when both samples are whole enough to say.
  if (whole && expectedRows && actualRows && result && !result.result_equality_family.mode_pass) {
    const key = (row: JsonValue[]) => JSON.stringify(row);
    const count = new Map<string, number>();
    for (const r of actualRows) count.set(key(r), (count.get(key(r)) ?? 0) + 1);
    expectedRows.forEach((r, i) => {
      const n = count.get(key(r)) ?? 0;
      if (n > 0) count.set(key(r), n - 1);
      else marks.expected.rows.add(i);
    });
    const countE = new Map<string, number>();
    for (const r of expectedRows) countE.set(key(r), (countE.get(key(r)) ?? 0) + 1);
    actualRows.forEach((r, i) => {
      const n = countE.get(key(r)) ?? 0;
      if (n > 0) countE.set(key(r), n - 1);
      else marks.actual.rows.add(i);
    });
  }
  return marks;
}

/** Marks of one whole result, read off the comparison's row alignment (`RowDiff`), not recomputed here. */
export interface FullSideMarks {
  /** Per row: ROW_EQUAL, ROW_CHANGED or ROW_UNMATCHED (core/result/row-diff.ts). */
  status: Uint8Array;
  /** Changed rows: the differing column indexes of this side. */
  cells: Record<number, number[]>;
  /** Rows a reason points at (out of order). */
  pointed: Set<number>;
  /** Columns without a partner on the other side. */
  columns: Set<number>;
}

export function fullMarks(
  comparison: ResultComparison,
  rows: RowDiff,
): { expected: FullSideMarks; actual: FullSideMarks } {
  const pointedE = new Set<number>();
  const pointedA = new Set<number>();
  for (const reason of comparison.reasons) {
    if (reason.code !== 'order_violation') continue;
    pointedE.add(reason.expected_row.position);
    pointedA.add(reason.actual_row.position);
  }
  return {
    expected: {
      status: rows.expected.status,
      cells: rows.expected.cells,
      pointed: pointedE,
      columns: new Set(rows.missingColumns),
    },
    actual: {
      status: rows.actual.status,
      cells: rows.actual.cells,
      pointed: pointedA,
      columns: new Set(rows.extraColumns),
    },
  };
}
