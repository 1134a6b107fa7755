/**
 * Which DuckDB grades a `run` that was not told (no `--engine duckdb-native|duckdb-wasm`, no SQL_VERDICT_DUCKDB):
 * DuckDB-WASM, unless a fixture the corpus uses is larger than NATIVE_ABOVE_BYTES on disk, where native DuckDB
 * grades (when its binding loads here). DuckDB-WASM copies a fixture's files into its heap (wasm32: 4 GiB at most,
 * and memory_limit 1GB by default) before it builds the tables; native DuckDB has neither bound. The threshold and
 * the figures behind it: docs/native-duckdb.md ("Chosen automatically").
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { nativeDuckDbProblem } from '../engines/duckdb/native-available.ts';
import { byteSize } from './args.ts';
import type { Io } from './io.ts';

/** 256 MiB of fixture files: above it `run` picks native DuckDB. SQL_VERDICT_NATIVE_ABOVE=SIZE changes it. */
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
 * Set SQL_VERDICT_DUCKDB for this process and its engine threads when it is unset, and say on stderr which engine
 * was chosen and why, when the size chose it. `fixtures`: the corpus's fixture names; `overrides`: --fixture paths.
 */
export function chooseDuckDb(fixtures: Iterable<string>, overrides: Map<string, string>, io: Io): void {
  if (process.env.SQL_VERDICT_DUCKDB === 'native' || process.env.SQL_VERDICT_DUCKDB === 'wasm') return;
  const limit = byteSize('SQL_VERDICT_NATIVE_ABOVE', io.env.SQL_VERDICT_NATIVE_ABOVE) ?? NATIVE_ABOVE_BYTES;
  let largest: { name: string; bytes: number } | null = null;
  for (const name of new Set(fixtures)) {
    const file = overrides.get(name);
    if (!file) continue;
    const bytes = bytesOnDisk(file);
    if (!largest || bytes > largest.bytes) largest = { name, bytes };
  }
  if (!largest || largest.bytes <= limit) return;
  const why = `fixture ${largest.name} is ${size(largest.bytes)}, over the ${size(limit)} above which run grades DuckDB corpora on native DuckDB`;
  const problem = nativeDuckDbProblem();
  if (problem) {
    io.err(`Engine: DuckDB-WASM (${why}, but ${problem})`);
    return;
  }
  process.env.SQL_VERDICT_DUCKDB = 'native';
  io.err(`Engine: native DuckDB (${why}; --engine duckdb-wasm keeps DuckDB-WASM).`);
}
