/**
 * Fixture scripts for the PostgreSQL engines, made from what users have: a
 * plain `pg_dump` (COPY … FROM stdin blocks and psql meta-commands included)
 * or a CSV file. Both become plain SQL statements, so PGlite and a server
 * reached through node-postgres (which has no COPY FROM STDIN) load the same
 * text the same way: a COPY block turns into INSERTs of its rows as quoted
 * literals, each cast by PostgreSQL to its column's type.
 */
import { parseCsv } from '../../core/import/csv.ts';

const ROWS_PER_INSERT = 500;

export const IDENT = (name: string) => `"${name.replace(/"/g, '""')}"`;
export const LITERAL = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** One statement (or several) of the script, with the line of the dump it came from. */
export interface ScriptPart {
  sql: string;
  line: number;
}

/** COPY's text format: backslash escapes, `\N` is NULL. */
function copyField(field: string): string | null {
  if (field === '\\N') return null;
  if (!field.includes('\\')) return field;
  return field.replace(/\\(x[0-9A-Fa-f]{1,2}|[0-7]{1,3}|.)/g, (_, esc: string) => {
    if (esc[0] === 'x') return String.fromCharCode(parseInt(esc.slice(1), 16));
    if (/^[0-7]/.test(esc)) return String.fromCharCode(parseInt(esc, 8));
    return ({ b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' } as Record<string, string>)[esc] ?? esc;
  });
}

const COPY_HEAD = /^COPY\s+(.+?)\s*(\([^)]*\))?\s+FROM\s+stdin\s*(?:WITH\s*\(.*\)\s*)?;\s*$/i;

/**
 * A pg_dump script as statements to run: COPY blocks become INSERTs, psql
 * meta-commands (`\connect`, `\restrict`) and `ALTER … OWNER TO` (roles that
 * exist only on the dumping server) are left out.
 */
export function scriptOfDump(text: string): ScriptPart[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const parts: ScriptPart[] = [];
  let buffer: string[] = [];
  let bufferLine = 1;
  const flush = () => {
    const sql = buffer.join('\n');
    if (sql.trim()) parts.push({ sql, line: bufferLine });
    buffer = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const copy = COPY_HEAD.exec(line);
    if (copy) {
      flush();
      const target = `${copy[1]}${copy[2] ? ` ${copy[2]}` : ''}`;
      let rows: string[] = [];
      let rowsLine = i + 2;
      const emit = () => {
        if (rows.length) parts.push({ sql: `INSERT INTO ${target} VALUES\n${rows.join(',\n')};`, line: rowsLine });
        rows = [];
      };
      for (i++; i < lines.length && lines[i] !== '\\.'; i++) {
        if (rows.length === 0) rowsLine = i + 1;
        const values = lines[i]!.split('\t')
          .map(copyField)
          .map((v) => (v === null ? 'NULL' : LITERAL(v)));
        rows.push(`(${values.join(', ')})`);
        if (rows.length >= ROWS_PER_INSERT) emit();
      }
      emit();
      bufferLine = i + 2;
      continue;
    }
    if (/^\\/.test(line) || /^ALTER\s+.*\s+OWNER\s+TO\s+/i.test(line)) {
      if (buffer.length === 0) bufferLine = i + 2;
      continue;
    }
    if (buffer.length === 0) bufferLine = i + 1;
    buffer.push(line);
  }
  flush();
  return parts;
}

/** Column types read from CSV text, as DuckDB's read_csv would choose them (BIGINT, DOUBLE, DATE, TIMESTAMP, BOOLEAN, VARCHAR). */
function csvType(values: string[]): string {
  const present = values.filter((v) => v !== '');
  if (present.length === 0) return 'text';
  const all = (re: RegExp) => present.every((v) => re.test(v));
  if (all(/^[+-]?\d{1,18}$/)) return 'bigint';
  if (all(/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i)) return 'double precision';
  if (all(/^\d{4}-\d{2}-\d{2}$/)) return 'date';
  if (all(/^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?$/)) return 'timestamp';
  if (all(/^(true|false)$/i)) return 'boolean';
  return 'text';
}

export function tableNameOfFile(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  return base.replace(/\.(csv|tsv)$/i, '') || 'data';
}

/** A CSV file (header row first) as a CREATE TABLE and INSERTs; an empty cell is NULL. */
export function scriptOfCsv(fileName: string, text: string): { parts: ScriptPart[] } | { error: string } {
  const parsed = parseCsv(text.replace(/^\uFEFF/, ''));
  if (parsed.error) return { error: `${fileName}:${parsed.error.line}: ${parsed.error.message}` };
  const [header, ...rows] = parsed.rows.filter((r) => !(r.cells.length === 1 && r.cells[0] === ''));
  if (!header) return { error: `${fileName}: the file is empty (a header row is needed).` };
  const names = header.cells;
  const bad = rows.find((r) => r.cells.length !== names.length);
  if (bad)
    return { error: `${fileName}:${bad.line}: ${bad.cells.length} fields where the header has ${names.length}.` };
  const types = names.map((_, c) => csvType(rows.map((r) => r.cells[c]!)));
  const table = IDENT(tableNameOfFile(fileName));
  const parts: ScriptPart[] = [
    { sql: `CREATE TABLE ${table} (${names.map((n, c) => `${IDENT(n)} ${types[c]}`).join(', ')});`, line: 1 },
  ];
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const chunk = rows.slice(start, start + ROWS_PER_INSERT);
    const values = chunk.map((r) => `(${r.cells.map((v) => (v === '' ? 'NULL' : LITERAL(v))).join(', ')})`);
    parts.push({ sql: `INSERT INTO ${table} VALUES\n${values.join(',\n')};`, line: chunk[0]!.line });
  }
  return { parts };
}
