/**
 * Value equality under the disclosed comparison policy (SPEC section 3).
 *
 * A cell's meaning comes from its column kind (see `value/kind.ts`); for kind
 * `other` (SQLite columns mixing storage classes, untyped JSON) it comes from
 * the JavaScript type of the cell. Every cell falls in one value class, and
 * two cells are equal only when their classes may meet:
 *
 * | classes                     | equal when                                            |
 * |-----------------------------|-------------------------------------------------------|
 * | exact number, exact number  | same value: 10 = 10.00 = 10.000, bigint exact          |
 * | float, float or exact number| \|a − b\| ≤ max(atol, rtol · max(\|a\|, \|b\|)); NaN = NaN |
 * | text, text                  | same code units (no trimming, case folding or unicode normalization) |
 * | boolean, boolean            | same value (a boolean never equals a number)           |
 * | date / timestamp            | same instant: a DATE is the TIMESTAMP at its midnight  |
 * | timestamptz, timestamptz    | same instant, to the microsecond                       |
 * | time / interval / blob      | same value                                             |
 * | list, struct                | same length / fields, elements equal by these rules    |
 * | NULL, NULL                  | `strict`: equal; `sql_semantic`: never                 |
 * | anything else               | never (a type mismatch)                                |
 */
import { compareDecimal, decimalFromUnscaled, decimalToUnscaled, isDecimalText } from '../value/decimal.ts';
import type { Cell, Column, Kind } from '../value/kind.ts';
import { splitTimestamp, timeFromMicros } from '../value/temporal.ts';

export type ColumnLike = Pick<Column, 'kind' | 'children'>;

/** Value classes (small integers so hot loops stay monomorphic). */
export const NULL_CLASS = 0;
export const EXACT = 1;
export const FLOAT = 2;
export const TEXT = 3;
export const BOOL = 4;
export const DATE = 5;
export const TIMESTAMP = 6;
export const TIMESTAMPTZ = 7;
export const TIME = 8;
export const INTERVAL = 9;
export const BLOB = 10;
export const LIST = 11;
export const STRUCT = 12;

export const CLASS_NAMES = [
  'null',
  'exact number',
  'float',
  'text',
  'boolean',
  'date',
  'timestamp',
  'timestamptz',
  'time',
  'interval',
  'blob',
  'list',
  'struct',
] as const;

export interface Tolerance {
  atol: number;
  rtol: number;
  /** false under `sql_semantic`: NULL never equals anything. */
  nullsEqual: boolean;
}

/** The class of a cell whose kind is unknown (`other`), from its JavaScript type. */
export function dynamicClass(cell: Cell): number {
  if (cell === null || cell === undefined) return NULL_CLASS;
  switch (typeof cell) {
    case 'number':
      return FLOAT;
    case 'bigint':
      return EXACT;
    case 'string':
      return TEXT;
    case 'boolean':
      return BOOL;
    default:
      if (cell instanceof Uint8Array) return BLOB;
      return Array.isArray(cell) ? LIST : STRUCT;
  }
}

/** The value class of a cell of a column of `kind`. */
export function classOf(kind: Kind, cell: Cell): number {
  if (cell === null || cell === undefined) return NULL_CLASS;
  switch (kind) {
    case 'integer':
      return typeof cell === 'number' || typeof cell === 'bigint' ? EXACT : dynamicClass(cell);
    case 'decimal':
      if (typeof cell === 'string' && isDecimalText(cell)) return EXACT;
      // PostgreSQL's numeric NaN and ±Infinity are the float values of those names (as text they
      // never equalled DuckDB's DOUBLE NaN or Infinity, nor did a NaN differ by value from a number).
      return cell === 'NaN' || cell === 'Infinity' || cell === '-Infinity' ? FLOAT : dynamicClass(cell);
    case 'float':
      return typeof cell === 'number' ? FLOAT : dynamicClass(cell);
    case 'text':
      return typeof cell === 'string' ? TEXT : dynamicClass(cell);
    case 'boolean':
      return typeof cell === 'boolean' ? BOOL : dynamicClass(cell);
    case 'date':
      return typeof cell === 'string' ? DATE : dynamicClass(cell);
    case 'timestamp':
      return typeof cell === 'string' ? TIMESTAMP : dynamicClass(cell);
    case 'timestamptz':
      return typeof cell === 'string' ? TIMESTAMPTZ : dynamicClass(cell);
    case 'time':
      return typeof cell === 'string' ? TIME : dynamicClass(cell);
    case 'interval':
      return typeof cell === 'string' ? INTERVAL : dynamicClass(cell);
    case 'blob':
      return cell instanceof Uint8Array ? BLOB : dynamicClass(cell);
    case 'list':
      return Array.isArray(cell) ? LIST : dynamicClass(cell);
    case 'struct':
      return typeof cell === 'object' && !Array.isArray(cell) && !(cell instanceof Uint8Array)
        ? STRUCT
        : dynamicClass(cell);
    default:
      return dynamicClass(cell);
  }
}

/** Kind families whose cells can ever be equal (kind `other` and `null` meet everything). */
export function kindFamily(kind: Kind): string {
  switch (kind) {
    case 'integer':
    case 'decimal':
    case 'float':
      return 'number';
    case 'date':
    case 'timestamp':
      return 'datetime';
    default:
      return kind;
  }
}

export function kindsCompatible(a: Kind, b: Kind): boolean {
  if (a === 'other' || b === 'other' || a === 'null' || b === 'null') return true;
  return kindFamily(a) === kindFamily(b);
}

/** Pairs of kinds whose equal cells may differ in their hash (floats, untyped or nested values). */
export function isTolerantKind(kind: Kind): boolean {
  return kind === 'float' || kind === 'other' || kind === 'list' || kind === 'struct' || kind === 'null';
}

const POW10 = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
  1e21, 1e22,
];

/**
 * The double nearest to decimal text, as `Number(text)` gives it, faster for
 * short texts: with at most 15 digits the digits are an exact double and so
 * is 10^scale (scale ≤ 22), and one IEEE division rounds correctly.
 */
export function decimalToDouble(text: string): number {
  const n = text.length;
  let i = 0;
  const negative = n > 0 && text.charCodeAt(0) === 45;
  if (negative) i = 1;
  let v = 0;
  let digits = 0;
  let scale = -1;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 && scale < 0) {
      scale = 0;
      continue;
    }
    if (c < 48 || c > 57 || digits >= 15) return Number(text);
    v = v * 10 + (c - 48);
    digits++;
    if (scale >= 0) scale++;
  }
  if (digits === 0 || scale === 0 || scale > 22) return Number(text);
  const x = scale > 0 ? v / POW10[scale]! : v;
  return negative ? -x : x;
}

export function toDouble(cell: number | bigint | string): number {
  return typeof cell === 'number' ? cell : typeof cell === 'string' ? decimalToDouble(cell) : Number(cell);
}

/** The float rule: |a − b| ≤ max(atol, rtol · max(|a|, |b|)); NaN = NaN; ±Infinity equal only themselves; −0 = 0. */
export function floatsClose(a: number, b: number, atol: number, rtol: number): boolean {
  if (a === b) return true;
  if (a !== a) return b !== b;
  if (b !== b) return false;
  if (a === Infinity || a === -Infinity || b === Infinity || b === -Infinity) return false;
  return Math.abs(a - b) <= Math.max(atol, rtol * Math.max(Math.abs(a), Math.abs(b)));
}

/** The tolerance the float rule grants this pair: max(atol, rtol · max(|a|, |b|)). */
export function floatTolerance(a: number, b: number, atol: number, rtol: number): number {
  return Math.max(atol, rtol * Math.max(Math.abs(a), Math.abs(b)));
}

function exactText(cell: number | bigint | string): string {
  if (typeof cell === 'string') return cell;
  if (typeof cell === 'bigint') return cell.toString();
  return BigInt(cell).toString();
}

/** Exact equality of integers and decimals by value, through bigint only. */
export function exactNumbersEqual(a: number | bigint | string, b: number | bigint | string): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  return compareDecimal(exactText(a), exactText(b)) === 0;
}

/** actual − expected, exactly, as decimal text. */
export function exactDifference(expected: number | bigint | string, actual: number | bigint | string): string {
  const x = decimalToUnscaled(exactText(expected));
  const y = decimalToUnscaled(exactText(actual));
  const scale = Math.max(x.scale, y.scale);
  const diff = y.unscaled * 10n ** BigInt(scale - y.scale) - x.unscaled * 10n ** BigInt(scale - x.scale);
  return decimalFromUnscaled(diff, scale);
}

function trimFraction(time: string): string {
  const dot = time.indexOf('.');
  if (dot < 0) return time;
  let end = time.length;
  while (end > dot + 1 && time.charCodeAt(end - 1) === 48) end--;
  return end === dot + 1 ? time.slice(0, dot) : time.slice(0, end);
}

/**
 * Canonical text of a date, timestamp or timestamptz: a timestamp at exactly
 * midnight is its date ("2024-01-02 00:00:00" → "2024-01-02"), any other
 * time of day stays, fraction trimmed ("… 03:04:05.120000" → "… 03:04:05.12").
 * timestamptz keeps its "+00" so it never meets a local timestamp.
 */
export function canonicalTemporal(text: string): string {
  const parts = splitTimestamp(text);
  if (!parts) return text;
  const tz = text.endsWith('+00') ? '+00' : '';
  if (parts.micros === 0 && parts.nanos === 0 && !tz) return parts.date;
  const time = timeFromMicros(BigInt(parts.micros));
  if (parts.nanos === 0) return `${parts.date} ${time}${tz}`;
  // Nanoseconds (TIMESTAMP_NS): the six digits of the microseconds, then the rest, trailing zeros trimmed.
  const fraction = `${String(parts.micros % 1_000_000).padStart(6, '0')}${String(parts.nanos).padStart(3, '0')}`;
  return `${parts.date} ${time.slice(0, 8)}.${fraction.replace(/0+$/, '')}${tz}`;
}

export function canonicalTime(text: string): string {
  return trimFraction(text);
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const OTHER: ColumnLike = { kind: 'other' };

function childColumn(column: ColumnLike, cls: number, field?: string): ColumnLike {
  if (cls === LIST) return column.kind === 'list' ? (column.children?.[0] ?? OTHER) : OTHER;
  if (column.kind !== 'struct') return OTHER;
  return column.children?.find((c) => c.name === field) ?? OTHER;
}

/** Equality of two non-identical, non-NULL cells (the general path). */
function valuesEqual(ec: ColumnLike, e: Cell, ac: ColumnLike, a: Cell, tol: Tolerance): boolean {
  const ce = classOf(ec.kind, e);
  const ca = classOf(ac.kind, a);
  if (ce === EXACT && ca === EXACT)
    return exactNumbersEqual(e as number | bigint | string, a as number | bigint | string);
  if ((ce === FLOAT || ce === EXACT) && (ca === FLOAT || ca === EXACT))
    return floatsClose(toDouble(e as number), toDouble(a as number), tol.atol, tol.rtol);
  if ((ce === DATE || ce === TIMESTAMP) && (ca === DATE || ca === TIMESTAMP))
    return canonicalTemporal(e as string) === canonicalTemporal(a as string);
  if (ce !== ca) return false;
  switch (ce) {
    case TIMESTAMPTZ:
      return canonicalTemporal(e as string) === canonicalTemporal(a as string);
    case TIME:
      return canonicalTime(e as string) === canonicalTime(a as string);
    case BLOB:
      return bytesEqual(e as Uint8Array, a as Uint8Array);
    case LIST: {
      const x = e as Cell[];
      const y = a as Cell[];
      if (x.length !== y.length) return false;
      const xe = childColumn(ec, LIST);
      const ye = childColumn(ac, LIST);
      for (let i = 0; i < x.length; i++) if (!cellsEqual(xe, x[i]!, ye, y[i]!, tol)) return false;
      return true;
    }
    case STRUCT: {
      const x = e as { [field: string]: Cell };
      const y = a as { [field: string]: Cell };
      const keys = Object.keys(x);
      if (keys.length !== Object.keys(y).length) return false;
      for (const key of keys) {
        if (!Object.prototype.hasOwnProperty.call(y, key)) return false;
        if (!cellsEqual(childColumn(ec, STRUCT, key), x[key]!, childColumn(ac, STRUCT, key), y[key]!, tol))
          return false;
      }
      return true;
    }
    default:
      // text, boolean, interval: identical values were handled by the caller.
      return e === a;
  }
}

/**
 * Are two cells equal under the policy? `ec`/`ac` are the columns (kinds and,
 * for nested values, children) the cells come from.
 */
export function cellsEqual(ec: ColumnLike, e: Cell, ac: ColumnLike, a: Cell, tol: Tolerance): boolean {
  if (e === null || e === undefined || a === null || a === undefined)
    return (e === null || e === undefined) && (a === null || a === undefined) && tol.nullsEqual;
  if (e === a && ec.kind === ac.kind) return true;
  if (typeof e === 'number' && typeof a === 'number') {
    // Two numbers (integer, float or untyped cells): the rules inline, so no double is boxed for a call.
    const ek = ec.kind;
    const ak = ac.kind;
    if (
      (ek === 'float' || ek === 'integer' || ek === 'other') &&
      (ak === 'float' || ak === 'integer' || ak === 'other')
    ) {
      if (ek === 'integer' && ak === 'integer') return e === a;
      if (e === a) return true;
      if (e !== e) return a !== a;
      if (a !== a || e === Infinity || e === -Infinity || a === Infinity || a === -Infinity) return false;
      const x = e < 0 ? -e : e;
      const y = a < 0 ? -a : a;
      const diff = e > a ? e - a : a - e;
      const scaled = tol.rtol * (x > y ? x : y);
      return diff <= (tol.atol > scaled ? tol.atol : scaled);
    }
  }
  return valuesEqual(ec, e, ac, a, tol);
}

/** What the numeric rule saw for one pair of numeric cells (for witnesses and tolerance statistics). */
export interface NumericDelta {
  rule: 'exact' | 'float';
  /** actual − expected: exact decimal text for exact numbers, a number for floats (null when not finite). */
  delta: string | number | null;
  abs_delta: number | null;
  rel_delta: number | null;
  /** The tolerance the float rule granted (null for the exact rule). */
  tolerance: number | null;
}

function finiteOrNull(v: number): number | null {
  return Number.isFinite(v) ? v : null;
}

/** The numeric difference of two numeric cells, or null when either is not a number. */
export function numericDelta(ec: ColumnLike, e: Cell, ac: ColumnLike, a: Cell, tol: Tolerance): NumericDelta | null {
  const ce = classOf(ec.kind, e);
  const ca = classOf(ac.kind, a);
  if ((ce !== EXACT && ce !== FLOAT) || (ca !== EXACT && ca !== FLOAT)) return null;
  if (ce === EXACT && ca === EXACT) {
    const delta = exactDifference(e as number | bigint | string, a as number | bigint | string);
    const x = toDouble(e as string);
    const y = toDouble(a as string);
    const abs = Math.abs(Number(delta));
    const scale = Math.max(Math.abs(x), Math.abs(y));
    return {
      rule: 'exact',
      delta,
      abs_delta: finiteOrNull(abs),
      rel_delta: scale === 0 ? 0 : finiteOrNull(abs / scale),
      tolerance: null,
    };
  }
  const x = toDouble(e as number);
  const y = toDouble(a as number);
  const diff = y - x;
  const finite = Number.isFinite(diff);
  const abs = finite ? Math.abs(diff) : null;
  const scale = Math.max(Math.abs(x), Math.abs(y));
  return {
    rule: 'float',
    delta: x === y || (x !== x && y !== y) ? 0 : finite ? diff : null,
    abs_delta: x === y || (x !== x && y !== y) ? 0 : abs,
    rel_delta: x === y || (x !== x && y !== y) ? 0 : abs === null ? null : scale === 0 ? 0 : abs / scale,
    tolerance: finiteOrNull(floatTolerance(x, y, tol.atol, tol.rtol)),
  };
}
