/**
 * A CSV of questions in defog sql-eval's style: `question, query, db_name`
 * (optional `query_category` becomes a tag, `instructions` the evidence).
 * A query may accept alternatives: `;` separates whole alternative queries,
 * and `{a, b}` stands for every non-empty combination of its items in order
 * (`a`, `b`, `a, b`), as sql-eval expands them. Predictions: a second CSV
 * whose `generated_query` (or `sql`, `predicted_sql`) column is aligned by
 * row, or that column in the questions CSV itself.
 */
import type { LoadProblem } from '../corpus/problems.ts';
import { tokenize } from '../sql/lexer.ts';
import {
  baseName,
  importedBenchmark,
  checkDatabases,
  indexId,
  textOf,
  type DatabaseFolder,
  type ImportedCase,
  type ImportedRecord,
  type ImportResult,
  type InputFile,
} from './common.ts';

export interface CsvImportInput {
  questions: InputFile;
  pred?: InputFile;
  databases?: DatabaseFolder;
  agent?: string;
  model?: string;
  corpusName?: string;
}

/** At most this many accepted references per case after expanding `{...}`. */
export const MAX_ALTERNATIVES = 64;
const PRED_COLUMNS = ['generated_query', 'sql', 'predicted_sql', 'prediction'];

export interface CsvRow {
  cells: string[];
  line: number;
}

/** RFC 4180 CSV (quoted fields may hold commas, quotes and newlines), each record with its first line. */
export function parseCsv(text: string): { rows: CsvRow[]; error?: { line: number; message: string } } {
  const rows: CsvRow[] = [];
  let cells: string[] = [];
  let cell = '';
  let line = 1;
  let start = 1;
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else {
        if (ch === '\n') line++;
        cell += ch;
      }
      i++;
      continue;
    }
    if (ch === '"' && cell === '') quoted = true;
    else if (ch === ',') {
      cells.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      cells.push(cell);
      if (!(cells.length === 1 && cells[0] === '')) rows.push({ cells, line: start });
      cells = [];
      cell = '';
      line++;
      start = line;
    } else cell += ch;
    i++;
  }
  if (quoted) return { rows, error: { line: start, message: 'A quoted field is not closed.' } };
  if (cell !== '' || cells.length) {
    cells.push(cell);
    rows.push({ cells, line: start });
  }
  return { rows };
}

/** Split at top-level separators (outside parentheses, strings and quoted names). */
function splitTop(text: string, separator: ',' | ';'): string[] {
  const cuts = tokenize(text)
    .filter((t) => t.type === 'punct' && t.raw === separator && t.depth === 0)
    .map((t) => t.start);
  const out: string[] = [];
  let at = 0;
  for (const c of cuts) {
    out.push(text.slice(at, c));
    at = c + 1;
  }
  out.push(text.slice(at));
  return out;
}

function combinations<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let size = 1; size <= items.length; size++) {
    const pick = (from: number, chosen: T[]) => {
      if (chosen.length === size) {
        out.push(chosen);
        return;
      }
      for (let i = from; i < items.length; i++) pick(i + 1, [...chosen, items[i]!]);
    };
    pick(0, []);
  }
  return out;
}

/** Every accepted query a defog-style reference stands for, in sql-eval's order; null when over the cap. */
export function expandAlternatives(query: string, cap = MAX_ALTERNATIVES): string[] | null {
  const out: string[] = [];
  for (const alternative of splitTop(query, ';')) {
    const q = alternative.trim();
    if (q === '') continue;
    const groups = [...q.matchAll(/\{([^{}]*)\}/g)];
    let expanded = [''];
    let at = 0;
    for (const g of groups) {
      const literal = q.slice(at, g.index);
      const options = combinations(
        splitTop(g[1]!, ',')
          .map((s) => s.trim())
          .filter((s) => s !== ''),
      ).map((c) => c.join(', '));
      expanded = expanded.flatMap((prefix) => options.map((o) => prefix + literal + o));
      if (expanded.length > cap) return null;
      at = g.index! + g[0].length;
    }
    for (const e of expanded) out.push(e + q.slice(at));
    if (out.length > cap) return null;
  }
  return out;
}

function header(row: CsvRow): Map<string, number> {
  return new Map(row.cells.map((h, i) => [h.trim().toLowerCase(), i]));
}

export function importCsv(input: CsvImportInput): ImportResult {
  const problems: LoadProblem[] = [];
  const fail = (): ImportResult => ({ ok: false, problems });
  const errors = () => problems.some((p) => p.severity === 'error');
  const file = input.questions.file;
  const text = textOf(input.questions, problems);
  if (text === null) return fail();
  const parsed = parseCsv(text);
  if (parsed.error) {
    problems.push({
      severity: 'error',
      code: 'syntax_error',
      file,
      line: parsed.error.line,
      message: parsed.error.message,
    });
    return fail();
  }
  const [head, ...rows] = parsed.rows;
  if (!head) {
    problems.push({
      severity: 'error',
      code: 'empty_corpus',
      file,
      line: 1,
      message: 'The CSV is empty; it needs a header line question,query,db_name.',
    });
    return fail();
  }
  const cols = header(head);
  for (const required of ['question', 'query', 'db_name'])
    if (!cols.has(required))
      problems.push({
        severity: 'error',
        code: 'missing_field',
        file,
        line: head.line,
        field: required,
        message: `The header has no '${required}' column (it has ${head.cells.join(', ')}).`,
      });
  if (errors()) return fail();
  const cell = (row: CsvRow, name: string) => {
    const i = cols.get(name);
    return i === undefined ? undefined : row.cells[i];
  };
  const cases: ImportedCase[] = [];
  for (const [i, row] of rows.entries()) {
    const id = indexId('q', i, rows.length);
    const at = { file, line: row.line, case_index: i, case_id: id };
    if (row.cells.length !== head.cells.length) {
      problems.push({
        severity: 'error',
        code: 'invalid_field',
        ...at,
        message: `The row has ${row.cells.length} field(s); the header has ${head.cells.length}.`,
      });
      continue;
    }
    const question = cell(row, 'question')!.trim();
    const query = cell(row, 'query')!.trim();
    const db = cell(row, 'db_name')!.trim();
    let bad = false;
    for (const [field, value] of [
      ['question', question],
      ['query', query],
      ['db_name', db],
    ] as const)
      if (value === '') {
        problems.push({ severity: 'error', code: 'missing_field', ...at, field, message: `'${field}' is empty.` });
        bad = true;
      }
    if (bad) continue;
    const references = expandAlternatives(query);
    if (references === null || references.length === 0) {
      problems.push({
        severity: 'error',
        code: 'invalid_field',
        ...at,
        field: 'query',
        message:
          references === null
            ? `The query's {…} alternatives expand to more than ${MAX_ALTERNATIVES} queries.`
            : 'The query is empty.',
      });
      continue;
    }
    const category = cell(row, 'query_category')?.trim();
    const instructions = cell(row, 'instructions')?.trim();
    cases.push({
      id,
      fixture: db,
      question,
      ...(instructions ? { evidence: instructions } : {}),
      reference_sql: references.length === 1 ? references[0]! : references,
      shape: 'rows',
      order_matters: /\border\s+by\b/i.test(references[0]!),
      tags: [db, ...(category ? [category] : [])],
    });
  }
  if (errors()) return fail();
  checkDatabases(
    cases.map((c, i) => ({ db: c.fixture, line: rows[i]!.line, field: 'db_name', file, case_id: c.id })),
    input.databases,
    problems,
  );

  // Predictions: their own CSV, or a generated_query column beside the questions.
  let records: ImportedRecord[] = [];
  let predFile: string | null = null;
  const predIn = input.pred
    ? (() => {
        const t = textOf(input.pred!, problems);
        if (t === null) return null;
        const p = parseCsv(t);
        if (p.error) {
          problems.push({
            severity: 'error',
            code: 'syntax_error',
            file: input.pred!.file,
            line: p.error.line,
            message: p.error.message,
          });
          return null;
        }
        return { file: input.pred!.file, rows: p.rows };
      })()
    : PRED_COLUMNS.some((c) => cols.has(c))
      ? { file, rows: parsed.rows }
      : null;
  if (errors()) return fail();
  if (predIn) {
    predFile = predIn.file;
    const [phead, ...prows] = predIn.rows;
    const pcols = phead ? header(phead) : new Map<string, number>();
    const column = PRED_COLUMNS.find((c) => pcols.has(c));
    if (!phead || column === undefined) {
      problems.push({
        severity: 'error',
        code: 'missing_field',
        file: predIn.file,
        line: phead?.line ?? 1,
        field: 'generated_query',
        message: `The predictions CSV needs a column ${PRED_COLUMNS.join(' or ')}${phead ? ` (it has ${phead.cells.join(', ')})` : ''}.`,
      });
      return fail();
    }
    if (prows.length !== rows.length) {
      problems.push({
        severity: 'error',
        code: 'count_mismatch',
        file: predIn.file,
        line: prows.length > rows.length ? prows[rows.length]!.line : (prows[prows.length - 1]?.line ?? phead.line) + 1,
        field: column,
        message: `${predIn.file} has ${prows.length} prediction row(s); ${file} has ${rows.length} question row(s): they are matched by row.`,
      });
      return fail();
    }
    records = prows.map((r, i) => {
      const sql = r.cells[pcols.get(column)!] ?? '';
      return { id: cases[i]!.id, sql: sql.trim() === '' ? null : sql };
    });
  }
  if (errors()) return fail();
  return {
    ok: true,
    problems,
    imported: importedBenchmark('csv', {
      corpusName: input.corpusName ?? baseName(file),
      description: `Imported from the questions CSV ${file}.`,
      cases,
      records,
      predFile: predFile,
      ...(input.agent !== undefined ? { agent: input.agent } : {}),
      ...(input.model !== undefined ? { model: input.model } : {}),
    }),
  };
}
