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

function clip(value: JsonValue): JsonValue {
  if (typeof value === 'string' && value.length > WITNESS_TEXT_LIMIT)
    return `${value.slice(0, WITNESS_TEXT_LIMIT)}…[+${value.length - WITNESS_TEXT_LIMIT} chars]`;
  if (Array.isArray(value))
    return value.length > 50 ? [...value.slice(0, 50).map(clip), `…[+${value.length - 50} items]`] : value.map(clip);
  return value;
}

export function cellWitness(column: Column | undefined, cell: Cell | undefined): JsonValue {
  return clip(encodeCell(column ?? { kind: 'other' }, cell ?? null));
}

export function rowWitness(side: Side, row: number): RowWitness {
  const cells = side.rows[row] ?? [];
  return { position: row, values: side.columns.map((column, c) => cellWitness(column, cells[c])) };
}
