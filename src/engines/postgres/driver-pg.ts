/**
 * A PostgreSQL server as a PgDriver, through node-postgres (pg 8.23.1), for
 * the CLI's `postgres` engine. One connection per engine host; every value
 * comes back as the server's text (no pg type parsers).
 */
import pg from 'pg';
import type { PgDriver, PgRows } from '../pglite/driver.ts';

const AS_TEXT = { getTypeParser: () => (text: string) => text };

export async function createPgDriver(connectionString: string): Promise<PgDriver> {
  const client = new pg.Client({ connectionString, application_name: 'sql-verdict' });
  // A dropped connection (the server restarted) must not crash the host thread: the next call fails and is reported.
  client.on('error', () => undefined);
  await client.connect();
  let versionText = '';
  return {
    async version() {
      if (!versionText) {
        const result = await client.query<string[]>({
          text: "SELECT current_setting('server_version')",
          rowMode: 'array',
          types: AS_TEXT,
        });
        versionText = `PostgreSQL ${result.rows[0]![0]} (server, node-postgres 8.23.1)`;
      }
      return versionText;
    },
    async query(sql: string): Promise<PgRows> {
      // The extended protocol refuses a second statement in the text.
      const result = await client.query<(string | null)[]>({
        text: sql,
        rowMode: 'array',
        types: AS_TEXT,
        queryMode: 'extended',
      } as pg.QueryArrayConfig);
      return {
        fields: result.fields.map((f) => ({ name: f.name, oid: f.dataTypeID })),
        rows: result.rows,
        command: (result.command ?? 'SELECT').toUpperCase(),
      };
    },
    async exec(sql: string) {
      await client.query(sql);
    },
    async refreshTypes() {},
    close: () => client.end(),
  };
}
