/**
 * Turning files a user picked or dropped into a fixture, with a precise
 * reason when they cannot be one.
 */
import {
  detectFixtureFormat,
  enginesForFormat,
  type EngineName,
  type FixtureFile,
  type FixtureFormat,
} from '../../core/engine.ts';
import type { VerdictError } from '../../core/errors.ts';
import { sqliteDeclaredSize } from '../../core/import/folder.ts';

export interface PickedFile {
  name: string;
  bytes: Uint8Array;
  /** Its path inside a dropped or picked folder ('/'-separated), when it came from one. */
  path?: string;
}

export interface FixtureChoice {
  name: string;
  files: FixtureFile[];
  /** Engines that can load every file, preferred first. */
  engines: EngineName[];
}

export const ACCEPTED_EXTENSIONS = [
  '.sql',
  '.sqlite',
  '.sqlite3',
  '.db',
  '.duckdb',
  '.ddb',
  '.csv',
  '.tsv',
  '.parquet',
];

const FORMAT_LABEL: Record<FixtureFormat, string> = {
  sql: 'SQL dump',
  sqlite: 'SQLite database',
  duckdb: 'DuckDB database',
  csv: 'CSV file',
  parquet: 'Parquet file',
};

const ascii = (bytes: Uint8Array, from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));

/** What the bytes say the file is, when they say anything. */
function magicFormat(bytes: Uint8Array): FixtureFormat | null {
  if (ascii(bytes, 0, 15) === 'SQLite format 3') return 'sqlite';
  if (bytes.length >= 12 && ascii(bytes, 8, 12) === 'DUCK') return 'duckdb';
  if (ascii(bytes, 0, 4) === 'PAR1') return 'parquet';
  return null;
}

function problem(
  file: string,
  message: string,
  code: VerdictError['code'] = 'input.invalid',
): { ok: false; error: VerdictError } {
  return { ok: false, error: { code, message, location: file } };
}

function checkFile(file: PickedFile): { ok: true; value: FixtureFile } | { ok: false; error: VerdictError } {
  if (file.bytes.length === 0) return problem(file.name, `${file.name} is empty.`);
  const format = detectFixtureFormat(file.name, file.bytes);
  if (!format)
    return problem(
      file.name,
      `${file.name}: unrecognised fixture format. Use a SQL dump (.sql), a SQLite database (.sqlite, .db), a DuckDB database (.duckdb), or CSV / Parquet files (one table each).`,
      'fixture.unsupported_format',
    );
  const magic = magicFormat(file.bytes);
  if ((format === 'sqlite' || format === 'duckdb' || format === 'parquet') && magic !== format)
    return problem(
      file.name,
      `${file.name} is named like a ${FORMAT_LABEL[format]} but its content is not one (${magic ? `it looks like a ${FORMAT_LABEL[magic]}` : 'its header does not match'}).`,
    );
  // A cut copy passes the header check and was taken; grading then failed the whole run on it.
  const declared = format === 'sqlite' ? sqliteDeclaredSize(file.bytes) : null;
  if (declared !== null && file.bytes.length < declared)
    return problem(
      file.name,
      `${file.name} is cut short: ${file.bytes.length} bytes of the ${declared} its header declares (an interrupted copy or download?).`,
    );
  if (format === 'sql' || format === 'csv') {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(file.bytes);
    } catch {
      return problem(file.name, `${file.name} is not UTF-8 text; save the ${FORMAT_LABEL[format]} as UTF-8.`);
    }
  }
  return { ok: true, value: { fileName: file.name, format, bytes: file.bytes } };
}

const tableName = (fileName: string) => fileName.replace(/\.(csv|tsv|parquet)$/i, '').toLowerCase();

/**
 * One SQL dump, one database file, or several CSV / Parquet files (one
 * table each, DuckDB only).
 */
export function fixtureFromFiles(
  picked: PickedFile[],
): { ok: true; value: FixtureChoice } | { ok: false; error: VerdictError } {
  if (picked.length === 0) return { ok: false, error: { code: 'input.invalid', message: 'No file was given.' } };
  const files: FixtureFile[] = [];
  for (const file of picked) {
    const checked = checkFile(file);
    if (!checked.ok) return checked;
    files.push(checked.value);
  }
  if (files.length > 1) {
    const single = files.find((f) => f.format !== 'csv' && f.format !== 'parquet');
    if (single)
      return problem(
        single.fileName,
        `${single.fileName} is a ${FORMAT_LABEL[single.format]}, a fixture on its own: only CSV and Parquet files (one table each) can be combined.`,
      );
    const seen = new Map<string, string>();
    for (const f of files) {
      const other = seen.get(tableName(f.fileName));
      if (other)
        return problem(f.fileName, `${other} and ${f.fileName} would both become table "${tableName(f.fileName)}".`);
      seen.set(tableName(f.fileName), f.fileName);
    }
  }
  // A PostgreSQL server is for the CLI; the page runs PostgreSQL as PGlite.
  const engines = files
    .map((f) => enginesForFormat(f.format).filter((e) => e !== 'postgres'))
    .reduce((a, b) => a.filter((e) => b.includes(e)));
  const name = files.length === 1 ? files[0]!.fileName : `${files.length} files`;
  return { ok: true, value: { name, files, engines } };
}

/** Read browser File objects (picker or drop). */
export async function readPicked(files: Iterable<File>): Promise<PickedFile[]> {
  return Promise.all(
    [...files].map(async (f) => ({
      name: f.name,
      bytes: new Uint8Array(await f.arrayBuffer()),
      ...(f.webkitRelativePath ? { path: f.webkitRelativePath } : {}),
    })),
  );
}
