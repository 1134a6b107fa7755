/**
 * `--db-dir DIR`: every fixture a benchmark names, from one folder
 * (`DIR/<db>/<db>.sqlite`, as Spider and BIRD ship them, or `DIR/<db>.sqlite`),
 * and a bounded pool of engines over them: benchmarks name dozens of
 * databases, so at most a few engine threads stay open (cases come grouped
 * by database, so reopening is rare).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Engine } from '../core/engine.ts';
import { fail, ok, type Outcome } from '../core/errors.ts';
import type { DatabaseFolder } from '../core/import/common.ts';
import { openEngine } from '../engines/node.ts';
import type { SupervisedEngine } from '../engines/supervisor.ts';
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
 * Engines on SQLite database files. Starting an engine thread costs seconds,
 * loading a database milliseconds: a few engines are kept and the least
 * recently used one is reloaded with the next database asked for. An engine
 * handed out serves its database until the next call for another one (the
 * graders ask right before each use, one case at a time).
 */
export class DbDirPool {
  private readonly slots: { engine: SupervisedEngine; fixture: string | null; ready: Promise<Outcome<Engine>> }[] = [];

  constructor(
    private readonly files: Map<string, string>,
    private readonly capacity = 1,
  ) {}

  engineFor = async (fixture: string): Promise<Outcome<Engine>> => {
    const index = this.slots.findIndex((s) => s.fixture === fixture);
    if (index >= 0) {
      const [slot] = this.slots.splice(index, 1);
      this.slots.push(slot!); // most recently used last
      return slot!.ready;
    }
    let slot = this.slots.length < this.capacity ? null : this.slots.shift()!;
    if (!slot)
      slot = {
        engine: openEngine('sqlite'),
        fixture: null,
        ready: Promise.resolve(fail('fixture.not_loaded', 'Not loaded.')),
      };
    else await slot.ready.catch(() => undefined);
    slot.fixture = fixture;
    slot.ready = this.load(slot.engine, fixture);
    this.slots.push(slot);
    return slot.ready;
  };

  private async load(engine: SupervisedEngine, fixture: string): Promise<Outcome<Engine>> {
    const file = this.files.get(fixture);
    if (!file) return fail('input.not_found', `No database file for ${fixture}.`, { location: fixture });
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(readFileSync(file));
    } catch (thrown) {
      return fail(
        'input.not_found',
        `Cannot read ${file}: ${(thrown as NodeJS.ErrnoException).code ?? String(thrown)}.`,
        { location: fixture },
      );
    }
    const loaded = await engine.load({
      name: fixture,
      files: [{ fileName: path.basename(file), format: 'sqlite', bytes }],
    });
    if (!loaded.ok)
      return fail(loaded.error.code, `Fixture ${fixture} (${file}): ${loaded.error.message}`, { location: fixture });
    return ok(engine);
  }

  async close(): Promise<void> {
    const all = this.slots.map((s) => s.engine);
    this.slots.length = 0;
    await Promise.all(all.map((e) => e.close()));
  }
}
