/** Resolve a fixture given on the command line: a file, a folder of table files, or a built-in name. */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  detectFixtureFormat,
  enginesForFormat,
  type EngineName,
  type FixtureFile,
  type FixtureFormat,
  type FixtureSource,
} from '../core/engine.ts';
import { fail, ok, type Outcome } from '../core/errors.ts';
import { CliError } from './cli-error.ts';

export interface ResolvedFixture {
  source: FixtureSource;
  /** Engines that can load it; the first is the default. */
  engines: EngineName[];
}

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface BuiltInEntry {
  dump: string;
  as_of?: string;
}

function builtInFixtures(): Record<string, BuiltInEntry> {
  const manifest = path.join(REPO_ROOT, 'fixtures', 'fixtures.json');
  if (!existsSync(manifest)) return {};
  try {
    const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { fixtures?: Record<string, BuiltInEntry> };
    return parsed.fixtures ?? {};
  } catch {
    return {};
  }
}

const FORMAT_NAMES: Record<FixtureFormat, string> = {
  sql: 'a SQL dump',
  sqlite: 'a SQLite database',
  duckdb: 'a DuckDB database',
  csv: 'a CSV table',
  parquet: 'a Parquet table',
};

function readFixtureFile(filePath: string): FixtureFile {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(readFileSync(filePath));
  } catch (thrown) {
    throw new CliError(`Cannot read fixture ${filePath}: ${(thrown as NodeJS.ErrnoException).code ?? String(thrown)}.`);
  }
  const fileName = path.basename(filePath);
  const format = detectFixtureFormat(fileName, bytes);
  if (!format)
    throw new CliError(`Cannot tell the format of ${filePath}: use .sql, .duckdb, .sqlite/.db, .csv or .parquet.`);
  // An empty file loads as an empty database (a SQL dump runs no statement, SQLite opens 0 bytes as a new
  // database): every reference then fails with "no such table", is set aside as broken, and the rest is scored.
  if (bytes.every((b) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d))
    throw new CliError(
      `${fileName} is empty (${bytes.length} bytes${bytes.length ? ', all white space' : ''}), not ${FORMAT_NAMES[format]}: an interrupted copy or download?`,
    );
  return { fileName, format, bytes };
}

/**
 * `--fixture NAME=PATH` (and --db-dir) of a corpus command: NAME → the file. `asOf` (--as-of) freezes the clock of
 * these user fixtures; a built-in keeps its own as-of instant.
 */
export class FixtureOverrides extends Map<string, string> {
  constructor(readonly asOf?: string) {
    super();
  }
}

/** The fixture a corpus names: its --fixture file (with --as-of, if given), else the built-in of that name. */
export function resolveCorpusFixture(overrides: FixtureOverrides, name: string, cwd: string): ResolvedFixture {
  const file = overrides.get(name);
  if (file === undefined) return resolveFixture(name, cwd);
  return resolveFixture(file, cwd, overrides.asOf);
}

/**
 * The frozen clock resolveFixture loads `spec` with, from the spec alone (no file is read): `asOf` (--as-of) for a
 * file or folder, else the built-in's own instant unless `asOf` replaces it; none for a file read on the real clock.
 */
export function fixtureSpecAsOf(spec: string, cwd: string, asOf?: string): string | undefined {
  if (existsSync(path.resolve(cwd, spec))) return asOf;
  return asOf ?? builtInFixtures()[spec]?.as_of;
}

export function resolveFixture(spec: string, cwd: string, asOf?: string): ResolvedFixture {
  const builtIns = builtInFixtures();
  const candidate = path.resolve(cwd, spec);
  const clock = fixtureSpecAsOf(spec, cwd, asOf);
  if (!existsSync(candidate)) {
    const builtIn = builtIns[spec];
    if (builtIn) {
      const file = readFixtureFile(path.resolve(REPO_ROOT, 'fixtures', builtIn.dump));
      return {
        source: { name: spec, files: [file], ...(clock ? { asOf: clock } : {}) },
        engines: enginesForFormat(file.format),
      };
    }
    const known = Object.keys(builtIns);
    throw new CliError(
      `Fixture not found: ${spec} (no such file${known.length ? `, and not a built-in fixture: ${known.join(', ')}` : ''}).`,
    );
  }
  let files: FixtureFile[];
  if (statSync(candidate).isDirectory()) {
    const names = readdirSync(candidate)
      .filter((n) => /\.(sql|csv|tsv|parquet)$/i.test(n))
      .sort();
    if (names.length === 0) throw new CliError(`Fixture folder ${spec} holds no .sql, .csv or .parquet files.`);
    files = names.map((n) => readFixtureFile(path.join(candidate, n)));
  } else {
    files = [readFixtureFile(candidate)];
  }
  const engines = files.map((f) => enginesForFormat(f.format)).reduce((a, b) => a.filter((e) => b.includes(e)));
  if (engines.length === 0)
    throw new CliError(
      `The files of fixture ${spec} need different engines (${files.map((f) => `${f.fileName}: ${f.format}`).join(', ')}).`,
    );
  const name = path.basename(candidate).replace(/\.[^.]+$/, '');
  return { source: { name, files, ...(clock ? { asOf: clock } : {}) }, engines };
}

/** A corpus's fixture by name: a --fixture override, else a built-in; it must load on the corpus's engine. */
export function fixtureSourceFor(
  engineName: EngineName,
  overrides: FixtureOverrides,
  cwd: string,
  fixture: string,
): Outcome<FixtureSource> {
  let resolved;
  try {
    resolved = resolveCorpusFixture(overrides, fixture, cwd);
  } catch (thrown) {
    return fail('input.not_found', thrown instanceof Error ? thrown.message : String(thrown), { location: fixture });
  }
  if (!resolved.engines.includes(engineName))
    return fail(
      'fixture.unsupported_format',
      // Name the files and the engines they need, as query and compare do: "a .sqlite on duckdb" is then plain.
      `Fixture ${fixture} cannot be loaded on ${engineName}: ${resolved.source.files
        .map((f) => `${f.fileName} (${f.format})`)
        .join(', ')} loads on ${resolved.engines.join(' or ')} only, and the corpus's engine is ${engineName}.`,
      { location: fixture },
    );
  resolved.source.name = fixture;
  return ok(resolved.source);
}
