/**
 * A CSV of questions in defog sql-eval's style: `question, query, db_name`
 * (optional `query_category` becomes a tag, `instructions` the evidence).
 * A query may accept alternatives: `;` separates whole alternative queries,
 * and `{a, b}` stands for every non-empty combination of its items in order
 * (`a`, `b`, `a, b`), as sql-eval expands them. Predictions: a second CSV
 * whose `generated_query` (or `sql`, `predicted_sql`) column is aligned by
 * row, or that column in the questions CSV itself.
 */
import { hasErrors, type LoadProblem } from '../corpus/problems.ts';
import { tokenize } from '../sql/lexer.ts';
import { PRED_COLUMNS } from './csv-columns.ts';
import {
  baseName,
  checkDatabases,
  hasCases,
  importFailed,
  importSucceeded,
  indexId,
  ordersRows,
  predictionRecord,
  textOf,
  type DatabaseFolder,
  type ImportedCase,
  type ImportedRecord,
  type ImportResult,
  type InputFile,
  type ProblemAt,
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

type Columns = Map<string, number>;

function header(row: CsvRow): Columns {
  return new Map(row.cells.map((h, i) => [h.trim().toLowerCase(), i]));
}

function cellOf(row: CsvRow, cols: Columns, name: string): string | undefined {
  const i = cols.get(name);
  return i === undefined ? undefined : row.cells[i];
}

/** A CSV file's records, or null with its problem (not UTF-8, a quoted field not closed). */
function readCsv(input: InputFile, problems: LoadProblem[]): CsvRow[] | null {
  const text = textOf(input, problems);
  if (text === null) return null;
  const parsed = parseCsv(text);
  if (parsed.error) {
    problems.push({
      severity: 'error',
      code: 'syntax_error',
      file: input.file,
      line: parsed.error.line,
      message: parsed.error.message,
    });
    return null;
  }
  return parsed.rows;
}

/** The CSV that holds the predictions, header first. */
interface PredictionCsv {
  file: string;
  rows: CsvRow[];
}

/** The questions CSV: its header's columns and the question rows under it. */
interface QuestionsCsv {
  file: string;
  head: CsvRow;
  cols: Columns;
  rows: CsvRow[];
}

export function importCsv(input: CsvImportInput): ImportResult {
  const problems: LoadProblem[] = [];
  const sheet = readQuestions(input.questions, problems);
  if (!sheet) return importFailed(problems);
  const { file, rows } = sheet;
  if (!hasCases(rows.length, file, 'question rows under its header', problems)) return importFailed(problems);
  const cases = rows.flatMap((row, i) => csvCase(sheet, row, i, problems) ?? []);
  if (hasErrors(problems)) return importFailed(problems);
  checkDatabases(
    cases.map((c, i) => ({ db: c.fixture, line: rows[i]!.line, field: 'db_name', file, case_id: c.id })),
    input.databases,
    problems,
  );
  const pred = readPredictions(input.pred, sheet, problems);
  if (hasErrors(problems)) return importFailed(problems);
  const records = pred ? predictionRecords(pred, rows, cases, file, problems) : [];
  if (!records) return importFailed(problems);
  return importSucceeded(
    'csv',
    problems,
    {
      corpusName: input.corpusName ?? baseName(file),
      description: `Imported from the questions CSV ${file}.`,
      cases,
      records,
      predFile: pred?.file ?? null,
    },
    input,
  );
}

/** The questions CSV, or null when it cannot be read or its header lacks question, query or db_name. */
function readQuestions(input: InputFile, problems: LoadProblem[]): QuestionsCsv | null {
  const file = input.file;
  const all = readCsv(input, problems);
  if (!all) return null;
  const [head, ...rows] = all;
  if (!head) {
    problems.push({
      severity: 'error',
      code: 'empty_corpus',
      file,
      line: 1,
      message: 'The CSV is empty; it needs a header line question,query,db_name.',
    });
    return null;
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
  return hasErrors(problems) ? null : { file, head, cols, rows };
}

/** A question row as a case, with every query its `{…}` and `;` alternatives stand for; null with its problems. */
function csvCase(sheet: QuestionsCsv, row: CsvRow, i: number, problems: LoadProblem[]): ImportedCase | null {
  const id = indexId('q', i, sheet.rows.length);
  const at = { file: sheet.file, line: row.line, case_index: i, case_id: id };
  if (row.cells.length !== sheet.head.cells.length) {
    problems.push({
      severity: 'error',
      code: 'invalid_field',
      ...at,
      message: `The row has ${row.cells.length} field(s); the header has ${sheet.head.cells.length}.`,
    });
    return null;
  }
  const cell = (name: string) => cellOf(row, sheet.cols, name);
  const question = cell('question')!.trim();
  const query = cell('query')!.trim();
  const db = cell('db_name')!.trim();
  if (!hasNonEmptyCells({ question, query, db_name: db }, at, problems)) return null;
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
    return null;
  }
  const category = cell('query_category')?.trim();
  const instructions = cell('instructions')?.trim();
  return {
    id,
    fixture: db,
    question,
    ...(instructions ? { evidence: instructions } : {}),
    reference_sql: references.length === 1 ? references[0]! : references,
    shape: 'rows',
    order_matters: ordersRows(references[0]!),
    tags: [db, ...(category ? [category] : [])],
  };
}

function hasNonEmptyCells(cells: Record<string, string>, at: ProblemAt, problems: LoadProblem[]): boolean {
  let ok = true;
  for (const [field, value] of Object.entries(cells))
    if (value === '') {
      problems.push({ severity: 'error', code: 'missing_field', ...at, field, message: `'${field}' is empty.` });
      ok = false;
    }
  return ok;
}

/** Predictions: their own CSV, or a generated_query column beside the questions; null when there are none. */
function readPredictions(
  input: InputFile | undefined,
  sheet: QuestionsCsv,
  problems: LoadProblem[],
): PredictionCsv | null {
  if (input) {
    const rows = readCsv(input, problems);
    return rows ? { file: input.file, rows } : null;
  }
  return PRED_COLUMNS.some((c) => sheet.cols.has(c)) ? { file: sheet.file, rows: [sheet.head, ...sheet.rows] } : null;
}

/**
 * The predictions' records, matched to the question rows by position; null
 * when the CSV has no prediction column or not one row per question.
 */
function predictionRecords(
  pred: PredictionCsv,
  rows: CsvRow[],
  cases: ImportedCase[],
  file: string,
  problems: LoadProblem[],
): ImportedRecord[] | null {
  const [phead, ...prows] = pred.rows;
  const pcols = phead ? header(phead) : new Map<string, number>();
  const column = PRED_COLUMNS.find((c) => pcols.has(c));
  if (!phead || column === undefined) {
    problems.push({
      severity: 'error',
      code: 'missing_field',
      file: pred.file,
      line: phead?.line ?? 1,
      field: 'generated_query',
      message: `The predictions CSV needs a column ${PRED_COLUMNS.join(' or ')}${phead ? ` (it has ${phead.cells.join(', ')})` : ''}.`,
    });
    return null;
  }
  if (prows.length !== rows.length) {
    problems.push({
      severity: 'error',
      code: 'count_mismatch',
      file: pred.file,
      line: prows.length > rows.length ? prows[rows.length]!.line : (prows[prows.length - 1]?.line ?? phead.line) + 1,
      field: column,
      message: `${pred.file} has ${prows.length} prediction row(s); ${file} has ${rows.length} question row(s): they are matched by row.`,
    });
    return null;
  }
  return prows.map((r, i) => predictionRecord(cases[i]!.id, r.cells[pcols.get(column)!] ?? ''));
}
