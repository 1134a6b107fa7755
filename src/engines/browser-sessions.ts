/** Engine sessions for the browser (created inside an engine host Web Worker). */
import initSqlJs from 'sql.js';
import sqlWasmUrl from 'sql.js/dist/sql-wasm-browser.wasm?url';
import { createBrowserDuckDbDriver } from './duckdb/driver-browser.ts';
import { DuckDbSession } from './duckdb/session.ts';
import type { SessionFactory } from './host.ts';
import { SqliteSession } from './sqlite/session.ts';

export const createBrowserSession: SessionFactory = async (engine, settings) => {
  if (engine === 'duckdb') {
    const driver = await createBrowserDuckDbDriver(settings.duckdbWasmModule);
    return { session: new DuckDbSession(driver, settings), canCancel: driver.canCancel };
  }
  if (engine === 'pglite') {
    // Loaded only by PGlite hosts: the other engines' workers do not fetch PostgreSQL's 15 MB.
    const [{ createBrowserPgliteDriver }, { PgSession }] = await Promise.all([
      import('./pglite/driver-browser.ts'),
      import('./pglite/session.ts'),
    ]);
    // No interrupt in single-threaded wasm: the supervisor terminates this worker to stop a query.
    return {
      session: new PgSession(await createBrowserPgliteDriver(), {
        engine,
        schema: 'public',
        ownsDatabase: true,
        clock: { kind: 'date-now' },
      }),
      canCancel: false,
    };
  }
  if (engine === 'postgres')
    throw new Error('The postgres engine (a PostgreSQL server) runs in the CLI only; in the browser, use pglite.');
  const SQL = await initSqlJs({ locateFile: () => sqlWasmUrl });
  // sql.js has no interrupt (sql.js#461): the supervisor terminates this worker to stop a query.
  return { session: new SqliteSession(SQL), canCancel: false };
};
