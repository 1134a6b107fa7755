/**
 * The built-in fixtures manifest (`fixtures/fixtures.json`, written by the
 * generator, read by the CLI): fixture name → dump, schema description, frozen clock, engines,
 * and the digests a loaded fixture must reproduce.
 */
import { ENGINE_NAMES, type EngineName, type FixtureSource } from '../engine.ts';
import type { LoadProblem } from './problems.ts';

export interface FixtureManifestEntry {
  name: string;
  title?: string;
  /** Dump path, relative to the manifest. */
  dump: string;
  /** Schema description path, relative to the manifest. */
  schema: string;
  /** The frozen clock (ISO instant). */
  asOf: string;
  engines: EngineName[];
  /** SHA-256 of the dump's raw bytes. */
  dumpSha256: string;
  /** SHA-256 of the canonical dump of every table, which each engine must reproduce after loading. */
  contentDigest: string;
  tables: Record<string, number>;
}

export type ManifestResult = { ok: true; entries: FixtureManifestEntry[] } | { ok: false; problems: LoadProblem[] };

export function parseFixtureManifest(text: string, file = 'fixtures/fixtures.json'): ManifestResult {
  const problems: LoadProblem[] = [];
  const bad = (message: string, field?: string) =>
    problems.push({ severity: 'error', code: 'invalid_field', file, message, ...(field ? { field } : {}) });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      problems: [
        {
          severity: 'error',
          code: 'syntax_error',
          file,
          message: error instanceof Error ? error.message : String(error),
        },
      ],
    };
  }
  const fixtures = (value as { fixtures?: unknown } | null)?.fixtures;
  if (typeof fixtures !== 'object' || fixtures === null || Array.isArray(fixtures))
    return {
      ok: false,
      problems: [
        {
          severity: 'error',
          code: 'missing_field',
          file,
          field: 'fixtures',
          message: 'The manifest needs a fixtures map (name → entry).',
        },
      ],
    };
  const entries: FixtureManifestEntry[] = [];
  for (const [name, raw] of Object.entries(fixtures as Record<string, unknown>)) {
    const f = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const field = (key: string) => `fixtures.${name}.${key}`;
    const str = (key: string) =>
      typeof f[key] === 'string' && f[key] !== ''
        ? (f[key] as string)
        : (bad(`${field(key)} must be a non-empty string.`, field(key)), '');
    const entry: FixtureManifestEntry = {
      name,
      dump: str('dump'),
      schema: str('schema'),
      asOf: str('as_of'),
      engines:
        Array.isArray(f.engines) &&
        f.engines.length > 0 &&
        f.engines.every((e) => (ENGINE_NAMES as readonly unknown[]).includes(e))
          ? (f.engines as EngineName[])
          : (bad(`${field('engines')} must list duckdb and/or sqlite.`, field('engines')), []),
      dumpSha256: str('dump_sha256'),
      contentDigest: str('content_digest'),
      tables: typeof f.tables === 'object' && f.tables !== null ? (f.tables as Record<string, number>) : {},
    };
    if (typeof f.title === 'string') entry.title = f.title;
    entries.push(entry);
  }
  return problems.length ? { ok: false, problems } : { ok: true, entries };
}

/**
 * A self-check fixture resolver over the manifest: the dump named by the
 * entry, read by `readBytes` (path relative to the manifest), with its frozen
 * clock and the content digest it must load with.
 */
export function manifestFixtureResolver(
  entries: readonly FixtureManifestEntry[],
  readBytes: (relativePath: string) => Promise<Uint8Array>,
): (name: string) => Promise<{ source: FixtureSource; contentDigest: string } | null> {
  return async (name) => {
    const entry = entries.find((e) => e.name === name);
    if (!entry) return null;
    const bytes = await readBytes(entry.dump);
    const source: FixtureSource = { name, files: [{ fileName: entry.dump, format: 'sql', bytes }] };
    if (entry.asOf) source.asOf = entry.asOf;
    return { source, contentDigest: entry.contentDigest };
  };
}
