/**
 * PGlite (PostgreSQL compiled to WebAssembly, @electric-sql/pglite 0.5.16)
 * as a PgDriver, in a Node worker thread or a browser Web Worker: the same
 * package in both; only where its wasm and data files come from differs.
 */
import type { PGlite, PGliteOptions } from '@electric-sql/pglite';
import type { PgDriver, PgRows } from './driver.ts';

export const PGLITE_PACKAGE_VERSION = '0.5.16';

type Parsers = Record<number, (text: string) => string>;

export async function createPgliteDriver(options: PGliteOptions = {}): Promise<PgDriver> {
  const { PGlite: PGliteClass } = await import('@electric-sql/pglite');
  const db: PGlite = await PGliteClass.create(options);
  // Every type read as its text: a parser per oid that returns the text unchanged.
  let parsers: Parsers = {};
  const refreshTypes = async () => {
    const result = await db.query<[number]>('SELECT oid::int4 FROM pg_catalog.pg_type', [], { rowMode: 'array' });
    const next: Parsers = {};
    for (const [oid] of result.rows) next[oid] = (text: string) => text;
    parsers = next;
  };
  await refreshTypes();
  let versionText = '';
  return {
    async version() {
      if (!versionText) {
        const result = await db.query<[string]>("SELECT current_setting('server_version')", [], { rowMode: 'array' });
        versionText = `PostgreSQL ${result.rows[0]![0]} (PGlite ${PGLITE_PACKAGE_VERSION})`;
      }
      return versionText;
    },
    async query(sql: string): Promise<PgRows> {
      const result = await db.query<(string | null)[]>(sql, [], { rowMode: 'array', parsers });
      return {
        fields: result.fields.map((f) => ({ name: f.name, oid: f.dataTypeID })),
        rows: result.rows,
        command: (result as { command?: string }).command?.split(' ')[0]?.toUpperCase() ?? 'SELECT',
      };
    },
    async exec(sql: string) {
      await db.exec(sql);
    },
    refreshTypes,
    close: () => db.close(),
  };
}
