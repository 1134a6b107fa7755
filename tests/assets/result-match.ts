/**
 * A small, strict result matcher for the asset tests, independent of the
 * comparison policy under construction in src/core/result: columns by
 * position, numbers by exact value (floats within 1e-9 relative), a DATE equal
 * to a TIMESTAMP at midnight, other kinds only to themselves, NULL only to NULL; rows as a bag unless order
 * matters.
 */
import { compareDecimal, floatToDecimalText, isDecimalText } from '../../src/core/value/decimal.ts';
import type { Cell, Column, ResultTable } from '../../src/core/value/kind.ts';

function exactNumber(column: Column, cell: Cell): string | null {
  if (typeof cell === 'bigint') return cell.toString();
  if (typeof cell === 'number' && column.kind !== 'float') return floatToDecimalText(cell);
  if (typeof cell === 'string' && column.kind === 'decimal' && isDecimalText(cell)) return cell;
  return null;
}

export function cellsMatch(ec: Column, e: Cell, ac: Column, a: Cell): boolean {
  if (e === null || a === null) return e === a;
  const isNum = (c: Column) => c.kind === 'integer' || c.kind === 'decimal' || c.kind === 'float';
  if (isNum(ec) && isNum(ac)) {
    const [x, y] = [exactNumber(ec, e), exactNumber(ac, a)];
    if (x !== null && y !== null) return compareDecimal(x, y) === 0;
    const [fx, fy] = [Number(e), Number(a)];
    return Math.abs(fx - fy) <= 1e-9 * Math.max(1, Math.abs(fx), Math.abs(fy));
  }
  const temporal = (c: Column) => c.kind === 'date' || c.kind === 'timestamp';
  // Kinds must agree (text is never a date, 1 is never true), except DATE vs TIMESTAMP at midnight.
  if (ec.kind !== ac.kind && !(temporal(ec) && temporal(ac))) return false;
  const text = (c: Column, v: Cell) =>
    c.kind === 'timestamp' && typeof v === 'string' ? v.replace(/ 00:00:00$/, '') : v;
  return text(ec, e) === text(ac, a);
}

function rowsMatch(expected: ResultTable, er: Cell[], actual: ResultTable, ar: Cell[]): boolean {
  return er.every((cell, i) => cellsMatch(expected.columns[i]!, cell, actual.columns[i]!, ar[i]!));
}

/** null when the results agree, otherwise the first difference. */
export function resultMismatch(expected: ResultTable, actual: ResultTable, orderMatters: boolean): string | null {
  if (expected.columns.length !== actual.columns.length)
    return `column count ${actual.columns.length}, expected ${expected.columns.length}`;
  if (expected.rows.length !== actual.rows.length)
    return `row count ${actual.rows.length}, expected ${expected.rows.length}`;
  if (orderMatters) {
    for (let r = 0; r < expected.rows.length; r++)
      if (!rowsMatch(expected, expected.rows[r]!, actual, actual.rows[r]!))
        return `row ${r}: ${JSON.stringify(actual.rows[r], big)}, expected ${JSON.stringify(expected.rows[r], big)}`;
    return null;
  }
  const unused = [...actual.rows];
  for (const row of expected.rows) {
    const i = unused.findIndex((candidate) => rowsMatch(expected, row, actual, candidate));
    if (i < 0) return `no actual row matches expected ${JSON.stringify(row, big)}`;
    unused.splice(i, 1);
  }
  return null;
}

function big(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
