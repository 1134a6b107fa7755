/**
 * Which DuckDB grades a `run` that was not told (no `--engine duckdb-native|duckdb-wasm`, no SQL_VERDICT_DUCKDB):
 * native DuckDB wherever its binding loads, else DuckDB-WASM, with no error. Native DuckDB starts in tens of
 * milliseconds where DuckDB-WASM compiles 34 MB of wasm first (the first case of a built-in corpus comes that much
 * sooner), is not bound by the wasm32 heap, and gives the same verdicts and evidence (docs/native-duckdb.md);
 * reports name the build in run_metadata.engine_version. Where it cannot load and a fixture is larger than
 * NATIVE_ABOVE_BYTES on disk, stderr says that DuckDB-WASM grades it anyway: DuckDB-WASM copies a fixture's files
 * into its heap (4 GiB at most, memory_limit 1GB by default) before it builds the tables.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { nativeDuckDbProblem } from '../engines/duckdb/native-available.ts';
import { byteSize } from './args.ts';
import type { Io } from './io.ts';

/** 256 MiB of fixture files: above it DuckDB-WASM grading instead of native DuckDB is said on stderr. SQL_VERDICT_NATIVE_ABOVE=SIZE changes it. */
export const NATIVE_ABOVE_BYTES = 256 * 2 ** 20;

/** The bytes of a fixture given as a path: a file, or a folder's fixture files. Built-in fixtures are a few kB. */
function bytesOnDisk(file: string): number {
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(file)
    .filter((n) => /\.(sql|csv|tsv|parquet)$/i.test(n))
    .reduce((sum, n) => sum + statSync(path.join(file, n)).size, 0);
}

const size = (bytes: number) =>
  bytes >= 2 ** 30
    ? `${(bytes / 2 ** 30).toFixed(1)} GiB`
    : bytes >= 2 ** 20
      ? `${Math.round(bytes / 2 ** 20)} MiB`
      : `${Math.round(bytes / 1024)} KiB`;

/**
 * Set SQL_VERDICT_DUCKDB for this process and its engine threads when it is unset: native where the binding loads,
 * else wasm (saying so on stderr when a fixture is over the size above which that matters). `fixtures`: the
 * corpus's fixture names; `overrides`: --fixture paths.
 */
export function chooseDuckDb(fixtures: Iterable<string>, overrides: Map<string, string>, io: Io): void {
  if (process.env.SQL_VERDICT_DUCKDB === 'native' || process.env.SQL_VERDICT_DUCKDB === 'wasm') return;
  const problem = nativeDuckDbProblem();
  if (!problem) {
    process.env.SQL_VERDICT_DUCKDB = 'native';
    return;
  }
  process.env.SQL_VERDICT_DUCKDB = 'wasm';
  const limit = byteSize('SQL_VERDICT_NATIVE_ABOVE', io.env.SQL_VERDICT_NATIVE_ABOVE) ?? NATIVE_ABOVE_BYTES;
  let largest: { name: string; bytes: number } | null = null;
  for (const name of new Set(fixtures)) {
    const file = overrides.get(name);
    if (!file) continue;
    const bytes = bytesOnDisk(file);
    if (!largest || bytes > largest.bytes) largest = { name, bytes };
  }
  if (!largest || largest.bytes <= limit) return;
  io.err(
    `Engine: DuckDB-WASM (fixture ${largest.name} is ${size(largest.bytes)}, over the ${size(limit)} above which ` +
      `DuckDB-WASM's 4 GiB heap may not hold it, but ${problem})`,
  );
}
