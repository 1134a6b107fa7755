/**
 * Engine figures in Node: start-up, fixture load, and per-query overhead of
 * the sandboxed, supervised engine (main thread → worker thread → gate →
 * decode) over the raw engine call made in-process.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as DuckDbBlocking from '@duckdb/duckdb-wasm/blocking';
import type { SqlJsStatic } from 'sql.js';
import type { FixtureSource } from '../src/core/engine.ts';
import { openEngine } from '../src/engines/node.ts';
import { createPgliteDriver } from '../src/engines/pglite/driver-pglite.ts';
import { median, timeIt, type Figure } from './harness.ts';

const require = createRequire(import.meta.url);
const QUERIES = ['SELECT 1', 'SELECT count(*) FROM singer', 'SELECT name, age FROM singer ORDER BY age DESC'];
const RUNS = 30;

function concertSinger(spider: string): Uint8Array {
  return new Uint8Array(readFileSync(path.join(spider, 'database', 'concert_singer', 'concert_singer.sqlite')));
}

/** The same tables as a portable SQL dump (for DuckDB). */
async function dumpOf(SQL: SqlJsStatic, bytes: Uint8Array): Promise<string> {
  const db = new SQL.Database(bytes);
  const out: string[] = [];
  for (const [name, ddl] of db.exec("SELECT name, sql FROM sqlite_schema WHERE type='table'")[0]!.values) {
    out.push(
      `${String(ddl)
        .replace(/\bFOREIGN KEY[^,)]*\([^)]*\)\s*REFERENCES[^,)]*\([^)]*\)/gi, '')
        .replace(/,\s*\)/g, ')')};`,
    );
    const rows = db.exec(`SELECT * FROM "${String(name)}"`)[0]?.values ?? [];
    for (const row of rows)
      out.push(
        `INSERT INTO "${String(name)}" VALUES (${row.map((v) => (v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`)).join(', ')});`,
      );
  }
  db.close();
  return out.join('\n');
}

export async function benchNodeEngines(spider: string): Promise<Figure[]> {
  const figures: Figure[] = [];
  const initSqlJs = require('sql.js') as (c: { locateFile: (f: string) => string }) => Promise<SqlJsStatic>;
  const SQL = await initSqlJs({ locateFile: (f) => require.resolve(`sql.js/dist/${f}`) });
  const sqliteBytes = concertSinger(spider);
  const dump = await dumpOf(SQL, sqliteBytes);
  // PostgreSQL folds unquoted names to lower case and keeps quoted ones: the queries say `name`, the DDL "Name".
  const pgDump = dump.replace(/"([^"]+)"/g, (_, name: string) => `"${name.toLowerCase()}"`).replace(/,\s*\)/g, ')');

  const fixtures: Record<'duckdb' | 'sqlite' | 'pglite', FixtureSource> = {
    duckdb: {
      name: 'concert_singer',
      files: [{ fileName: 'concert_singer.sql', format: 'sql', bytes: new TextEncoder().encode(dump) }],
    },
    pglite: {
      name: 'concert_singer',
      files: [{ fileName: 'concert_singer.sql', format: 'sql', bytes: new TextEncoder().encode(pgDump) }],
    },
    sqlite: {
      name: 'concert_singer',
      files: [{ fileName: 'concert_singer.sqlite', format: 'sqlite', bytes: sqliteBytes }],
    },
  };

  // Raw engine calls, in-process.
  const duckdb = require('@duckdb/duckdb-wasm/dist/duckdb-node-blocking.cjs') as typeof DuckDbBlocking;
  const dist = (f: string) => require.resolve(`@duckdb/duckdb-wasm/dist/${f}`);
  const rawDb = await duckdb.createDuckDB(
    {
      mvp: { mainModule: dist('duckdb-mvp.wasm'), mainWorker: dist('duckdb-node-mvp.worker.cjs') },
      eh: { mainModule: dist('duckdb-eh.wasm'), mainWorker: dist('duckdb-node-eh.worker.cjs') },
    },
    new duckdb.VoidLogger(),
    duckdb.NODE_RUNTIME,
  );
  await rawDb.instantiate(() => {});
  rawDb.open({});
  const rawConn = rawDb.connect();
  rawConn.query(dump);
  const rawSqlite = new SQL.Database(sqliteBytes);
  const rawPglite = await createPgliteDriver();
  await rawPglite.exec(pgDump);
  const raw = {
    duckdb: (sql: string) => rawConn.query(sql),
    sqlite: (sql: string) => rawSqlite.exec(sql),
    pglite: (sql: string) => rawPglite.query(sql),
  };

  for (const name of ['duckdb', 'sqlite', 'pglite'] as const) {
    const engine = openEngine(name);
    figures.push({ name: `node.${name}.startup_ms`, value: await timeIt(() => engine.version()), unit: 'ms' });
    figures.push({
      name: `node.${name}.fixture_load_ms`,
      value: await timeIt(() => engine.load(fixtures[name])),
      unit: 'ms',
    });
    const ours: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      for (const sql of QUERIES) {
        ours.push(await timeIt(() => engine.execute(sql)));
        bare.push(await timeIt(() => raw[name](sql)));
      }
    }
    figures.push({ name: `node.${name}.query_ms_median`, value: median(ours), unit: 'ms' });
    figures.push({ name: `node.${name}.raw_query_ms_median`, value: median(bare), unit: 'ms' });
    figures.push({ name: `node.${name}.overhead_ms_median`, value: median(ours) - median(bare), unit: 'ms' });
    await engine.close();
  }
  rawSqlite.close();
  await rawPglite.close();
  return figures;
}
