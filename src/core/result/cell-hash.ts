/**
 * 32-bit hashes of cells, consistent with the value policy: two cells that
 * are equal under the policy and whose columns are not tolerant (no floats,
 * untyped or nested values) always hash alike, so 10, 10.00 and 10.000 meet,
 * and so do a DATE and the TIMESTAMP at its midnight. Hashes only propose
 * candidates; every match is verified with `cellsEqual`, so a collision costs
 * time, never a wrong verdict. Computed without allocating per cell: every
 * hash is a signed 32-bit integer (a small integer to V8, never a boxed
 * double), stored in Int32Arrays.
 */
import type { Cell } from '../value/kind.ts';
import {
  BLOB,
  BOOL,
  DATE,
  EXACT,
  FLOAT,
  INTERVAL,
  LIST,
  NULL_CLASS,
  STRUCT,
  TEXT,
  TIME,
  TIMESTAMP,
  TIMESTAMPTZ,
  classOf,
  toDouble,
  type ColumnLike,
} from './value-policy.ts';

/** How numbers are hashed: by exact value, as doubles (paired with a float column), or rounded (similarity scoring). */
export const SCHEME_NORMAL = 0;
export const SCHEME_DOUBLE = 1;
export const SCHEME_SIMILAR = 2;
export type HashScheme = typeof SCHEME_NORMAL | typeof SCHEME_DOUBLE | typeof SCHEME_SIMILAR;

const SEED_TEXT = 0x811c9dc5;
const SEED_TEMPORAL = 0x2f1e4a37;
const SEED_TSTZ = 0x61c88647;
const SEED_TIME = 0x7a3b1c95;
const SEED_INTERVAL = 0x5bd1e995;
const SEED_DIGITS = 0x1b873593;
const SEED_BLOB = 0x3c6ef372;
const SEED_LIST = 0x0e6546b6;
const SEED_STRUCT = 0x4cf5ad43;
export const HASH_NULL = 0x6b43a9b5 | 0;
const HASH_TRUE = 0x1f83d9ab | 0;
const HASH_FALSE = 0x5be0cd19 | 0;
const HASH_NAN = 0x27d4eb2f | 0;

export function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/** Hash of a double by value: −0 as 0, every NaN alike; 32-bit integers take a shortcut. */
export function hashDouble(v: number): number {
  if ((v | 0) === v) return fmix(Math.imul(v, 0xcc9e2d51) ^ 0x3c6ef372);
  if (v !== v) return HASH_NAN;
  f64[0] = v === 0 ? 0 : v;
  return fmix(Math.imul(u32[0]! ^ 0x9e3779b9, 0xcc9e2d51) ^ Math.imul(u32[1]! ^ 0x7f4a7c15, 0x1b873593));
}

function step(h: number, code: number): number {
  return Math.imul(h ^ code, 0x01000193);
}

export function hashString(s: string, seed = SEED_TEXT): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return fmix(h);
}

function hashRange(h: number, s: string, from: number, to: number): number {
  for (let i = from; i < to; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const DIGIT_0 = 48;

/**
 * Hash of exact decimal text by value: "10", "10.00" and "010.0" alike, and
 * alike the integer 10. Integral values within ±(2^53 − 1) hash as doubles
 * (so they meet integer cells); everything else hashes its canonical digits.
 */
export function hashDecimalText(s: string): number {
  const n = s.length;
  let i = 0;
  const negative = n > 0 && s.charCodeAt(0) === 45;
  let h = SEED_DIGITS;
  if (negative) {
    i = 1;
    h = step(h, 45);
  }
  const first = i;
  while (i < n && s.charCodeAt(i) === DIGIT_0) i++;
  let v = 0;
  let significant = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) break;
    if (c < DIGIT_0 || c > 57) return hashString(s);
    v = v * 10 + (c - DIGIT_0);
    significant++;
    h = step(h, c);
  }
  if (i === first) return hashString(s);
  let fraction = false;
  if (i < n) {
    i++;
    if (i === n) return hashString(s);
    let zeros = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < DIGIT_0 || c > 57) return hashString(s);
      if (c === DIGIT_0) {
        zeros++;
        continue;
      }
      if (!fraction) {
        h = step(h, 46);
        fraction = true;
      }
      for (; zeros > 0; zeros--) h = step(h, DIGIT_0);
      h = step(h, c);
    }
  }
  if (!fraction && significant <= 16 && v <= MAX_SAFE) return hashDouble(negative ? -v : v);
  return fmix(h);
}

/** Hash of an exact number (integer cell or decimal text) by value. */
export function hashExact(cell: number | bigint | string): number {
  if (typeof cell === 'number') return hashDouble(cell);
  if (typeof cell === 'bigint') {
    if (cell >= -9007199254740991n && cell <= 9007199254740991n) return hashDouble(Number(cell));
    return hashDecimalText(cell.toString());
  }
  return hashDecimalText(cell);
}

const TIMESTAMP_TEXT = /^([+-]\d{6}|\d{4})-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,9})?(\+00)?$/;

/**
 * Hash of the canonical temporal text (see `canonicalTemporal`): a timestamp
 * at midnight hashes as its date; fractions are trimmed; "+00" is kept.
 */
export function hashTemporal(s: string, seed = SEED_TEMPORAL): number {
  // Dates ("2024-01-02", "+012024-01-02", "infinity") are at most 13 characters, timestamps at least 19.
  if (s.length <= 13 || !TIMESTAMP_TEXT.test(s)) return hashString(s, seed);
  let sep = s.indexOf(' ');
  if (sep < 0) sep = s.indexOf('T');
  const tz = s.charCodeAt(s.length - 3) === 43; // '+00'
  const end = tz ? s.length - 3 : s.length;
  // time part: sep+1 .. sep+9 is HH:MM:SS, then an optional fraction.
  let fracEnd = end;
  const dot = sep + 9;
  if (dot < end) while (fracEnd > dot + 1 && s.charCodeAt(fracEnd - 1) === DIGIT_0) fracEnd--;
  const hasFraction = dot < end && fracEnd > dot + 1;
  let midnight = !hasFraction;
  if (midnight) {
    for (let k = sep + 1; k < sep + 9; k++) {
      const c = s.charCodeAt(k);
      if (c !== DIGIT_0 && c !== 58) {
        midnight = false;
        break;
      }
    }
  }
  let h = hashRange(seed, s, 0, sep);
  if (midnight && !tz) return fmix(h);
  h = step(h, 32);
  h = hashRange(h, s, sep + 1, sep + 9);
  if (hasFraction) h = hashRange(h, s, dot, fracEnd);
  if (tz) h = hashRange(h, s, end, s.length);
  return fmix(h);
}

/** Hash of a time of day with its fraction trimmed ("12:00:00.500" as "12:00:00.5"). */
export function hashTime(s: string): number {
  const dot = s.indexOf('.');
  if (dot < 0) return hashString(s, SEED_TIME);
  let end = s.length;
  while (end > dot + 1 && s.charCodeAt(end - 1) === DIGIT_0) end--;
  return fmix(hashRange(SEED_TIME, s, 0, end === dot + 1 ? dot : end));
}

function hashBytes(b: Uint8Array): number {
  let h = SEED_BLOB;
  for (let i = 0; i < b.length; i++) h = step(h, b[i]!);
  return fmix(h ^ b.length);
}

/** Round a double to single precision (about seven significant digits), for similarity scoring only. */
function quantize(v: number): number {
  return Math.fround(v);
}

const OTHER: ColumnLike = { kind: 'other' };

/** Hash of one cell of a column, under a scheme. */
export function hashCell(column: ColumnLike, cell: Cell, scheme: HashScheme = SCHEME_NORMAL): number {
  const cls = classOf(column.kind, cell);
  switch (cls) {
    case NULL_CLASS:
      return HASH_NULL;
    case EXACT:
      if (scheme === SCHEME_NORMAL) return hashExact(cell as number | bigint | string);
      return hashDouble(scheme === SCHEME_SIMILAR ? quantize(toDouble(cell as string)) : toDouble(cell as string));
    case FLOAT:
      return hashDouble(scheme === SCHEME_SIMILAR ? quantize(cell as number) : (cell as number));
    case TEXT:
      return hashString(cell as string);
    case BOOL:
      return cell ? HASH_TRUE : HASH_FALSE;
    case DATE:
    case TIMESTAMP:
      return hashTemporal(cell as string);
    case TIMESTAMPTZ:
      return hashTemporal(cell as string, SEED_TSTZ);
    case TIME:
      return hashTime(cell as string);
    case INTERVAL:
      return hashString(cell as string, SEED_INTERVAL);
    case BLOB:
      return hashBytes(cell as Uint8Array);
    case LIST: {
      const element = column.kind === 'list' ? (column.children?.[0] ?? OTHER) : OTHER;
      let h = SEED_LIST;
      for (const item of cell as Cell[]) h = Math.imul(h ^ hashCell(element, item, scheme), 0x01000193);
      return fmix(h ^ (cell as Cell[]).length);
    }
    case STRUCT: {
      // Field order does not matter: sum the field hashes.
      let h = SEED_STRUCT;
      for (const [key, value] of Object.entries(cell as { [field: string]: Cell })) {
        const child = column.kind === 'struct' ? (column.children?.find((c) => c.name === key) ?? OTHER) : OTHER;
        h = (h + fmix(hashString(key) ^ hashCell(child, value, scheme))) | 0;
      }
      return fmix(h);
    }
    default:
      return HASH_NULL;
  }
}

/**
 * Hash of a cell of a column of `column.kind`, with fast paths for the
 * common kinds (the hot path of row keys); same result as `hashCell`.
 */
export function hashByKind(column: ColumnLike, cell: Cell | undefined, scheme: HashScheme): number {
  if (cell === null || cell === undefined) return HASH_NULL;
  switch (column.kind) {
    case 'integer':
    case 'float':
      if (typeof cell === 'number') return hashDouble(scheme === SCHEME_SIMILAR ? quantize(cell) : cell);
      break;
    case 'text':
      if (typeof cell === 'string') return hashString(cell);
      break;
    case 'decimal':
      if (typeof cell === 'string')
        return scheme === SCHEME_NORMAL
          ? hashDecimalText(cell)
          : hashDouble(scheme === SCHEME_SIMILAR ? quantize(toDouble(cell)) : toDouble(cell));
      break;
    case 'date':
    case 'timestamp':
      if (typeof cell === 'string') return hashTemporal(cell);
      break;
  }
  return hashCell(column, cell, scheme);
}

/** What one pass over a column's hashes yields. */
export interface ColumnSummary {
  nulls: number;
  /** Order-independent fingerprint of the column's bag of values (two 32-bit sums). */
  fpA: number;
  fpB: number;
}

/** Hash every cell of a column (into `out` when given) and summarize. */
export function scanColumn(
  rows: readonly (readonly Cell[])[],
  index: number,
  column: ColumnLike,
  scheme: HashScheme,
  out: Int32Array | null = null,
): ColumnSummary {
  let nulls = 0;
  let fpA = 0;
  let fpB = 0;
  for (let r = 0; r < rows.length; r++) {
    const v = rows[r]![index];
    if (v === null || v === undefined) nulls++;
    const h = hashByKind(column, v, scheme);
    if (out) out[r] = h;
    fpA = (fpA + fmix(h ^ 0x5f356495)) | 0;
    fpB = (fpB + fmix(Math.imul(h, 0x2c1b3c6d) ^ 0x297a2d39)) | 0;
  }
  return { nulls, fpA, fpB };
}
