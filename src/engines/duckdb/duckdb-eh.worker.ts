/**
 * DuckDB's own worker (the `eh` build), with its fetch of the wasm made
 * cache-aware first (wasm-once.ts): imports run in order, so the fetch is
 * replaced before DuckDB's code sets its message handler.
 */
import './wasm-once-setup.ts';
import '@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js';
