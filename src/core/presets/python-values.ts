/**
 * Cells read the way Python's sqlite3 module hands them to Spider's and
 * BIRD's evaluators: int, float, str, bytes or None, compared with Python's
 * `==` (so 1 == 1.0, '1' != 1) and sorted by `str(x) + str(type(x))`.
 */
import type { Column, Cell } from '../value/kind.ts';

export type PyType = 'int' | 'float' | 'str' | 'bytes' | 'NoneType';

export interface PyValue {
  type: PyType;
  /** Equal exactly when Python's == says so (and so its hash). */
  key: string;
  /** Python's str(x). */
  str: string;
}

/** Python's repr of a float: the shortest round-trip digits, scientific below 1e-4 and from 1e16. */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  // toExponential() without digits gives the shortest digits that round-trip, as Python's repr.
  const [mantissa, e] = Math.abs(x).toExponential().split('e') as [string, string];
  const exponent = Number(e);
  const digits = mantissa.replace('.', '');
  if (exponent < -4 || exponent >= 16)
    return `${sign}${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  if (digits.length <= exponent + 1) return `${sign}${digits.padEnd(exponent + 1, '0')}.0`;
  return `${sign}${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
}

function intValue(v: bigint | number): PyValue {
  const text = typeof v === 'bigint' ? v.toString() : BigInt(v).toString();
  return { type: 'int', key: `n${text}`, str: text };
}

function floatValue(v: number): PyValue {
  // An integral float equals (and hashes as) the int of the same value.
  const key = Number.isFinite(v) && Number.isInteger(v) ? `n${BigInt(v).toString()}` : `f${v}`;
  return { type: 'float', key, str: pythonFloatRepr(v) };
}

function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** One cell as the Python value sqlite3 would have returned. */
export function pyValue(column: Column, cell: Cell): PyValue {
  if (cell === null) return { type: 'NoneType', key: 'N', str: 'None' };
  if (typeof cell === 'bigint') return intValue(cell);
  if (typeof cell === 'number') {
    // A column SQLite typed INTEGER holds ints; REAL holds floats. In a mixed column
    // the engine no longer tells 3 from 3.0: take the integral ones as ints.
    if (column.kind === 'integer') return intValue(cell);
    if (column.kind === 'float' && column.engineType === 'REAL') return floatValue(cell);
    return Number.isInteger(cell) ? intValue(cell) : floatValue(cell);
  }
  if (typeof cell === 'boolean') return intValue(cell ? 1 : 0);
  if (cell instanceof Uint8Array) return { type: 'bytes', key: `b${hex(cell)}`, str: `b'${hex(cell)}'` };
  if (typeof cell === 'string') {
    if (column.kind === 'decimal') return floatValue(Number(cell));
    return { type: 'str', key: `s${cell}`, str: cell };
  }
  const text = JSON.stringify(cell);
  return { type: 'str', key: `s${text}`, str: text };
}

export type PyRow = PyValue[];

export function pyRows(table: { columns: Column[]; rows: Cell[][] }): PyRow[] {
  return table.rows.map((row) =>
    row.map((cell, i) => pyValue(table.columns[i] ?? { name: '', engineType: '', kind: 'other' }, cell)),
  );
}

/** A row as a hashable tuple key (Python's tuple equality). */
export function rowKey(row: PyRow): string {
  return JSON.stringify(row.map((v) => v.key));
}

/** Python compares str by code point; JavaScript's < compares UTF-16 units (same outside astral planes). */
export function pyStrLess(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
