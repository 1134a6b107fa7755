/**
 * A benchmark folder as a user drops it (or picks it) in the app: Spider's
 * `dev.json` / `dev_gold.sql` + a predictions `.txt` + `database/<db>/<db>.sqlite`,
 * or BIRD's `dev.json` / `mini_dev_*.json` + `predict_*.json` + `dev_databases/`,
 * or a defog-style questions CSV (+ a predictions CSV) with the databases its
 * db_name column names (`<db>.sqlite` or `<db>/<db>.sqlite`).
 * Which file plays which part is told from names and first bytes only (the
 * database files can be large); the importers then read the text files.
 * Everything inside a database's own folder besides its database file
 * (Spider's schema.sql, BIRD's database_description/*.csv) is not a benchmark file.
 */
import type { BenchmarkFormat, DatabaseFolder, InputFile } from './common.ts';
import { PRED_COLUMNS } from './csv-columns.ts';

/** A dropped or picked file: its path inside what was dropped ('/'-separated; a bare name when flat). */
export interface FolderFile {
  path: string;
  bytes: Uint8Array;
}

export interface BenchmarkFolder {
  format: BenchmarkFormat;
  gold?: InputFile;
  questions?: InputFile;
  pred?: InputFile;
  databases: DatabaseFolder;
  /** db id → its database file. */
  databaseFiles: Record<string, FolderFile>;
  /** Why each file was taken for its part (shown to the user). */
  roles: { path: string; role: 'gold' | 'questions' | 'predictions' | 'database' }[];
}

export type FolderDetection =
  { kind: 'none' } | { kind: 'benchmark'; folder: BenchmarkFolder } | { kind: 'problem'; message: string };

const DB_EXTENSIONS = ['.sqlite', '.sqlite3', '.db'];
/** The first bytes as text, byte by byte: detection looks for ASCII keys and markers only (the core has no TextDecoder). */
const head = (bytes: Uint8Array, n = 8192): string => {
  let out = '';
  const end = Math.min(n, bytes.length);
  for (let i = 0; i < end; i += 4096) out += String.fromCharCode(...bytes.subarray(i, Math.min(end, i + 4096)));
  return out;
};
const base = (p: string) => p.split('/').pop() ?? p;
const dirOf = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');
const stem = (name: string) => name.replace(/\.[^.]+$/, '');

const SQLITE_HEADER = 'SQLite format 3\0';

const isDatabaseName = (f: FolderFile) => DB_EXTENSIONS.some((e) => base(f.path).toLowerCase().endsWith(e));

/**
 * The size a SQLite database's header declares (page size × page count, when that count is current), or null when
 * the header does not tell it: a file shorter than that is a cut copy.
 */
export function sqliteDeclaredSize(bytes: Uint8Array): number | null {
  if (bytes.length < 100 || head(bytes, 16) !== SQLITE_HEADER) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, 100);
  const pageSize = view.getUint16(16) === 1 ? 65536 : view.getUint16(16);
  const pages = view.getUint32(28);
  const current = view.getUint32(24) === view.getUint32(92);
  return current && pages > 0 ? pageSize * pages : null;
}

/**
 * Why a file named like a database is not a usable SQLite database (null when it is one), as `--db-dir` tells it
 * (cli/db-dir.ts): the app dropped an empty file unseen ("has no shop/shop.sqlite", though it had), and a cut copy
 * got as far as grading, where it failed the whole run.
 */
function whyNotSqlite(f: FolderFile): string | null {
  const { bytes, path } = f;
  if (bytes.length === 0) return `${path} is empty (0 bytes), not a SQLite database: an interrupted copy or download?`;
  if (head(bytes, 16) === SQLITE_HEADER) {
    if (bytes.length < 100) return `${path} is cut short (${bytes.length} bytes), not a whole SQLite database`;
    const declared = sqliteDeclaredSize(bytes);
    if (declared !== null && bytes.length < declared)
      return `${path} is cut short: ${bytes.length} bytes of the ${declared} its header declares (an interrupted copy or download?)`;
    return null;
  }
  if (head(bytes, 64).startsWith('version https://git-lfs'))
    return `${path} is not a SQLite database (a Git LFS pointer: "git lfs pull" fetches the file)`;
  return `${path} is not a SQLite database (it does not start with "SQLite format 3")`;
}

/** A Spider gold file: every non-empty line is `SQL<TAB>db_id`. */
function isGold(f: FolderFile): boolean {
  if (!base(f.path).toLowerCase().endsWith('.sql')) return false;
  const lines = head(f.bytes)
    .split(/\r?\n/)
    .slice(0, 20)
    .filter((l) => l.trim() !== '');
  return (
    lines.length > 0 &&
    lines.every((l) => /\t\s*[A-Za-z0-9_]+\s*$/.test(l)) &&
    !/\bCREATE\s+TABLE\b/i.test(head(f.bytes))
  );
}

/** A CSV's column names from its first line (lower case; defog's headers quote no commas), or null when not a .csv. */
function csvHeader(f: FolderFile): string[] | null {
  if (!base(f.path).toLowerCase().endsWith('.csv')) return null;
  const first =
    head(f.bytes, 4096)
      .replace(/^\xEF\xBB\xBF/, '')
      .split(/\r?\n/, 1)[0] ?? '';
  return first.split(',').map((c) => c.trim().replace(/^"|"$/g, '').toLowerCase());
}

/** defog's questions CSV: question and query columns (db_name is checked by the importer, by line). */
const isQuestionsCsv = (f: FolderFile) => {
  const cols = csvHeader(f);
  return !!cols && cols.includes('question') && cols.includes('query');
};

/** A predictions CSV: a generated_query (sql, predicted_sql, prediction) column and no reference query. */
const isPredictionsCsv = (f: FolderFile) => {
  const cols = csvHeader(f);
  return !!cols && !cols.includes('query') && PRED_COLUMNS.some((c) => cols.includes(c));
};

type JsonKind = 'spider-questions' | 'bird-questions' | 'bird-predictions' | 'other';

function jsonKind(f: FolderFile): JsonKind {
  const text = head(f.bytes);
  const start = text.trimStart();
  if (start.startsWith('{') && text.includes('----- bird -----')) return 'bird-predictions';
  if (!start.startsWith('[') || /"table_names"\s*:/.test(text)) return 'other';
  if (/"SQL"\s*:/.test(text) && /"db_id"\s*:/.test(text)) return 'bird-questions';
  if (/"query"\s*:/.test(text) && /"db_id"\s*:/.test(text)) return 'spider-questions';
  return 'other';
}

/** Among several candidates, the one named like the dev split (dev.json, dev_gold.sql, mini_dev_sqlite.json). */
function pick(candidates: FolderFile[], what: string): FolderFile | string | undefined {
  if (candidates.length <= 1) return candidates[0];
  const dev = candidates.filter((c) => /(^|_)dev([_.]|$)/i.test(base(c.path)));
  if (dev.length === 1) return dev[0];
  return `Several ${what} files: ${candidates.map((c) => c.path).join(', ')}; drop one of them.`;
}

const input = (f: FolderFile): InputFile => ({ file: f.path, bytes: f.bytes });

/** Tell whether the files are a Spider or BIRD benchmark and which file is which; 'none' when they are not one. */
export function detectBenchmarkFolder(files: readonly FolderFile[]): FolderDetection {
  const databaseFiles: Record<string, FolderFile> = {};
  const dbDirs = new Set<string>();
  // Files named like a database that are not a usable one: named by the importers where a case uses them.
  const notDatabase = new Map<string, string>();
  for (const f of files) {
    if (!isDatabaseName(f)) continue;
    const why = whyNotSqlite(f);
    if (why !== null) {
      const id = stem(base(f.path));
      if (!notDatabase.has(id)) notDatabase.set(id, why);
      if (base(dirOf(f.path)) === id) dbDirs.add(dirOf(f.path));
      continue;
    }
    const id = stem(base(f.path));
    if (databaseFiles[id])
      return { kind: 'problem', message: `Two database files for ${id}: ${databaseFiles[id].path} and ${f.path}.` };
    databaseFiles[id] = f;
    // database/<db>/<db>.sqlite: that folder is the database's own.
    const dir = dirOf(f.path);
    if (base(dir) === id) dbDirs.add(dir);
  }
  const inDbDir = (p: string) => [...dbDirs].some((d) => p.startsWith(`${d}/`));
  const rest = files.filter((f) => !isDatabaseName(f) && !inDbDir(f.path));
  const golds = rest.filter(isGold);
  const jsons = rest.filter((f) => base(f.path).toLowerCase().endsWith('.json'));
  const kinds = new Map(jsons.map((f) => [f, jsonKind(f)]));
  const of = (k: JsonKind) => jsons.filter((f) => kinds.get(f) === k);
  const birdQuestions = of('bird-questions');
  const spiderQuestions = of('spider-questions');
  const csvQuestions = rest.filter(isQuestionsCsv);
  const format = birdQuestions.length
    ? 'bird'
    : golds.length || spiderQuestions.length
      ? 'spider'
      : csvQuestions.length
        ? 'csv'
        : null;
  if (!format) return { kind: 'none' };
  const dir = [...dbDirs][0] ? dirOf([...dbDirs][0]!) || '.' : '.';
  const ids = Object.keys(databaseFiles).sort();
  for (const id of ids) notDatabase.delete(id);
  const loose = dbDirs.size === 0;
  const unusable = notDatabase.size ? { notDatabase } : {};
  const roles: BenchmarkFolder['roles'] = ids.map((id) => ({ path: databaseFiles[id]!.path, role: 'database' }));
  if (format === 'csv')
    return csvFolder(
      csvQuestions,
      rest.filter(isPredictionsCsv),
      { dir, ids, ...(loose ? { loose } : {}), ...unusable },
      databaseFiles,
      roles,
    );
  if (format === 'bird') {
    const questions = pick(birdQuestions, 'BIRD questions (dev.json)');
    const pred = pick(of('bird-predictions'), 'BIRD predictions (predict_*.json)');
    if (typeof questions === 'string') return { kind: 'problem', message: questions };
    if (typeof pred === 'string') return { kind: 'problem', message: pred };
    if (!pred)
      return {
        kind: 'problem',
        message: `BIRD questions ${questions!.path} but no predictions file: add predict_dev.json ({"0": "SQL\\t----- bird -----\\tdb_id", ...}).`,
      };
    roles.unshift({ path: questions!.path, role: 'questions' }, { path: pred.path, role: 'predictions' });
    return {
      kind: 'benchmark',
      folder: {
        format,
        questions: input(questions!),
        pred: input(pred),
        databases: { dir, ids, ...(loose ? { loose } : {}), ...unusable },
        databaseFiles,
        roles,
      },
    };
  }
  const gold = pick(golds, 'Spider gold (SQL<TAB>db_id)');
  const questions = pick(spiderQuestions, 'Spider questions (dev.json)');
  if (typeof gold === 'string') return { kind: 'problem', message: gold };
  if (typeof questions === 'string') return { kind: 'problem', message: questions };
  const preds = rest.filter((f) => /\.txt$/i.test(f.path) && !/readme|licen[cs]e/i.test(base(f.path)));
  const pred = pick(preds, 'Spider predictions (.txt, one SQL per line)');
  if (typeof pred === 'string') return { kind: 'problem', message: pred };
  if (!pred)
    return {
      kind: 'problem',
      message: `Spider ${gold ? 'gold file' : 'questions'} ${(gold ?? questions)!.path} but no predictions file: add a .txt with one SQL per line, aligned with the gold.`,
    };
  if (gold) roles.unshift({ path: gold.path, role: 'gold' });
  if (questions) roles.unshift({ path: questions.path, role: 'questions' });
  roles.splice(roles.length - ids.length, 0, { path: pred.path, role: 'predictions' });
  return {
    kind: 'benchmark',
    folder: {
      format,
      ...(gold ? { gold: input(gold) } : {}),
      ...(questions ? { questions: input(questions) } : {}),
      pred: input(pred),
      databases: { dir, ids, ...(loose ? { loose } : {}), ...unusable },
      databaseFiles,
      roles,
    },
  };
}

/** defog-style: the questions CSV, the predictions CSV (or that column in the questions CSV), the databases by name. */
function csvFolder(
  questionFiles: FolderFile[],
  predFiles: FolderFile[],
  databases: DatabaseFolder,
  databaseFiles: Record<string, FolderFile>,
  roles: BenchmarkFolder['roles'],
): FolderDetection {
  const questions = pick(questionFiles, 'questions CSV (question, query, db_name)')!;
  const pred = pick(predFiles, `predictions CSV (${PRED_COLUMNS.join(', ')})`);
  if (typeof questions === 'string') return { kind: 'problem', message: questions };
  if (typeof pred === 'string') return { kind: 'problem', message: pred };
  if (!pred && !PRED_COLUMNS.some((c) => csvHeader(questions)!.includes(c)))
    return {
      kind: 'problem',
      message: `Questions CSV ${questions.path} but no predictions: add a CSV with a ${PRED_COLUMNS[0]} column (one row per question, in order), or that column in ${questions.path}.`,
    };
  roles.unshift(
    { path: questions.path, role: 'questions' },
    ...(pred ? [{ path: pred.path, role: 'predictions' as const }] : []),
  );
  return {
    kind: 'benchmark',
    folder: {
      format: 'csv',
      questions: input(questions),
      ...(pred ? { pred: input(pred) } : {}),
      databases,
      databaseFiles,
      roles,
    },
  };
}
