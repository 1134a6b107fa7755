/**
 * `--db-dir DIR`: every fixture a benchmark names, from one folder
 * (`DIR/<db>/<db>.sqlite`, as Spider and BIRD ship them, or `DIR/<db>.sqlite`),
 * and a bounded pool of engines over them: benchmarks name dozens of
 * databases, so at most a few engine threads stay open (cases come grouped
 * by database, so reopening is rare).
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import type { FixtureSource } from '../core/engine.ts';
import { fail, ok, type Outcome } from '../core/errors.ts';
import type { DatabaseFolder } from '../core/import/common.ts';
import { openEngine } from '../engines/node.ts';
import { EnginePool } from '../engines/engine-pool.ts';
import { CliError } from './cli-error.ts';

const DB_EXTENSIONS = ['.sqlite', '.sqlite3', '.db'];

export interface ListedFolder extends DatabaseFolder {
  /** db id → database file. */
  files: Map<string, string>;
}

/** The databases in a folder, as the importers check them. */
export function listDbDir(dir: string, cwd: string, shown = dir): ListedFolder {
  const root = path.resolve(cwd, dir);
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new CliError(`--db-dir ${dir}: no such folder.`);
  const files = new Map<string, string>();
  const withoutFile: string[] = [];
  for (const name of readdirSync(root).sort()) {
    const full = path.join(root, name);
    if (statSync(full).isDirectory()) {
      const file = DB_EXTENSIONS.map((ext) => path.join(full, `${name}${ext}`)).find((f) => existsSync(f));
      if (file) files.set(name, file);
      else withoutFile.push(name);
    } else {
      const ext = DB_EXTENSIONS.find((e) => name.toLowerCase().endsWith(e));
      if (ext && !files.has(name.slice(0, -ext.length))) files.set(name.slice(0, -ext.length), full);
    }
  }
  const shownDir = shown.replace(/\/+$/, '');
  const notDatabase = new Map<string, string>();
  for (const [id, file] of files) {
    const why = notSqlite(file, path.join(shownDir, path.relative(root, file)));
    if (why) notDatabase.set(id, why);
  }
  return {
    dir: shownDir,
    ids: [...files.keys()],
    withoutFile: withoutFile.filter((n) => !files.has(n)),
    notDatabase,
    files,
  };
}

const SQLITE_HEADER = 'SQLite format 3\0';

/** Why a database file is not SQLite, from its first bytes (100 per file: cheap for a folder of them); null if it is. */
function notSqlite(file: string, shown: string): string | null {
  let head: Buffer;
  try {
    const fd = openSync(file, 'r');
    try {
      head = Buffer.alloc(100);
      head = head.subarray(0, readSync(fd, head, 0, 100, 0));
    } finally {
      closeSync(fd);
    }
  } catch (thrown) {
    return `Cannot read ${shown}: ${(thrown as NodeJS.ErrnoException).code ?? String(thrown)}`;
  }
  if (head.length === 0) return `${shown} is empty (0 bytes), not a SQLite database: an interrupted copy or download?`;
  if (head.subarray(0, 16).toString('latin1') === SQLITE_HEADER) {
    // The header's page size × page count (when its count is current) is the file's size: less is a cut copy.
    if (head.length < 100) return `${shown} is cut short (${head.length} bytes), not a whole SQLite database`;
    const pageSize = head.readUInt16BE(16) === 1 ? 65536 : head.readUInt16BE(16);
    const pages = head.readUInt32BE(28);
    const current = head.readUInt32BE(24) === head.readUInt32BE(92);
    const size = statSync(file).size;
    if (current && pages > 0 && size < pageSize * pages)
      return `${shown} is cut short: ${size} bytes of the ${pageSize * pages} its header declares (an interrupted copy or download?)`;
    return null;
  }
  if (head.toString('latin1').startsWith('version https://git-lfs'))
    return `${shown} is not a SQLite database (a Git LFS pointer: "git lfs pull" fetches the file)`;
  return `${shown} is not a SQLite database (it does not start with "SQLite format 3")`;
}

/**
 * Engines on SQLite database files (engines/engine-pool.ts with a capacity): starting an engine thread costs
 * seconds, loading a database milliseconds, so a few engines are kept and the least recently used one is reloaded
 * with the next database asked for.
 */
export class DbDirPool extends EnginePool {
  constructor(files: Map<string, string>, capacity = 1) {
    super({
      open: () => openEngine('sqlite'),
      source: (fixture) => databaseFile(files, fixture),
      capacity,
      label: (fixture) => `${fixture} (${files.get(fixture)})`,
    });
  }
}

function databaseFile(files: Map<string, string>, fixture: string): Outcome<FixtureSource> {
  const file = files.get(fixture);
  if (!file) return fail('input.not_found', `No database file for ${fixture}.`, { location: fixture });
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(readFileSync(file));
  } catch (thrown) {
    return fail(
      'input.not_found',
      `Cannot read ${file}: ${(thrown as NodeJS.ErrnoException).code ?? String(thrown)}.`,
      {
        location: fixture,
      },
    );
  }
  return ok({ name: fixture, files: [{ fileName: path.basename(file), format: 'sqlite', bytes }] });
}
