/**
 * The DuckDB wasm (34 MB) download as the page sees it: the engine host
 * worker that instantiates DuckDB posts DuckDB's own fetch progress on a
 * same-origin BroadcastChannel, so the page can show bytes and percent (and
 * the first-load cost) without a message path through every worker layer.
 * Only the channel's name and message shape live here (both sides read them).
 */
export const WASM_PROGRESS_CHANNEL = 'sql-verdict:duckdb-wasm';

export type WasmProgressMessage =
  | { kind: 'progress'; bytesLoaded: number; bytesTotal: number; elapsedMs: number }
  /** Downloaded (or read from the cache) and compiled. */
  | { kind: 'done'; bytesTotal: number; elapsedMs: number };
