/**
 * The one engine interface. DuckDB-WASM, sql.js and PGlite implement it (in
 * `src/engines`), in the browser and in Node, and a PostgreSQL server in the
 * CLI (`postgres`); the core only ever sees this.
 */
import { messageOf, type Outcome, type VerdictError } from './errors.ts';
import type { Column, ResultTable } from './value/kind.ts';

export const ENGINE_NAMES = ['duckdb', 'sqlite', 'pglite', 'postgres'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

export const FIXTURE_FORMATS = ['sql', 'duckdb', 'sqlite', 'csv', 'parquet'] as const;
export type FixtureFormat = (typeof FIXTURE_FORMATS)[number];

export interface FixtureFile {
  /** File name as the user knows it; CSV and Parquet tables are named after it. */
  fileName: string;
  format: FixtureFormat;
  bytes: Uint8Array;
}

/** A database that never changes during a run (SPEC 1.1). */
export interface FixtureSource {
  name: string;
  /** One SQL dump, one database file, or one CSV/Parquet file per table. */
  files: FixtureFile[];
  /**
   * The frozen clock: an ISO instant ("2025-12-31T23:59:59Z"). On DuckDB,
   * `current_date`, `today()`, `now()` and `current_timestamp` return it.
   */
  asOf?: string;
}

/**
 * An as-of instant as every engine reads it: an ISO date, or a date and time in UTC (DuckDB's session takes no
 * other zone); null when it is not one.
 */
export function asOfParts(asOf: string): { date: string; timestamp: string } | null {
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?))?(?:Z|[+-]00(?::?00)?)?$/.exec(asOf.trim());
  if (!m) return null;
  return { date: m[1]!, timestamp: `${m[1]} ${m[2] ?? '00:00:00'}` };
}

export interface TableInfo {
  name: string;
  columns: { name: string; engineType: string }[];
  rowCount: number;
}

export interface FixtureInfo {
  name: string;
  engine: EngineName;
  engineVersion: string;
  tables: TableInfo[];
  /** SHA-256 over the canonical dump of every table (see `digest/canonical-dump.ts`). */
  contentDigest: string;
  asOf?: string;
  loadMs: number;
}

/** Structurally an AbortSignal (the core's ES2022 library has no DOM types). */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface ExecuteOptions {
  /** Abort stops the query (cancel, or terminate the engine's worker) and resolves with `run.cancelled`. */
  signal?: CancelSignal;
  /** Wall-clock budget; past it the query is stopped. Default 5000. */
  timeoutMs?: number;
  /** Rows to materialize at most; more is an error (`sandbox.resource_exhausted`). Default 1,000,000. */
  maxRows?: number;
  /**
   * Bytes of decoded cells to hold at most (see `value/size.ts` for how a cell
   * counts), checked while rows stream out of the engine: past it the query is
   * stopped with `sandbox.resource_exhausted`. Default 256 MiB.
   */
  maxResultBytes?: number;
  /** A timing measurement (BIRD's VES): always executed, never answered from a cache of earlier results. */
  measure?: boolean;
}

export const DEFAULT_TIMEOUT_MS = 5000;
export const DEFAULT_MAX_ROWS = 1_000_000;
export const DEFAULT_MAX_RESULT_BYTES = 256 * 1024 * 1024;

export interface QueryResult extends ResultTable {
  columns: Column[];
  /** Engine wall-clock time for the query, in milliseconds. */
  elapsedMs: number;
}

export type ExecuteOutcome =
  { ok: true; value: QueryResult } | { ok: false; error: VerdictError & { elapsedMs?: number } };

/** An execution that threw instead of answering (a bug, a lost engine): an outcome all the same, its text kept. */
export function thrownExecution(thrown: unknown): ExecuteOutcome {
  const message = messageOf(thrown);
  return { ok: false, error: { code: 'execution.error', category: 'unknown_error', message, raw: message } };
}

/** A query plan reduced to what the performance scores need. */
export interface PlanSummary {
  /** Operator names as the engine prints them (HASH_JOIN, SEQ_SCAN; SCAN, USE TEMP B-TREE...). */
  operators: string[];
  text: string;
  /**
   * Rows each plan operator produced, one per operator box, when the engine
   * prints them: actual counts under `analyze` (DuckDB EXPLAIN ANALYZE),
   * otherwise the optimizer's estimates (DuckDB EXPLAIN "~N rows"). Absent
   * when the engine gives none (SQLite's EXPLAIN QUERY PLAN).
   */
  cardinalities?: { operator: string; rows: number }[];
  /** Whether `cardinalities` are measured (analyze) or estimated. */
  cardinality_source?: 'analyze' | 'estimate';
}

export interface ExplainOptions {
  /**
   * Run the query to measure operator cardinalities (DuckDB EXPLAIN ANALYZE).
   * The statement passes the same gate as execute first; engines that cannot
   * analyze return the plain plan.
   */
  analyze?: boolean;
}

export interface Engine {
  readonly name: EngineName;
  /** Engine build, e.g. "DuckDB v1.4.3 (duckdb-wasm 1.32.0)". */
  version(): Promise<string>;
  /** Replace whatever is loaded by this fixture, then lock the sandbox. */
  load(fixture: FixtureSource): Promise<Outcome<FixtureInfo>>;
  /** Run one untrusted read statement in the sandbox. Never throws for bad SQL. */
  execute(sql: string, options?: ExecuteOptions): Promise<ExecuteOutcome>;
  /** Recompute the loaded fixture's content digest. */
  contentDigest(): Promise<Outcome<string>>;
  /**
   * The engine's query plan of one read statement (it is checked by the same
   * gate as execute and never run): the operator names, one per plan node.
   */
  explain(sql: string, options?: ExplainOptions): Promise<Outcome<PlanSummary>>;
  close(): Promise<void>;
}

/** The SQL dialect an engine runs: PGlite and a PostgreSQL server are both PostgreSQL. */
export function sameDialect(a: EngineName, b: EngineName): boolean {
  const dialect = (e: EngineName) => (e === 'postgres' ? 'pglite' : e);
  return dialect(a) === dialect(b);
}

/** The engines cross-engine agreement asks besides the graded one: one per other dialect, among those that load the fixture. */
export const CROSS_ENGINES: readonly EngineName[] = ['duckdb', 'sqlite', 'pglite'];
export function crossEngineNames(graded: EngineName, loadable: readonly EngineName[]): EngineName[] {
  return CROSS_ENGINES.filter((n) => !sameDialect(n, graded) && loadable.includes(n));
}

/** Where a corpus written for an engine runs in the browser: a PostgreSQL corpus runs on PGlite. */
export function browserEngineFor(engine: EngineName): EngineName {
  return engine === 'postgres' ? 'pglite' : engine;
}

/** Which engine a fixture file format needs (the first is the default). Parquet loads on DuckDB only. */
export function enginesForFormat(format: FixtureFormat): EngineName[] {
  switch (format) {
    case 'sql':
      return ['duckdb', 'sqlite', 'pglite', 'postgres'];
    case 'csv':
      return ['duckdb', 'pglite', 'postgres'];
    case 'duckdb':
    case 'parquet':
      return ['duckdb'];
    case 'sqlite':
      return ['sqlite'];
  }
}

/** Guess a fixture file's format from its name (and, for databases, its magic bytes). */
export function detectFixtureFormat(fileName: string, bytes?: Uint8Array): FixtureFormat | null {
  const lower = fileName.toLowerCase();
  if (bytes && bytes.length >= 16) {
    const head = String.fromCharCode(...bytes.subarray(0, 16));
    if (head.startsWith('SQLite format 3')) return 'sqlite';
    if (bytes.length >= 12 && String.fromCharCode(...bytes.subarray(8, 12)) === 'DUCK') return 'duckdb';
    if (head.startsWith('PAR1')) return 'parquet';
  }
  if (lower.endsWith('.sql')) return 'sql';
  if (lower.endsWith('.duckdb') || lower.endsWith('.ddb')) return 'duckdb';
  if (lower.endsWith('.sqlite') || lower.endsWith('.sqlite3') || lower.endsWith('.db')) return 'sqlite';
  if (lower.endsWith('.csv') || lower.endsWith('.tsv')) return 'csv';
  if (lower.endsWith('.parquet')) return 'parquet';
  return null;
}
