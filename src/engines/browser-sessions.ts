/** Engine sessions for the browser (created inside an engine host Web Worker). */
import initSqlJs from 'sql.js';
import sqlWasmUrl from 'sql.js/dist/sql-wasm-browser.wasm?url';
import { createBrowserDuckDbDriver } from './duckdb/driver-browser.ts';
import { DuckDbSession } from './duckdb/session.ts';
import type { SessionFactory } from './host.ts';
import { SqliteSession } from './sqlite/session.ts';

export const createBrowserSession: SessionFactory = async (engine, settings) => {
  if (engine === 'duckdb') {
    const driver = await createBrowserDuckDbDriver();
    return { session: new DuckDbSession(driver, settings), canCancel: driver.canCancel };
  }
  const SQL = await initSqlJs({ locateFile: () => sqlWasmUrl });
  // sql.js has no interrupt (sql.js#461): the supervisor terminates this worker to stop a query.
  return { session: new SqliteSession(SQL), canCancel: false };
};
