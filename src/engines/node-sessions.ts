/** Engine sessions for Node (created inside an engine host worker thread). */
import { createRequire } from 'node:module';
import type { SqlJsStatic } from 'sql.js';
import type { SessionFactory } from './host.ts';
import { SqliteSession } from './sqlite/session.ts';

const require = createRequire(import.meta.url);

export const createNodeSession: SessionFactory = async (engine, settings) => {
  if (engine === 'duckdb') {
    // Loaded only by DuckDB hosts: a SQLite host thread starts without parsing the DuckDB-WASM bundle.
    const [{ createNodeDuckDbDriver }, { DuckDbSession }] = await Promise.all([import('./duckdb/driver-node.ts'), import('./duckdb/session.ts')]);
    return { session: new DuckDbSession(await createNodeDuckDbDriver(), settings), canCancel: false };
  }
  if (engine === 'pglite' || engine === 'postgres') {
    const { createPostgresSession } = await import('./postgres/node-session.ts');
    return createPostgresSession(engine);
  }
  const initSqlJs = require('sql.js') as (config: { locateFile: (file: string) => string }) => Promise<SqlJsStatic>;
  const SQL = await initSqlJs({ locateFile: (file) => require.resolve(`sql.js/dist/${file}`) });
  return { session: new SqliteSession(SQL), canCancel: false };
};
