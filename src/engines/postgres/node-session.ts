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

export async function createPostgresSession(
  engine: 'pglite' | 'postgres',
): Promise<{ session: EngineSession; canCancel: boolean }> {
  if (engine === 'pglite') {
    // PGlite cannot interrupt a running query (no timer signal in single-threaded wasm): the supervisor terminates the thread.
    return {
      session: new PgSession(await createPgliteDriver(), {
        engine,
        schema: 'public',
        ownsDatabase: true,
        clock: { kind: 'date-now' },
      }),
      canCancel: false,
    };
  }
  const url = process.env[DATABASE_URL_ENV];
  if (!url) throw new Error(`The postgres engine needs a server: pass --database-url URL or set ${DATABASE_URL_ENV}.`);
  const { createPgDriver } = await import('./driver-pg.ts');
  const driver = await createPgDriver(url);
  // Each connection loads into a scratch schema named after its backend, so parallel engines on one
  // database do not collide; schemas of connections that are gone (a terminated host) are dropped.
  const pid = String((await driver.query('SELECT pg_backend_pid()::text')).rows[0]![0]);
  // pg_stat_activity reads through pg_stat_get_activity, whose EXECUTE the sandbox revokes from PUBLIC: an owner
  // that is not a superuser may no longer read it, and then leaves stale schemas for another run to drop.
  const stale = await driver
    .query(
      "SELECT nspname::text FROM pg_catalog.pg_namespace WHERE nspname ~ '^sql_verdict_[0-9]+$' AND substr(nspname, 13)::int NOT IN (SELECT pid FROM pg_catalog.pg_stat_activity WHERE pid IS NOT NULL) AND pg_catalog.pg_has_role(nspowner, 'USAGE')",
    )
    .catch(() => ({ rows: [] as unknown[][] }));
  for (const [name] of stale.rows)
    await driver.exec(`DROP SCHEMA IF EXISTS "${String(name)}" CASCADE`).catch(() => undefined);
  const schema = `sql_verdict_${pid}`;
  return {
    session: new PgSession(driver, { engine, schema, ownsDatabase: false, clock: { kind: 'refuse' } }),
    canCancel: false,
  };
}
