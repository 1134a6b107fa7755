/**
 * What every benchmark importer shares: the imported corpus and run (as the
 * native files would hold them), problems with file, line and field, the
 * database folder the cases name, and the native files' text (corpus YAML,
 * run JSONL) — `run --format` grades exactly what `import` writes.
 */
import { stringify } from 'yaml';
import type { LoadProblem, ProblemCode } from '../corpus/problems.ts';
import { closest, Source } from '../corpus/source.ts';
import type { Difficulty } from '../corpus/types.ts';
import { decodeUtf8Strict } from '../corpus/utf8.ts';

export const BENCHMARK_FORMATS = ['spider', 'bird', 'csv'] as const;
export type BenchmarkFormat = (typeof BENCHMARK_FORMATS)[number];

/** A file handed to an importer: the name the user gave, and its bytes. */
export interface InputFile {
  file: string;
  bytes: Uint8Array;
}

/**
 * The database folder, as the caller found it (the core reads no files):
 * `ids` have `<id>/<id>.sqlite` (or `<id>.sqlite`), `withoutFile` are folders
 * without their database file.
 */
export interface DatabaseFolder {
  dir: string;
  ids: readonly string[];
  /** Loose files dropped in the app: `<db>.sqlite` among them, no folder layout. */
  loose?: boolean;
  withoutFile?: readonly string[];
  /** id → why its file is not a SQLite database (empty, a Git LFS pointer, another format). */
  notDatabase?: ReadonlyMap<string, string>;
}

export interface ImportedCase {
  id: string;
  fixture: string;
  question: string;
  evidence?: string;
  /** One reference, or several accepted ones (the first is the primary). */
  reference_sql: string | string[];
  shape: 'rows';
  order_matters: boolean;
  difficulty?: Difficulty;
  tags: string[];
}

export interface ImportedRecord {
  id: string;
  sql: string | null;
}

export interface ImportedBenchmark {
  format: BenchmarkFormat;
  corpus: { corpus: string; version: number; engine: 'sqlite' | 'duckdb'; description: string; cases: ImportedCase[] };
  run: { agent: string; model?: string; notes: string } | null;
  records: ImportedRecord[];
  /** Fixture names used by the cases. */
  databases: string[];
}

/** What an importer found: the cases, their records and, with a predictions file, who wrote them. */
export interface ImportedParts {
  corpusName: string;
  description: string;
  cases: ImportedCase[];
  records: ImportedRecord[];
  /** The predictions file, when one was given (the run's default agent is its base name). */
  predFile?: string | null;
  agent?: string;
  model?: string;
}

/** The benchmark as a SQLite corpus and, with predictions, the run's header: one shape for every layout. */
export function importedBenchmark(format: BenchmarkFormat, parts: ImportedParts): ImportedBenchmark {
  const { predFile, cases } = parts;
  return {
    format,
    corpus: { corpus: parts.corpusName, version: 1, engine: 'sqlite', description: parts.description, cases },
    run: predFile
      ? {
          agent: parts.agent ?? baseName(predFile),
          ...(parts.model ? { model: parts.model } : {}),
          notes: `Predictions from ${predFile}.`,
        }
      : null,
    records: parts.records,
    databases: [...new Set(cases.map((c) => c.fixture))],
  };
}

export type ImportResult =
  { ok: true; imported: ImportedBenchmark; problems: LoadProblem[] } | { ok: false; problems: LoadProblem[] };

/** The result of an import that stopped at an error: nothing imported, the problems so far. */
export function importFailed(problems: LoadProblem[]): ImportResult {
  return { ok: false, problems };
}

/** The result of an import whose files had no error, with the user's agent and model when given. */
export function importSucceeded(
  format: BenchmarkFormat,
  problems: LoadProblem[],
  parts: Omit<ImportedParts, 'agent' | 'model'>,
  names: { agent?: string; model?: string },
): ImportResult {
  return {
    ok: true,
    problems,
    imported: importedBenchmark(format, {
      ...parts,
      ...(names.agent !== undefined ? { agent: names.agent } : {}),
      ...(names.model !== undefined ? { model: names.model } : {}),
    }),
  };
}

/**
 * An empty benchmark (a gold file of blank lines, dev.json `[]`, a CSV header without rows) is bad
 * input, named at its file: without this it reached the corpus loader, whose empty_corpus error
 * pointed into YAML the user never wrote and came out as an internal error, and `import` wrote a
 * corpus that `run --corpus` refuses. True when there are cases.
 */
export function hasCases(count: number, file: string, what: string, problems: LoadProblem[]): boolean {
  if (count > 0) return true;
  problems.push({
    severity: 'error',
    code: 'empty_corpus',
    file,
    line: 1,
    message: `${file} has no ${what}: nothing to grade.`,
  });
  return false;
}

/**
 * A dev.json of the other benchmark given to this importer: one error naming the format, at the
 * first element, instead of one per question (Spider's 1,034 each hinted "(found 'sql')", its
 * parsed-SQL object). Told by the first object element: Spider's has `query` and no `SQL`,
 * BIRD's has `SQL` (and usually `evidence`) and no `query`. True when it is the other one.
 */
export function isOtherDevJson(
  items: unknown[],
  lines: number[],
  file: string,
  want: 'spider' | 'bird',
  problems: LoadProblem[],
): boolean {
  const first = items.find((x) => typeof x === 'object' && x !== null && !Array.isArray(x)) as
    Record<string, unknown> | undefined;
  if (!first) return false;
  const spiderLike = typeof first.query === 'string' && first.SQL === undefined;
  const birdLike = typeof first.SQL === 'string' && first.query === undefined;
  const other = want === 'bird' ? (spiderLike ? 'spider' : null) : birdLike ? 'bird' : null;
  if (!other) return false;
  const line = lines[items.indexOf(first)];
  problems.push({
    severity: 'error',
    code: 'unknown_format',
    file,
    ...(line !== undefined ? { line } : {}),
    message:
      other === 'spider'
        ? `It looks like Spider's dev.json (its questions have 'query', not BIRD's 'SQL'): give --format spider.`
        : `It looks like BIRD's dev.json (its questions have 'SQL', not Spider's 'query'): give --format bird.`,
  });
  return true;
}

export class Problems {
  readonly list: LoadProblem[] = [];
  constructor(readonly file: string) {}
  error(code: ProblemCode, message: string, where: Partial<LoadProblem> = {}): void {
    this.list.push({ severity: 'error', code, file: this.file, ...where, message });
  }
  warning(code: ProblemCode, message: string, where: Partial<LoadProblem> = {}): void {
    this.list.push({ severity: 'warning', code, file: this.file, ...where, message });
  }
  get failed(): boolean {
    return this.list.some((p) => p.severity === 'error');
  }
}

/** UTF-8 text of an input, or a not_utf8 problem. A leading byte-order mark is dropped. */
export function textOf(input: InputFile, problems: LoadProblem[]): string | null {
  // UTF-16 (PowerShell's ">" writes it) was "byte 0xff cannot start a UTF-8 sequence" with its
  // mark and, without, valid UTF-8 full of NULs: a wrong line count, or predictions graded as garbage.
  const b = input.bytes;
  if (b.length >= 2 && ((b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff))) {
    problems.push({
      severity: 'error',
      code: 'not_utf8',
      file: input.file,
      message: 'The file is UTF-16 (byte-order mark); save it as UTF-8.',
    });
    return null;
  }
  const nul = b.indexOf(0);
  if (nul >= 0) {
    let line = 1;
    for (let i = 0; i < nul; i++) if (b[i] === 0x0a) line++;
    problems.push({
      severity: 'error',
      code: 'not_utf8',
      file: input.file,
      line,
      message: 'The file contains a NUL byte (UTF-16 without a byte-order mark?); save it as UTF-8.',
    });
    return null;
  }
  const decoded = decodeUtf8Strict(input.bytes);
  if (!decoded.ok) {
    problems.push({
      severity: 'error',
      code: 'not_utf8',
      file: input.file,
      line: decoded.line,
      column: decoded.column,
      message: `Not UTF-8 at byte ${decoded.offset}: ${decoded.reason}.`,
    });
    return null;
  }
  return decoded.text.replace(/^\uFEFF/, '');
}

/** JSON.parse, with the syntax error's line when it fails. */
export function parseJson(text: string, file: string, problems: LoadProblem[]): { value: unknown } | null {
  try {
    return { value: JSON.parse(text) };
  } catch (thrown) {
    const errors = new Source(text).errors();
    const first = errors[0];
    problems.push({
      severity: 'error',
      code: 'syntax_error',
      file,
      ...(first?.line !== undefined ? { line: first.line, column: first.column } : {}),
      message: `Not valid JSON: ${first?.message ?? (thrown instanceof Error ? thrown.message : String(thrown))}`,
    });
    return null;
  }
}

/**
 * A benchmark's JSON file whose top level must be a list (dev.json) or an
 * object (BIRD's predictions): its value and the line each top-level element
 * starts on, or null with the problem recorded (not UTF-8, not JSON, the wrong
 * shape: `message` says the shape expected).
 */
export function readJsonTop<T extends 'list' | 'object'>(
  input: InputFile,
  shape: T,
  message: string,
  problems: LoadProblem[],
): { value: T extends 'list' ? unknown[] : Record<string, unknown>; lines: number[] } | null {
  const text = textOf(input, problems);
  const parsed = text === null ? null : parseJson(text, input.file, problems);
  if (!parsed) return null;
  const v = parsed.value;
  const fits = shape === 'list' ? Array.isArray(v) : typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!fits) {
    problems.push({ severity: 'error', code: 'not_a_mapping', file: input.file, line: 1, message });
    return null;
  }
  return { value: v as T extends 'list' ? unknown[] : Record<string, unknown>, lines: topLevelLines(text!) };
}

/** Where a problem points: its file, and line, case and field when known. */
export type ProblemAt = Omit<LoadProblem, 'severity' | 'code' | 'message'>;

/** Where a problem with a JSON list's element points: the file, the element's line when known, its index. */
export function elementAt(
  file: string,
  line: number | undefined,
  index: number,
): { file: string; line?: number; case_index: number } {
  return { file, ...(line !== undefined ? { line } : {}), case_index: index };
}

/** A JSON list's element as an object, or null with an invalid_field problem (`shape` lists its fields). */
export function elementObject(
  item: unknown,
  index: number,
  at: ProblemAt,
  shape: string,
  problems: LoadProblem[],
): Record<string, unknown> | null {
  if (typeof item === 'object' && item !== null && !Array.isArray(item)) return item as Record<string, unknown>;
  problems.push({
    severity: 'error',
    code: 'invalid_field',
    ...at,
    message: `Element ${index} must be an object {${shape}}.`,
  });
  return null;
}

/**
 * 1-based lines where the top-level array's elements (or object's members)
 * start, in order: JSON.parse keeps no positions, and benchmark files are
 * too big for the YAML parser to be quick.
 */
export function topLevelLines(text: string): number[] {
  const out: number[] = [];
  let line = 1;
  let depth = 0;
  let expecting = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\n') {
      line++;
      continue;
    }
    if (ch === ' ' || ch === '\t' || ch === '\r') continue;
    if (depth === 1 && expecting) {
      out.push(line);
      expecting = false;
    }
    if (ch === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) {
        if (text[i] === '\\') i++;
        else if (text[i] === '\n') line++;
      }
      continue;
    }
    if (ch === '[' || ch === '{') {
      depth++;
      if (depth === 1) expecting = true;
    } else if (ch === ']' || ch === '}') {
      depth--;
      if (depth === 1) expecting = false;
    } else if (ch === ',' && depth === 1) expecting = true;
    else if (ch === ':' && depth === 1) expecting = false;
  }
  return out;
}

/** Check every database a case names against the folder; one problem per database, at its first line. */
export function checkDatabases(
  uses: { db: string; line: number | undefined; field: string; file: string; case_id?: string }[],
  folder: DatabaseFolder | undefined,
  problems: LoadProblem[],
): void {
  if (!folder) return;
  const reported = new Set<string>();
  const lines = new Map<string, number>();
  for (const u of uses) lines.set(u.db, (lines.get(u.db) ?? 0) + 1);
  for (const u of uses) {
    const unusable = folder.notDatabase?.get(u.db);
    if (reported.has(u.db) || (folder.ids.includes(u.db) && unusable === undefined)) continue;
    reported.add(u.db);
    const more = lines.get(u.db)! - 1;
    const also = more > 0 ? ` (and ${more} more line${more === 1 ? '' : 's'} name it)` : '';
    const at = {
      file: u.file,
      ...(u.line !== undefined ? { line: u.line } : {}),
      field: u.field,
      ...(u.case_id ? { case_id: u.case_id } : {}),
    };
    // Found before grading: at grading time it ended the run after the cases before it were graded.
    if (unusable !== undefined)
      problems.push({ severity: 'error', code: 'missing_database', ...at, message: `${unusable}${also}.` });
    else if (folder.withoutFile?.includes(u.db))
      problems.push({
        severity: 'error',
        code: 'missing_database',
        ...at,
        message: `The database folder ${folder.dir}/${u.db} has no ${u.db}.sqlite${also}.`,
      });
    else {
      const hint = closest(u.db, folder.ids);
      problems.push({
        severity: 'error',
        code: 'unknown_fixture',
        ...at,
        message: `Unknown db_id '${u.db}': ${folder.loose ? `no ${u.db}.sqlite among the files` : `${folder.dir} has no ${u.db}/${u.db}.sqlite`}${hint ? ` (did you mean '${hint}'?)` : ''}${also}.`,
      });
    }
  }
}

/** The corpus as the YAML file `import` writes (and `run --format` stamps). */
export function corpusYaml(imported: ImportedBenchmark): string {
  const c = imported.corpus;
  const doc = {
    corpus: c.corpus,
    version: c.version,
    engine: c.engine,
    description: c.description,
    case_count: c.cases.length,
    cases: c.cases,
  };
  return stringify(doc, { lineWidth: 0 });
}

/** The run as the JSONL file `import` writes: a metadata line, then one record per case. */
export function runJsonl(imported: ImportedBenchmark): string {
  const lines = [
    JSON.stringify({
      run: {
        agent: imported.run?.agent ?? 'unknown',
        ...(imported.run?.model ? { model: imported.run.model } : {}),
        notes: imported.run?.notes ?? '',
      },
    }),
  ];
  for (const r of imported.records) lines.push(JSON.stringify({ id: r.id, sql: r.sql }));
  return `${lines.join('\n')}\n`;
}

/** SQL Verdict's reading of whether a reference's row order matters: it has an ORDER BY. */
export function ordersRows(sql: string): boolean {
  return /\border\s+by\b/i.test(sql);
}

/** A prediction as a run record: a blank one is no query. */
export function predictionRecord(id: string, sql: string): ImportedRecord {
  return { id, sql: sql.trim() === '' ? null : sql };
}

/** A file name without folders and extension (a system's name from its predictions file). */
export function baseName(file: string): string {
  return file
    .replace(/\\/g, '/')
    .split('/')
    .pop()!
    .replace(/\.[^.]*$/, '');
}

/** Case ids padded to the count, so they sort in file order. */
export function indexId(prefix: string, index: number, total: number): string {
  return `${prefix}${String(index).padStart(Math.max(4, String(total - 1).length), '0')}`;
}
