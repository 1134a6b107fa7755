import { bytesToHex } from './json-codec.ts';
import type { Cell, Column } from './kind.ts';

/** Display text of a float: shortest round-trip form, with NaN, ±Infinity and -0 spelled out. */
export function formatFloat(value: number): string {
  if (Object.is(value, -0)) return '-0.0';
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  return String(value);
}

/**
 * Human-readable text of a cell, exact for every kind (a DECIMAL 12.50 prints
 * as 12.50). Never HTML: callers render it as text.
 */
export function formatCell(column: Pick<Column, 'kind'>, cell: Cell): string {
  if (cell === null) return 'NULL';
  if (typeof cell === 'string') return cell;
  if (typeof cell === 'boolean' || typeof cell === 'bigint') return String(cell);
  if (typeof cell === 'number') return column.kind === 'integer' ? String(cell) : formatFloat(cell);
  if (cell instanceof Uint8Array) return `\\x${bytesToHex(cell)}`;
  if (Array.isArray(cell)) return `[${cell.map((c) => formatCell({ kind: 'other' }, c)).join(', ')}]`;
  return `{${Object.entries(cell)
    .map(([k, v]) => `${k}: ${formatCell({ kind: 'other' }, v)}`)
    .join(', ')}}`;
}
