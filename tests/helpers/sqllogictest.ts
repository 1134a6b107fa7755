/**
 * A reader for DuckDB's sqllogictest files (test helper only, never product
 * runtime): it returns the self-contained `query` blocks — a single query of
 * literals, functions, VALUES, range or unnest that needs no table, macro,
 * type, setting or extension made earlier in the file — and says why every
 * other block was left out.
 *
 * Format (duckdb/test/sqlite/sqllogic_parser.cpp): records are separated by
 * blank lines; `query <types> [sort] [label]`, the SQL, `----`, then the
 * expected values, tab-separated per row (or one value per line).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export type SortMode = 'nosort' | 'rowsort' | 'valuesort';

export interface QueryBlock {
  /** File path relative to the folder, and the 1-based line of the `query` line. */
  file: string;
  line: number;
  /** Column count from the type letters (`query IIT` → 3). */
  columns: number;
  sort: SortMode;
  sql: string;
  /** The expected lines after `----`, as written. */
  expected: string[];
}

export interface Skipped {
  file: string;
  line: number;
  reason: string;
}

export interface ReadResult {
  blocks: QueryBlock[];
  skipped: Skipped[];
}

/** Statements whose effect is a name later queries may use. */
const CREATES =
  /\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP(?:ORARY)?\s+)?(?:TABLE|VIEW|MACRO|FUNCTION|TYPE|SEQUENCE|SCHEMA|INDEX)\s+(?:IF\s+NOT\s+EXISTS\s+)?([\w."]+)/gi;
/** Statements that change the session: everything after them depends on it. */
const SESSION = /^\s*(SET|RESET|PRAGMA|ATTACH|USE|LOAD|INSTALL|CALL)\b/i;
/** Session statements that change no value: the runner's own checks and physical settings. */
const HARMLESS =
  /^\s*(PRAGMA\s+enable_verification|PRAGMA\s+threads|SET\s+threads|PRAGMA\s+force_compression|PRAGMA\s+verify_\w+)\b/i;
/** Values that change from run to run, or depend on the machine. */
const VOLATILE =
  /\b(random|gen_random_uuid|uuid|now|current_date|current_time|current_timestamp|today|get_current_timestamp|setseed|nextval|currval|version|pragma_\w+|duckdb_\w+|read_\w+|glob)\s*\(|__TEST_DIR__|\$\{|\bcurrent_(?:date|time|timestamp)\b/i;
const QUERY_START = /^\s*(SELECT|VALUES|WITH|FROM|\()/i;

function stripLiterals(sql: string): string {
  return sql.replace(/'(?:[^']|'')*'/g, "''").replace(/--[^\n]*/g, '');
}

function identifiersOf(sql: string): Set<string> {
  const out = new Set<string>();
  for (const m of stripLiterals(sql).matchAll(/"((?:[^"]|"")+)"|([A-Za-z_][\w$]*)/g))
    out.add((m[1] ?? m[2]!).toLowerCase());
  return out;
}

/** Read one file's text into self-contained query blocks and skip reasons. */
export function readSqllogictest(text: string, file: string): ReadResult {
  const lines = text.split(/\r?\n/);
  const blocks: QueryBlock[] = [];
  const skipped: Skipped[] = [];
  const created = new Set<string>();
  let sessionChanged = false;
  let required: string | null = null;
  let loopDepth = 0;
  let skipMode = false;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) {
      i++;
      continue;
    }
    // Collect one record: up to the next blank line.
    const start = i;
    const record: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '') record.push(lines[i++]!);
    let head = record[0]!.trim();
    let condition: string | null = null;
    while (/^(skipif|onlyif)\b/.test(head) && record.length > 1) {
      condition = head;
      record.shift();
      head = record[0]!.trim();
    }
    const word = head.split(/\s+/)[0]!;
    const skip = (reason: string) => skipped.push({ file, line: start + 1, reason });
    switch (word) {
      case 'require':
        required = head.slice('require'.length).trim();
        continue;
      case 'loop':
      case 'foreach':
      case 'concurrentloop':
      case 'concurrentforeach':
        loopDepth++;
        continue;
      case 'endloop':
        loopDepth = Math.max(0, loopDepth - 1);
        continue;
      case 'mode':
        if (/\bskip\b/.test(head)) skipMode = true;
        if (/\bunskip\b/.test(head)) skipMode = false;
        continue;
      case 'set':
      case 'reset':
      case 'load':
      case 'restart':
        sessionChanged = true;
        continue;
      case 'statement': {
        const sql = record.slice(1).join('\n');
        for (const m of sql.matchAll(CREATES)) created.add(m[1]!.replace(/"/g, '').split('.').pop()!.toLowerCase());
        if (SESSION.test(sql) && !HARMLESS.test(sql)) sessionChanged = true;
        continue;
      }
      case 'query':
        break;
      default:
        continue;
    }
    // A query record.
    const parts = head.split(/\s+/);
    const types = parts[1] ?? '';
    const sortWord = parts[2] ?? 'nosort';
    const divider = record.findIndex((l) => l.trim() === '----');
    const sqlLines = record.slice(1, divider === -1 ? undefined : divider);
    const sql = sqlLines.join('\n').trim();
    const expected = divider === -1 ? [] : record.slice(divider + 1);
    if (head === 'query error' || types === 'error') skip('expects an error');
    else if (required) skip(`file requires ${required}`);
    else if (loopDepth > 0) skip('inside a loop (templated SQL)');
    else if (skipMode) skip('in a "mode skip" section');
    else if (condition) skip(`conditional (${condition})`);
    else if (divider === -1 || parts[3] !== undefined) skip('compared with another query by label');
    else if (expected.length === 1 && /values hashing to/.test(expected[0]!)) skip('expected values given as a hash');
    else if (!/^[ITRB]+$/.test(types)) skip(`unusual type letters "${types}"`);
    else if (sessionChanged) skip('after a SET/PRAGMA/ATTACH or other session change');
    else if (!QUERY_START.test(sql)) skip('not a query statement');
    else if (VOLATILE.test(sql)) skip('volatile or system function');
    else if ([...identifiersOf(sql)].some((id) => created.has(id)))
      skip('uses a table, view, macro or type made earlier');
    else if (!['nosort', 'rowsort', 'valuesort'].includes(sortWord)) skip(`sort mode ${sortWord}`);
    else blocks.push({ file, line: start + 1, columns: types.length, sort: sortWord as SortMode, sql, expected });
  }
  return { blocks, skipped };
}

/** Every `.test` file under `dir`, read; paths relative to `dir`, in a stable order. */
export function readSqllogictestDir(dir: string): ReadResult & { files: number } {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = path.join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.test')) files.push(full);
    }
  };
  walk(dir);
  const out: ReadResult & { files: number } = { blocks: [], skipped: [], files: files.length };
  for (const full of files) {
    const { blocks, skipped } = readSqllogictest(readFileSync(full, 'utf8'), path.relative(dir, full));
    out.blocks.push(...blocks);
    out.skipped.push(...skipped);
  }
  return out;
}

/**
 * The expected values as rows of `columns` texts: tab-separated rows, or one
 * value per line (the runner accepts both).
 */
export function expectedRows(block: QueryBlock): string[][] | null {
  const rowWise = block.expected.map((l) => l.split('\t'));
  if (rowWise.every((r) => r.length === block.columns)) return rowWise;
  if (block.expected.length % block.columns === 0) {
    const rows: string[][] = [];
    for (let r = 0; r < block.expected.length; r += block.columns)
      rows.push(block.expected.slice(r, r + block.columns));
    return rows;
  }
  return null;
}
