// Evaluated before DuckDB's worker code (duckdb-eh.worker.ts imports it first): its fetch of the wasm goes
// through the cache, and a module compiled by the worker's starter is used instead of a second compile.
import ehWasmUrl from '@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url';
import { fetchWasmOnceIn, instantiateSharedModuleIn } from './wasm-once.ts';

fetchWasmOnceIn(globalThis, ehWasmUrl);
instantiateSharedModuleIn(globalThis, ehWasmUrl);
