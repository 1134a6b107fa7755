/**
 * compareWithRowDiff: the row-by-row alignment behind the full-result view
 * agrees with the comparison (same verdict, same witnesses) and marks exactly
 * the differing cells and the rows without a partner.
 */
import { describe, expect, test } from 'vitest';
import {
  compareResults,
  compareWithRowDiff,
  ROW_CHANGED,
  ROW_EQUAL,
  ROW_UNMATCHED,
  type RowDiffSide,
} from '../../src/core/result/index.ts';
import type { Cell } from '../../src/core/value/kind.ts';
import { col, table } from './helpers.ts';

const cols = [col('id', 'integer'), col('name', 'text'), col('amount', 'decimal')];
const rowsOf = (n: number): Cell[][] => Array.from({ length: n }, (_, i) => [i, `n${i}`, `${i}.50`]);
const statuses = (s: RowDiffSide, want: number) => [...s.status.keys()].filter((i) => s.status[i] === want);

describe('compareWithRowDiff', () => {
  test('equal results: every row equal, partners recorded, same comparison as compareResults', () => {
    const e = table(cols, rowsOf(50));
    const a = table(cols, [...rowsOf(50)].reverse());
    const { comparison, rows } = compareWithRowDiff(e, a);
    expect(comparison).toEqual(compareResults(e, a));
    expect(comparison.result_equality_family.mode_pass).toBe(true);
    expect(rows.expected.changed + rows.expected.unmatched + rows.actual.changed + rows.actual.unmatched).toBe(0);
    expect(rows.expected.partner[0]).toBe(49);
    expect(rows.actual.partner[49]).toBe(0);
  });

  test('one differing cell deep in a large result is a changed row pair with that one cell', () => {
    const e = table(cols, rowsOf(20_000));
    const changed = rowsOf(20_000);
    changed[15_321]![2] = '9999.00';
    const { comparison, rows } = compareWithRowDiff(e, table(cols, changed));
    expect(comparison.result_equality_family.mode_pass).toBe(false);
    expect(statuses(rows.expected, ROW_CHANGED)).toEqual([15_321]);
    expect(statuses(rows.actual, ROW_CHANGED)).toEqual([15_321]);
    expect(rows.expected.cells[15_321]).toEqual([2]);
    expect(rows.actual.cells[15_321]).toEqual([2]);
    expect(rows.expected.partner[15_321]).toBe(15_321);
    expect(rows.expected.unmatched + rows.actual.unmatched).toBe(0);
    // The report's witness names the same row and column.
    const witness = comparison.reasons.find((r) => r.code === 'value_mismatch');
    expect(
      witness && witness.code === 'value_mismatch'
        ? [witness.expected_row.position, witness.column.expected_index]
        : null,
    ).toEqual([15_321, 2]);
  });

  test('rows missing from and extra in the candidate are unmatched on their side', () => {
    const e = table(cols, rowsOf(100));
    const a = table(cols, [...rowsOf(100).filter((r) => r[0] !== 7 && r[0] !== 70), [500, 'zz', '1.00']]);
    const { rows } = compareWithRowDiff(e, a);
    // 2 missing, 1 extra; the extra row shares no cell with the missing ones, so nothing is "changed".
    expect(statuses(rows.expected, ROW_UNMATCHED)).toEqual([7, 70]);
    expect(statuses(rows.actual, ROW_UNMATCHED)).toEqual([98]);
    expect(rows.expected.changed).toBe(0);
    expect(statuses(rows.actual, ROW_EQUAL).length).toBe(98);
  });

  test('a one-row answer with a wrong value: the rows are a changed pair, not missing and extra', () => {
    const c = [col('revenue', 'decimal')];
    const { comparison, rows } = compareWithRowDiff(table(c, [['100.00']]), table(c, [['90.00']]));
    const witness = comparison.reasons.find((r) => r.code === 'value_mismatch');
    expect(witness && witness.code === 'value_mismatch' ? witness.pairing : null).toBe('leftover');
    expect(rows.expected.status[0]).toBe(ROW_CHANGED);
    expect(rows.expected.cells[0]).toEqual([0]);
    expect(rows.actual.cells[0]).toEqual([0]);
  });

  test('a changed row whose partner differs in two cells under float tolerance', () => {
    const fc = [col('k', 'text'), col('x', 'float'), col('y', 'float')];
    const e = table(fc, [
      ['a', 1, 2],
      ['b', 3, 4],
      ['c', 5, 6],
    ]);
    const a = table(fc, [
      ['a', 1 + 1e-12, 2],
      ['b', 3.5, 4.5],
      ['c', 5, 6],
    ]);
    const { comparison, rows } = compareWithRowDiff(e, a);
    expect(comparison.result_equality_family.mode_pass).toBe(false);
    // Row a is equal within the default tolerance; only row b differs, in x and y.
    expect(statuses(rows.expected, ROW_CHANGED)).toEqual([1]);
    expect(rows.expected.cells[1]).toEqual([1, 2]);
  });

  test('reordered columns: cells are reported in each side’s own column indexes', () => {
    const e = table(cols, rowsOf(10));
    const swapped = [col('amount', 'decimal'), col('id', 'integer'), col('name', 'text')];
    const ar = rowsOf(10).map(([i, n, m]) => [m!, i!, n!]);
    ar[3]![2] = 'other';
    const { rows } = compareWithRowDiff(e, table(swapped, ar));
    expect(rows.mapping).toEqual([
      [0, 1],
      [1, 2],
      [2, 0],
    ]);
    expect(rows.expected.cells[3]).toEqual([1]);
    expect(rows.actual.cells[3]).toEqual([2]);
  });

  test('a missing column: rows compared on the mapped columns, the column reported', () => {
    const e = table(cols, rowsOf(5));
    const a = table(
      cols.slice(0, 2),
      rowsOf(5).map((r) => r.slice(0, 2)),
    );
    const { rows } = compareWithRowDiff(e, a);
    expect(rows.missingColumns).toEqual([2]);
    expect(rows.extraColumns).toEqual([]);
    expect(rows.expected.unmatched + rows.expected.changed).toBe(0);
  });

  test('set semantics: a duplicated row is not a difference; a new row is', () => {
    const e = table(cols, rowsOf(4));
    const a = table(cols, [...rowsOf(4), rowsOf(4)[2]!, [9, 'n9', '9.50']]);
    const { comparison, rows } = compareWithRowDiff(e, a, { set_semantics: true });
    expect(rows.basis).toBe('set');
    expect(comparison.result_equality_family.mode_pass).toBe(false);
    expect(statuses(rows.actual, ROW_UNMATCHED)).toEqual([5]);
    expect(rows.actual.status[4]).toBe(ROW_EQUAL);
  });

  test('the cell pairing cap is reported; rows past it stay unmatched', () => {
    const e = table(cols, rowsOf(30));
    const a = table(
      cols,
      rowsOf(30).map(([i, n, m]) => [i!, `${String(n)}x`, m!]),
    );
    const { rows } = compareWithRowDiff(e, a, { max_rows_for_cell_alignment: 10 });
    expect(rows.cellPairingCapped).toBe(true);
    expect(rows.expected.changed).toBe(10);
    expect(rows.expected.unmatched).toBe(20);
  });
});
