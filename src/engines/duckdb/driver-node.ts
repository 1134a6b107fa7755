/**
 * The blocking DuckDB-WASM bundle for Node. It runs inside a worker thread
 * (see `src/worker/engine-host.thread.ts`) so that a query that cannot be
 * cancelled is stopped by terminating the thread.
 */
import { createRequire } from 'node:module';
import type * as DuckDbBlocking from '@duckdb/duckdb-wasm/blocking';
import type { DuckDBBindings, DuckDBConnection } from '@duckdb/duckdb-wasm/blocking';
import type { DuckDbDriver, StreamedResult } from './session.ts';
import { ARROW_CODEC } from './decode.ts';
import { mark } from '../timeline.ts';

const require = createRequire(import.meta.url);

export async function createNodeDuckDbDriver(): Promise<DuckDbDriver> {
  const duckdb = require('@duckdb/duckdb-wasm/dist/duckdb-node-blocking.cjs') as typeof DuckDbBlocking;
  const bundles = {
    mvp: {
      mainModule: require.resolve('@duckdb/duckdb-wasm/dist/duckdb-mvp.wasm'),
      mainWorker: require.resolve('@duckdb/duckdb-wasm/dist/duckdb-node-mvp.worker.cjs'),
    },
    eh: {
      mainModule: require.resolve('@duckdb/duckdb-wasm/dist/duckdb-eh.wasm'),
      mainWorker: require.resolve('@duckdb/duckdb-wasm/dist/duckdb-node-eh.worker.cjs'),
    },
  };
  mark('duckdb-wasm: bundle required');
  const db: DuckDBBindings = await duckdb.createDuckDB(bundles, new duckdb.VoidLogger(), duckdb.NODE_RUNTIME);
  await db.instantiate(() => {});
  mark('duckdb-wasm: instantiated');
  db.open({});
  let conn: DuckDBConnection = db.connect();
  const version = `DuckDB ${db.getVersion()} (duckdb-wasm ${duckdb.PACKAGE_VERSION}, blocking)`;
  return {
    canCancel: false,
    codec: ARROW_CODEC,
    async reopen() {
      conn.close();
      db.open({});
      conn = db.connect();
      try {
        db.dropFiles();
      } catch {
        // A file still referenced by the previous database is released with it.
      }
    },
    async version() {
      return version;
    },
    async query(sql) {
      return conn.query(sql);
    },
    async stream(sql): Promise<StreamedResult> {
      // A streamed result: DuckDB computes the next chunk only when the reader asks for it, so
      // the byte budget stops a large result before it exists (query() would materialize all
      // of it in the wasm heap first). Nothing can cancel while a chunk is computed: the
      // supervisor terminates the thread instead.
      const reader = (await conn.send(sql, true)).open();
      return { fields: reader.schema.fields.map((f) => ({ name: f.name, type: f.type })), batches: reader };
    },
    async cancel() {
      // Drops a result stream left half read (the budget stopped it); never reached mid-query.
      conn.cancelSent();
      return false;
    },
    async registerFile(name, bytes) {
      db.registerFileBuffer(name, bytes);
    },
    tokenize: async (sql) => db.tokenize(sql),
    mark,
  };
}
