/**
 * The contract between a supervisor and an engine host (a worker thread in
 * Node, a Web Worker in the browser). Everything crossing it is plain data.
 */
import type {
  EngineName,
  ExecuteOutcome,
  ExplainOptions,
  FixtureInfo,
  FixtureSource,
  PlanSummary,
} from '../core/engine.ts';
import type { Outcome } from '../core/errors.ts';

export interface HostExecuteOptions {
  maxRows: number;
  /** Decoded bytes to hold at most (ExecuteOptions.maxResultBytes); absent: the default. */
  maxResultBytes?: number;
  /**
   * The query's budget. An engine that can stop a query itself is told (a PostgreSQL server's statement_timeout:
   * ending the worker thread closes the connection, but the server would go on running the query); the caller's
   * timer stays the hard stop.
   */
  timeoutMs?: number;
}

export interface HostSettings {
  /** DuckDB `memory_limit` (e.g. "1GB"); keeps out-of-memory a clean SQL error below the wasm heap ceiling. */
  memoryLimit?: string;
  /** DuckDB in Node: the WASM bundle (default) or native DuckDB (@duckdb/node-api); see docs/native-duckdb.md. */
  duckdbDriver?: 'wasm' | 'native';
  /** In the browser: DuckDB's wasm compiled once by the thread that starts the hosts (duckdb/wasm-module.ts). */
  duckdbWasmModule?: WebAssembly.Module;
}

export interface EngineSession {
  version(): Promise<string>;
  load(fixture: FixtureSource): Promise<Outcome<FixtureInfo>>;
  execute(sql: string, options: HostExecuteOptions): Promise<ExecuteOutcome>;
  contentDigest(): Promise<Outcome<string>>;
  explain(sql: string, options?: ExplainOptions): Promise<Outcome<PlanSummary>>;
  /**
   * The engine state a query could leave behind for the next one (settings,
   * logs, temporary objects, variables), read by trusted SQL: tests compare
   * it before and after each attack.
   */
  sandboxState(): Promise<Outcome<Record<string, string>>>;
  /** Ask a running query to stop. False when this engine cannot cancel (the supervisor then terminates the host). */
  cancel(): Promise<boolean>;
  /**
   * Stop what runs, wait for every native call in flight, and release what the engine holds outside
   * JavaScript, before the host thread ends (native DuckDB: a thread ended while a node-api call is in flight
   * aborts the whole process; docs/native-duckdb.md). Optional.
   */
  dispose?(): Promise<void>;
}

export interface EngineHostApi extends EngineSession {
  /** `drainBeforeEnd`: end this host only after dispose() (SupervisorOptions, HostHandle). */
  init(
    engine: EngineName,
    settings: HostSettings,
  ): Promise<{ version: string; canCancel: boolean; drainBeforeEnd?: boolean }>;
  /** The session's dispose, once any init in progress settled (a host always has it). */
  dispose(): Promise<void>;
}
