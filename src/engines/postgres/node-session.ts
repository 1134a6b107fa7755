/**
 * PostgreSQL sessions in a Node engine host thread: PGlite (`pglite`), or a
 * server named by SQL_VERDICT_DATABASE_URL (`postgres`; the CLI's
 * --database-url sets it before any host starts, and worker threads inherit
 * the environment).
 */
import type { EngineSession } from '../host-api.ts';
import { createPgliteDriver } from '../pglite/driver-pglite.ts';
import { PgSession } from '../pglite/session.ts';

export const DATABASE_URL_ENV = 'SQL_VERDICT_DATABASE_URL';

export async function createPostgresSession(engine: 'pglite' | 'postgres'): Promise<{ session: EngineSession; canCancel: boolean }> {
  if (engine === 'pglite') {
    // PGlite cannot interrupt a running query (no timer signal in single-threaded wasm): the supervisor terminates the thread.
    return { session: new PgSession(await createPgliteDriver(), { engine, schema: 'public', ownsDatabase: true, clock: { kind: 'date-now' } }), canCancel: false };
  }
  const url = process.env[DATABASE_URL_ENV];
  if (!url) throw new Error(`The postgres engine needs a server: pass --database-url URL or set ${DATABASE_URL_ENV}.`);
  const { createPgDriver } = await import('./driver-pg.ts');
  // Each host gets its own scratch schema, so parallel engines on one database do not collide.
  const schema = `sql_verdict_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  return { session: new PgSession(await createPgDriver(url), { engine, schema, ownsDatabase: false, clock: { kind: 'refuse' } }), canCancel: false };
}
