/**
 * The canonical dump behind a fixture's content digest: every table, sorted
 * by name, with its column names and its rows as canonical text lines sorted
 * bytewise. Values are written by meaning, not by engine type, so the same
 * SQL dump loaded into DuckDB and into SQLite gives the same digest where the
 * types allow (a DECIMAL 12.50 and a SQLite REAL 12.5 are both `12.5`; a DATE
 * and SQLite TEXT '2024-01-02' are both `'2024-01-02'`).
 */
import { floatToDecimalText, normalizeDecimal } from '../value/decimal.ts';
import { bytesToHex, encodeCell } from '../value/json-codec.ts';
import type { Cell, Column, ResultTable } from '../value/kind.ts';
import { sha256Text } from './sha256.ts';

function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')}'`;
}

export function canonicalCell(column: Pick<Column, 'kind' | 'children'>, cell: Cell): string {
  if (cell === null) return '\\N';
  if (typeof cell === 'boolean') return cell ? 'true' : 'false';
  if (typeof cell === 'bigint') return cell.toString();
  if (typeof cell === 'number') {
    if (Number.isInteger(cell) && Math.abs(cell) <= Number.MAX_SAFE_INTEGER)
      return Object.is(cell, -0) ? '0' : String(cell);
    return floatToDecimalText(cell) ?? String(cell);
  }
  if (cell instanceof Uint8Array) return `\\x${bytesToHex(cell)}`;
  if (typeof cell === 'string') return column.kind === 'decimal' ? normalizeDecimal(cell) : quote(cell);
  return JSON.stringify(encodeCell(column, cell));
}

export function canonicalTableText(name: string, table: ResultTable): string {
  const lines = table.rows.map((row) => row.map((cell, i) => canonicalCell(table.columns[i]!, cell)).join('\t'));
  lines.sort();
  const header = `table ${quote(name)}\ncolumns ${table.columns.map((c) => quote(c.name)).join('\t')}\nrows ${lines.length}\n`;
  return header + lines.join('\n') + (lines.length ? '\n' : '');
}

/** SHA-256 of the canonical dump of all tables. */
export async function contentDigestOf(tables: { name: string; table: ResultTable }[]): Promise<string> {
  const sorted = [...tables].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return sha256Text(sorted.map((t) => canonicalTableText(t.name, t.table)).join(''));
}
