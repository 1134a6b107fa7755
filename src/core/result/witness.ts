/**
 * Witnesses: the rows and values a failing verdict points at, encoded as
 * plain JSON (exact: decimals and big integers as strings, see
 * `value/json-codec.ts`) so they cross workers and land in reports as is.
 */
import { encodeCell, type JsonValue } from '../value/json-codec.ts';
import type { Cell, Column } from '../value/kind.ts';
import type { Side } from './side.ts';

/** Text longer than this is cut in witnesses (the report stays small); the cut is marked. */
export const WITNESS_TEXT_LIMIT = 200;

export interface RowWitness {
  /** 0-based position of the row in its own result. */
  position: number;
  /** The row's cells in its own result's column order. */
  values: JsonValue[];
}

/** Text shown before the first difference when two long texts are cut there. */
const DIFFERENCE_CONTEXT = 20;

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * At most WITNESS_TEXT_LIMIT units of `value` from `from`, each cut marked. Cuts fall between
 * characters: a surrogate pair (an emoji) is never split into a lone half.
 */
function clipText(value: string, from = 0): string {
  let start = from;
  if (start > 0 && isLowSurrogate(value.charCodeAt(start))) start--;
  if (start === 0 && value.length <= WITNESS_TEXT_LIMIT) return value;
  let end = Math.min(value.length, start + WITNESS_TEXT_LIMIT);
  if (end < value.length && isHighSurrogate(value.charCodeAt(end - 1))) end--;
  return `${start > 0 ? `[${start} chars]…` : ''}${value.slice(start, end)}${end < value.length ? `…[+${value.length - end} chars]` : ''}`;
}

function clip(value: JsonValue): JsonValue {
  if (typeof value === 'string') return clipText(value);
  if (Array.isArray(value))
    return value.length > 50 ? [...value.slice(0, 50).map(clip), `…[+${value.length - 50} items]`] : value.map(clip);
  return value;
}

export function cellWitness(column: Column | undefined, cell: Cell | undefined): JsonValue {
  return clip(encodeCell(column ?? { kind: 'other' }, cell ?? null));
}

/**
 * The witnesses of two cells that differ. Two long texts are cut around their first difference: cut
 * from the start, texts that differ only after the limit read the same ("differs: expected A, got A").
 */
export function cellPairWitnesses(
  expectedColumn: Column,
  expected: Cell,
  actualColumn: Column,
  actual: Cell,
): [JsonValue, JsonValue] {
  const x = encodeCell(expectedColumn, expected);
  const y = encodeCell(actualColumn, actual);
  if (typeof x === 'string' && typeof y === 'string' && x !== y) {
    let at = 0;
    while (at < x.length && at < y.length && x.charCodeAt(at) === y.charCodeAt(at)) at++;
    const from = at + DIFFERENCE_CONTEXT < WITNESS_TEXT_LIMIT ? 0 : at - DIFFERENCE_CONTEXT;
    return [clipText(x, from), clipText(y, from)];
  }
  return [clip(x), clip(y)];
}

export function rowWitness(side: Side, row: number): RowWitness {
  const cells = side.rows[row] ?? [];
  return { position: row, values: side.columns.map((column, c) => cellWitness(column, cells[c])) };
}
