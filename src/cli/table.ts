import { formatCell } from '../core/value/format.ts';
import type { ResultTable } from '../core/value/kind.ts';
import { isNumericKind } from '../core/value/kind.ts';

const MAX_CELL = 48;

function clip(text: string): string {
  const oneLine = text.replace(/\r?\n/g, '⏎').replace(/\t/g, ' ');
  return oneLine.length > MAX_CELL ? `${oneLine.slice(0, MAX_CELL - 1)}…` : oneLine;
}

/** A plain-text table: names, then types, then rows; numbers right-aligned. */
export function renderTable(table: ResultTable, maxRows = 200): string {
  const header = table.columns.map((c) => clip(c.name));
  const types = table.columns.map((c) => clip(c.engineType || c.kind));
  const shown = table.rows.slice(0, maxRows);
  const body = shown.map((row) => row.map((cell, i) => clip(formatCell(table.columns[i]!, cell))));
  const widths = table.columns.map((_, i) =>
    Math.max(header[i]!.length, types[i]!.length, ...body.map((r) => r[i]!.length), 1),
  );
  const line = (cells: string[], alignRight: boolean[] = []) =>
    cells
      .map((c, i) => (alignRight[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join(' │ ')
      .trimEnd();
  const numeric = table.columns.map((c) => isNumericKind(c.kind));
  const out = [
    line(header),
    line(types),
    widths.map((w) => '─'.repeat(w)).join('─┼─'),
    ...body.map((r) => line(r, numeric)),
  ];
  const more = table.rows.length - shown.length;
  out.push(
    `(${table.rows.length} row${table.rows.length === 1 ? '' : 's'}${more > 0 ? `, first ${shown.length} shown` : ''})`,
  );
  return out.join('\n');
}
