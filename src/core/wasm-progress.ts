/**
 * The DuckDB wasm (34 MB) download as the page sees it: the thread that
 * compiles it (the app worker, src/engines/duckdb/wasm-module.ts; else DuckDB's
 * worker as it fetches) posts the fetch progress on a same-origin BroadcastChannel, so the page can show bytes and percent (and
 * the first-load cost) without a message path through every worker layer.
 * Only the channel's name and message shape live here (both sides read them).
 */
export const WASM_PROGRESS_CHANNEL = 'sql-verdict:duckdb-wasm';
/**
 * PGlite's first load, the same messages on their own channel: its three files (PostgreSQL's wasm, initdb's
 * wasm, the data bundle) summed, posted by the engine host that starts it (src/engines/pglite/driver-browser.ts).
 */
export const PGLITE_PROGRESS_CHANNEL = 'sql-verdict:pglite-wasm';

/**
 * The wasm is downloaded once, by whoever asks first (the app worker starting
 * an engine, or the service worker installing for offline use), under this
 * Web Lock, into this cache; the other finds it there. The cache outlives the
 * service worker's versioned cache (the wasm's hashed name changes only with it).
 */
export const WASM_CACHE = 'sql-verdict-wasm';
export const WASM_LOCK = 'sql-verdict:duckdb-wasm-download';

export type WasmProgressMessage =
  | { kind: 'progress'; bytesLoaded: number; bytesTotal: number; elapsedMs: number }
  /** Downloaded (or read from the cache) and compiled. */
  | { kind: 'done'; bytesTotal: number; elapsedMs: number }
  /** The service worker's download for offline use finished (DuckDB not started). */
  | { kind: 'cached'; bytesTotal: number; elapsedMs: number };
