/**
 * `--db-dir DIR`: every fixture a benchmark names, from one folder
 * (`DIR/<db>/<db>.sqlite`, as Spider and BIRD ship them, or `DIR/<db>.sqlite`),
 * and a bounded pool of engines over them: benchmarks name dozens of
 * databases, so at most a few engine threads stay open (cases come grouped
 * by database, so reopening is rare).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
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
  return {
    dir: shown.replace(/\/+$/, ''),
    ids: [...files.keys()],
    withoutFile: withoutFile.filter((n) => !files.has(n)),
    files,
  };
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
