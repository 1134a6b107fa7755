/** Display helpers for the page (text only: callers render it as text). */
import { formatCell } from '../core/value/format.ts';
import { isNumericKind, type Cell, type Column } from '../core/value/kind.ts';

/** Longest cell text shown; a cell can be a gigabyte of untrusted text. */
export const MAX_CELL_CHARS = 400;

export interface CellView {
  text: string;
  isNull: boolean;
  numeric: boolean;
  /** Characters left out of `text`. */
  omitted: number;
}

export function cellView(column: Column, cell: Cell): CellView {
  const full = formatCell(column, cell);
  const omitted = Math.max(0, full.length - MAX_CELL_CHARS);
  return {
    text: omitted ? `${full.slice(0, MAX_CELL_CHARS)}…` : full,
    isNull: cell === null,
    numeric: isNumericKind(column.kind),
    omitted,
  };
}

export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
}
