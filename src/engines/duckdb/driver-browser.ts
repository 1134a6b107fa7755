/**
 * The async DuckDB-WASM bundle for the browser. DuckDB runs in its own
 * worker (the `eh` build, served from this origin: no CDN), nested inside
 * the engine host worker; terminating the host terminates it too. Untrusted
 * queries go through `send()`, which `cancelSent()` can stop
 * (ENGINE-NOTES "Stopping queries"), so this driver can cancel.
 */
import {
  AsyncDuckDB,
  getPlatformFeatures,
  PACKAGE_VERSION,
  VoidLogger,
  type AsyncDuckDBConnection,
} from '@duckdb/duckdb-wasm';
import ehWasmUrl from '@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url';
import type { DuckDbDriver, StreamedResult } from './session.ts';
import { ARROW_CODEC } from './decode.ts';
import { WASM_PROGRESS_CHANNEL, type WasmProgressMessage } from '../../core/wasm-progress.ts';
import { WASM_MODULE_MESSAGE } from './wasm-once.ts';

/** instantiate(), its fetch progress posted for the page (src/core/wasm-progress.ts). */
async function instantiateWithProgress(db: AsyncDuckDB): Promise<void> {
  const channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(WASM_PROGRESS_CHANNEL);
  const started = performance.now();
  let total = 0;
  const post = (message: WasmProgressMessage) => channel?.postMessage(message);
  try {
    await db.instantiate(ehWasmUrl, null, (p) => {
      total = Math.max(total, p.bytesTotal, p.bytesLoaded);
      post({
        kind: 'progress',
        bytesLoaded: p.bytesLoaded,
        bytesTotal: p.bytesTotal,
        elapsedMs: performance.now() - started,
      });
    });
    post({ kind: 'done', bytesTotal: total, elapsedMs: performance.now() - started });
  } finally {
    channel?.close();
  }
}

/**
 * `compiled`: the wasm as the engine's starter compiled it (wasm-module.ts),
 * instantiated as is (its download progress was posted there); without it,
 * DuckDB's worker fetches and compiles, its progress posted from here.
 */
export async function createBrowserDuckDbDriver(compiled?: WebAssembly.Module): Promise<DuckDbDriver> {
  const features = await getPlatformFeatures();
  if (!features.wasmExceptions)
    throw new Error('This browser lacks WebAssembly exception handling, which the DuckDB build needs.');
  // DuckDB's worker, whose wasm download is shared with the service worker's cache (duckdb-eh.worker.ts).
  const worker = new Worker(new URL('./duckdb-eh.worker.ts', import.meta.url), { type: 'module' });
  // Before DuckDB's first message, so its worker has the module when DuckDB asks for the wasm.
  if (compiled) worker.postMessage({ kind: WASM_MODULE_MESSAGE, module: compiled });
  const db = new AsyncDuckDB(new VoidLogger(), worker);
  if (compiled) await db.instantiate(ehWasmUrl, null);
  else await instantiateWithProgress(db);
  await db.open({});
  let conn: AsyncDuckDBConnection = await db.connect();
  const version = `DuckDB ${await db.getVersion()} (duckdb-wasm ${PACKAGE_VERSION}, async eh)`;
  return {
    canCancel: true,
    codec: ARROW_CODEC,
    async reopen() {
      await conn.close();
      // open() replaces the database: a fresh in-memory one with default settings
      // (external access on, configuration unlocked, no tables).
      await db.open({});
      conn = await db.connect();
      try {
        await db.dropFiles();
      } catch {
        // A file still referenced by the previous database is released with it.
      }
    },
    async version() {
      return version;
    },
    query: (sql) => conn.query(sql),
    async stream(sql): Promise<StreamedResult> {
      const reader = await conn.send(sql, true);
      await reader.open(); // reads the schema message
      return { fields: reader.schema.fields.map((f) => ({ name: f.name, type: f.type })), batches: reader };
    },
    cancel: () => conn.cancelSent(),
    async registerFile(name, bytes) {
      await db.registerFileBuffer(name, bytes);
    },
    tokenize: async (sql) => db.tokenize(sql),
  };
}
