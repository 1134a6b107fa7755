/**
 * Fixture loading in every supported format, the frozen clock, and the
 * content digest: the same dump loaded into both engines gives the same
 * digest; bad files fail with a message that names the file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine, FixtureSource } from '../../src/core/engine.ts';
import { openEngine } from '../../src/engines/node.ts';
import { duckDbTestFile } from '../helpers/duckdb-file.ts';
import { fileFixture, sqlFixture } from '../helpers/fixtures.ts';
import { spiderDatabase } from '../helpers/paths.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'sql-verdict-fixtures-'));
let duckdb: Engine;
let sqlite: Engine;

beforeAll(() => {
  duckdb = openEngine('duckdb');
  sqlite = openEngine('sqlite');
});

afterAll(async () => {
  await Promise.all([duckdb.close(), sqlite.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

async function rows(engine: Engine, sql: string) {
  const outcome = await engine.execute(sql);
  if (!outcome.ok) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
  return outcome.value.rows;
}

const PORTABLE_DUMP = `
CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR(40), city VARCHAR(40), joined DATE);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, amount DECIMAL(10,2), placed_at TIMESTAMP);
INSERT INTO customers VALUES (1, 'Ada', 'Zürich', '2024-01-02'), (2, 'Ada', NULL, '1900-01-01'), (3, '李', 'Kyōto', NULL);
INSERT INTO orders VALUES (10, 1, 12.50, '2024-03-04 10:11:12'), (11, 1, -3.00, '2024-03-05 00:00:00'), (12, 2, 0.00, NULL), (13, NULL, NULL, '2024-03-06 23:59:59');
`;

describe('SQL dumps', () => {
  it('load identically in DuckDB and SQLite: same tables, counts and content digest', async () => {
    const a = await duckdb.load(sqlFixture('portable', PORTABLE_DUMP));
    const b = await sqlite.load(sqlFixture('portable', PORTABLE_DUMP));
    if (!a.ok || !b.ok) throw new Error(JSON.stringify([a, b]));
    expect(a.value.tables.map((t) => [t.name, t.rowCount])).toEqual([
      ['customers', 3],
      ['orders', 4],
    ]);
    expect(b.value.tables.map((t) => [t.name, t.rowCount])).toEqual([
      ['customers', 3],
      ['orders', 4],
    ]);
    expect(a.value.contentDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(a.value.contentDigest).toBe(b.value.contentDigest);
    // And a one-cent change moves it.
    const changed = await duckdb.load(sqlFixture('portable', PORTABLE_DUMP.replace('12.50', '12.51')));
    expect(changed.ok && changed.value.contentDigest).not.toBe(a.value.contentDigest);
  });

  // DuckDB loads a small dump inside one transaction (session.ts), and as written when that fails.
  it('load the same on DuckDB whether the dump has transaction statements of its own or not', async () => {
    const plain = await duckdb.load(sqlFixture('portable', PORTABLE_DUMP));
    const plainOrder = plain.ok ? await rows(duckdb, 'SELECT id FROM orders') : null;
    const own = await duckdb.load(sqlFixture('portable', `BEGIN TRANSACTION;\n${PORTABLE_DUMP}\nCOMMIT;\n`));
    const ownOrder = own.ok ? await rows(duckdb, 'SELECT id FROM orders') : null;
    if (!plain.ok || !own.ok) throw new Error(JSON.stringify([plain, own]));
    expect(own.value.contentDigest).toBe(plain.value.contentDigest);
    expect(ownOrder).toEqual(plainOrder);
    expect(plainOrder).toEqual([[10], [11], [12], [13]]);
    // An error in the middle: the file and line of the dump as written, the rows before it never half-loaded.
    const broken = await duckdb.load(
      sqlFixture(
        'broken',
        'CREATE TABLE t (a INTEGER PRIMARY KEY);\nINSERT INTO t VALUES (1);\nINSERT INTO t VALUES (1);\n',
      ),
    );
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.error.message).toMatch(/^broken\.sql(:\d+)?: .*(Duplicate key|PRIMARY KEY)/i);
  });

  it('report a broken dump with the file name and the engine message', async () => {
    const outcome = await duckdb.load(
      sqlFixture('broken', 'CREATE TABLE t (a INTEGER);\nINSERT INTO t VALUES (1, 2, 3);'),
    );
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.error.code).toBe('fixture.load_failed');
      expect(outcome.error.message).toMatch(/broken\.sql/);
    }
    const onSqlite = await sqlite.load(
      sqlFixture('broken', 'CREATE TABLE t (a INTEGER);\nINSERT INTO t VALUES (1, 2, 3);'),
    );
    expect(onSqlite.ok).toBe(false);
    if (!onSqlite.ok) expect(onSqlite.error.message).toMatch(/broken\.sql.*1 columns but 3 values/);
  });
});

describe('the frozen clock', () => {
  const asOf = '2025-12-31T23:59:59Z';
  it('pins current_date, today() and now() on DuckDB to the as-of instant', async () => {
    await duckdb.load(sqlFixture('clock', 'CREATE TABLE t (x INTEGER);', asOf));
    expect(await rows(duckdb, 'SELECT current_date, today(), now(), current_date - INTERVAL 30 DAY')).toEqual([
      ['2025-12-31', '2025-12-31', '2025-12-31 23:59:59', '2025-12-01 00:00:00'],
    ]);
  });

  it('pins SQLite date("now") and CURRENT_DATE to the as-of instant', async () => {
    await sqlite.load(sqlFixture('clock', 'CREATE TABLE t (x INTEGER);', asOf));
    expect(await rows(sqlite, "SELECT CURRENT_DATE, date('now'), datetime('now', '-30 days')")).toEqual([
      ['2025-12-31', '2025-12-31', '2025-12-01 23:59:59'],
    ]);
  });

  it('without an as-of instant, DuckDB clock functions are an engine limitation, not a hang', async () => {
    await duckdb.load(sqlFixture('noclock', 'CREATE TABLE t (x INTEGER);'));
    const outcome = await duckdb.execute('SELECT current_date');
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error.category).toBe('engine_unsupported');
  });
});

describe('database files', () => {
  it('runs a Spider SQLite database unchanged on the sqlite engine', async () => {
    const loaded = await sqlite.load(fileFixture(spiderDatabase('concert_singer')));
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(loaded.value.tables.map((t) => t.name)).toEqual(['concert', 'singer', 'singer_in_concert', 'stadium']);
    expect(await rows(sqlite, 'SELECT count(*) FROM singer')).toEqual([[6]]);
  });

  it('refuses a SQLite file on DuckDB with a reason', async () => {
    const outcome = await duckdb.load(fileFixture(spiderDatabase('concert_singer')));
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error.code).toBe('fixture.unsupported_format');
  });

  it('reports a corrupt SQLite file', async () => {
    const bad = path.join(scratch, 'corrupt.sqlite');
    const bytes = new Uint8Array(readFileSync(spiderDatabase('concert_singer')));
    bytes.fill(0x41, 100, 4096);
    writeFileSync(bad, bytes);
    const outcome = await sqlite.load(fileFixture(bad, 'sqlite'));
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error.message).toMatch(/corrupt\.sqlite|malformed|not a/);
  });

  it('attaches a DuckDB database file read-only', async () => {
    // items (id INTEGER, price DECIMAL(10,2), added DATE): (1, 12.50, 2024-01-02), (2, 0.10, NULL)
    const file = duckDbTestFile('shop.duckdb');
    const loaded = await duckdb.load(fileFixture(file));
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(loaded.value.tables.map((t) => t.name)).toEqual(['items']);
    expect(await rows(duckdb, 'SELECT * FROM items ORDER BY id')).toEqual([
      [1, '12.50', '2024-01-02'],
      [2, '0.10', null],
    ]);
  });
});

describe('CSV and Parquet (one table each)', () => {
  it('loads CSV files as tables named after the files', async () => {
    const fixture: FixtureSource = {
      name: 'csvs',
      files: [
        {
          fileName: 'cities.csv',
          format: 'csv',
          bytes: new TextEncoder().encode('id,name,population\n1,Zürich,421878\n2,Kyōto,1463723\n'),
        },
        { fileName: 'tags.csv', format: 'csv', bytes: new TextEncoder().encode('tag\nred\nblue\n') },
      ],
    };
    const loaded = await duckdb.load(fixture);
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(loaded.value.tables.map((t) => [t.name, t.rowCount])).toEqual([
      ['cities', 2],
      ['tags', 2],
    ]);
    expect(await rows(duckdb, 'SELECT name FROM cities ORDER BY id')).toEqual([['Zürich'], ['Kyōto']]);
  });

  it('loads Parquet with exact decimals through a JS reader', async () => {
    const buffer = parquetWriteBuffer({
      columnData: [
        { name: 'id', data: [1, 2, 3] },
        { name: 'label', data: ['a', null, 'ü'] },
        { name: 'amount', data: [1250n, -1n, null] },
      ],
      schema: [
        { name: 'root', num_children: 3 },
        { name: 'id', type: 'INT32', repetition_type: 'REQUIRED' },
        { name: 'label', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
        {
          name: 'amount',
          type: 'INT64',
          converted_type: 'DECIMAL',
          precision: 12,
          scale: 2,
          repetition_type: 'OPTIONAL',
        },
      ],
    });
    const loaded = await duckdb.load({
      name: 'pq',
      files: [{ fileName: 'payments.parquet', format: 'parquet', bytes: new Uint8Array(buffer) }],
    });
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(loaded.value.tables[0]!.columns.map((c) => c.engineType)).toEqual(['INTEGER', 'VARCHAR', 'DECIMAL(12,2)']);
    expect(await rows(duckdb, 'SELECT * FROM payments ORDER BY id')).toEqual([
      [1, 'a', '12.50'],
      [2, null, '-0.01'],
      [3, 'ü', null],
    ]);
  });

  it('reports a file that is not Parquet', async () => {
    const outcome = await duckdb.load({
      name: 'bad',
      files: [{ fileName: 'bad.parquet', format: 'parquet', bytes: new TextEncoder().encode('id,name\n1,x\n') }],
    });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error.message).toMatch(/bad\.parquet.*Parquet/);
  });

  it('refuses CSV on the sqlite engine with a reason', async () => {
    const outcome = await sqlite.load({
      name: 'c',
      files: [{ fileName: 'a.csv', format: 'csv', bytes: new TextEncoder().encode('a\n1\n') }],
    });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error.code).toBe('fixture.unsupported_format');
  });
});
