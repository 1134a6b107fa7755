// Evaluated before DuckDB's worker code (duckdb-eh.worker.ts imports it first): its fetch of the wasm goes through the cache.
import ehWasmUrl from '@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url';
import { fetchWasmOnceIn } from './wasm-once.ts';

fetchWasmOnceIn(globalThis, ehWasmUrl);
