/**
 * The engine contract: one table of literal queries, run on both engines,
 * every column kind and every cell asserted. Where SQLite has no such type
 * the table states what SQLite gives instead (it is dynamically typed: no
 * DECIMAL, DATE or BOOLEAN storage class).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine, EngineName, QueryResult } from '../../src/core/engine.ts';
import type { Cell, Kind } from '../../src/core/value/kind.ts';
import { openEngine } from '../../src/engines/node.ts';
import { sqlFixture } from '../helpers/fixtures.ts';

interface Expectation {
  sql: string;
  names?: string[];
  kinds: Kind[];
  row: Cell[];
}

interface ContractCase {
  name: string;
  duckdb: Expectation;
  sqlite: Expectation;
}

const CASES: ContractCase[] = [
  {
    name: 'BIGINT beyond 2^53 stays exact',
    duckdb: { sql: 'SELECT 9007199254740993::BIGINT AS b, -9007199254740993::BIGINT AS nb, 42::BIGINT AS small', kinds: ['integer', 'integer', 'integer'], row: [9007199254740993n, -9007199254740993n, 42] },
    sqlite: { sql: 'SELECT 9007199254740993 AS b, -9007199254740993 AS nb, 42 AS small', kinds: ['integer', 'integer', 'integer'], row: [9007199254740993n, -9007199254740993n, 42] },
  },
  {
    name: 'DECIMAL(38,10) exact to the last digit, scale kept',
    duckdb: {
      sql: "SELECT 1234567890123456789012345678.1234567891::DECIMAL(38,10) AS a, 1234567890123456789012345678.1234567892::DECIMAL(38,10) AS b, 12.50::DECIMAL(10,2) AS money, -0.01::DECIMAL(5,2) AS neg",
      kinds: ['decimal', 'decimal', 'decimal', 'decimal'],
      row: ['1234567890123456789012345678.1234567891', '1234567890123456789012345678.1234567892', '12.50', '-0.01'],
    },
    // SQLite has no exact decimal: DECIMAL affinity stores a REAL (or an INTEGER when whole).
    sqlite: { sql: 'SELECT CAST(12.50 AS DECIMAL(10,2)) AS money, CAST(10.00 AS DECIMAL(10,2)) AS whole, -0.01 AS neg', kinds: ['float', 'float', 'float'], row: [12.5, 10, -0.01] },
  },
  {
    name: 'HUGEINT and UBIGINT extremes',
    duckdb: {
      sql: 'SELECT 170141183460469231731687303715884105727::HUGEINT AS h, 18446744073709551615::UBIGINT AS u, sum(x) AS s FROM (VALUES (1), (2)) t(x)',
      kinds: ['integer', 'integer', 'integer'],
      row: [170141183460469231731687303715884105727n, 18446744073709551615n, 3],
    },
    sqlite: { sql: 'SELECT 9223372036854775807 AS max_int, sum(x) AS s FROM (SELECT 1 AS x UNION ALL SELECT 2)', kinds: ['integer', 'integer'], row: [9223372036854775807n, 3] },
  },
  {
    name: 'TIMESTAMP to the microsecond, also where a float of milliseconds cannot hold it',
    duckdb: {
      sql: "SELECT TIMESTAMP '2024-01-02 03:04:05.123456' AS ts, TIMESTAMP '9999-12-31 23:59:59.999999' AS ts_max, TIMESTAMP '1969-12-31 23:59:59.999999' AS before_epoch",
      kinds: ['timestamp', 'timestamp', 'timestamp'],
      row: ['2024-01-02 03:04:05.123456', '9999-12-31 23:59:59.999999', '1969-12-31 23:59:59.999999'],
    },
    sqlite: { sql: "SELECT '2024-01-02 03:04:05.123456' AS ts", kinds: ['text'], row: ['2024-01-02 03:04:05.123456'] },
  },
  {
    name: 'DATE and a midnight TIMESTAMP are distinguishable by kind',
    duckdb: {
      sql: "SELECT DATE '2024-01-02' AS d, TIMESTAMP '2024-01-02 00:00:00' AS t, DATE '0001-01-01' AS first_day, 'infinity'::DATE AS forever",
      kinds: ['date', 'timestamp', 'date', 'date'],
      row: ['2024-01-02', '2024-01-02 00:00:00', '0001-01-01', 'infinity'],
    },
    // SQLite has no date type: both are text.
    sqlite: { sql: "SELECT date('2024-01-02') AS d, datetime('2024-01-02') AS t", kinds: ['text', 'text'], row: ['2024-01-02', '2024-01-02 00:00:00'] },
  },
  {
    name: 'NULL is null',
    duckdb: { sql: 'SELECT NULL AS n, NULL::VARCHAR AS s, CAST(NULL AS DECIMAL(10,2)) AS d', kinds: ['integer', 'text', 'decimal'], row: [null, null, null] },
    sqlite: { sql: 'SELECT NULL AS n', kinds: ['null'], row: [null] },
  },
  {
    name: 'booleans are booleans (SQLite has none: 1/0)',
    duckdb: { sql: 'SELECT true AS t, false AS f, NULL::BOOLEAN AS n', kinds: ['boolean', 'boolean', 'boolean'], row: [true, false, null] },
    sqlite: { sql: 'SELECT true AS t, false AS f', kinds: ['integer', 'integer'], row: [1, 0] },
  },
  {
    name: 'NaN, ±Infinity and -0.0 kept',
    duckdb: {
      sql: "SELECT 'nan'::DOUBLE AS nan, 'inf'::DOUBLE AS inf, '-inf'::DOUBLE AS ninf, -0.0::DOUBLE AS nz, 0.1::DOUBLE + 0.2::DOUBLE AS sum",
      kinds: ['float', 'float', 'float', 'float', 'float'],
      row: [NaN, Infinity, -Infinity, -0, 0.30000000000000004],
    },
    sqlite: { sql: 'SELECT 9e999 AS inf, -9e999 AS ninf, -0.0 AS nz, 0.1 + 0.2 AS sum', kinds: ['float', 'float', 'float', 'float'], row: [Infinity, -Infinity, -0, 0.30000000000000004] },
  },
  {
    name: 'unicode text intact',
    duckdb: { sql: "SELECT 'Zoë ü 漢字 🎉' AS t, '' AS empty, 'a''b' AS quote", kinds: ['text', 'text', 'text'], row: ['Zoë ü 漢字 🎉', '', "a'b"] },
    sqlite: { sql: "SELECT 'Zoë ü 漢字 🎉' AS t, '' AS empty, 'a''b' AS quote", kinds: ['text', 'text', 'text'], row: ['Zoë ü 漢字 🎉', '', "a'b"] },
  },
  {
    name: 'blobs are bytes',
    duckdb: { sql: "SELECT '\\x00\\xAB\\xFF'::BLOB AS b", kinds: ['blob'], row: [new Uint8Array([0, 0xab, 0xff])] },
    sqlite: { sql: "SELECT X'00ABFF' AS b", kinds: ['blob'], row: [new Uint8Array([0, 0xab, 0xff])] },
  },
  {
    name: 'TIME, INTERVAL, lists and structs',
    duckdb: {
      sql: "SELECT TIME '01:02:03.5' AS tm, INTERVAL 3 DAY + INTERVAL 4 HOUR AS iv, [1.5, 2.25]::DECIMAL(4,2)[] AS l, {'a': 1, 'b': 'x'} AS s",
      kinds: ['time', 'interval', 'list', 'struct'],
      row: ['01:02:03.5', '3 days 04:00:00', ['1.50', '2.25'], { a: 1, b: 'x' }],
    },
    sqlite: { sql: "SELECT time('01:02:03.5') AS tm", kinds: ['text'], row: ['01:02:03'] },
  },
  {
    name: 'duplicate output names are kept',
    duckdb: { sql: 'SELECT 1 AS a, 2 AS a', names: ['a', 'a'], kinds: ['integer', 'integer'], row: [1, 2] },
    sqlite: { sql: 'SELECT 1 AS a, 2 AS a', names: ['a', 'a'], kinds: ['integer', 'integer'], row: [1, 2] },
  },
];

const engines: Partial<Record<EngineName, Engine>> = {};

beforeAll(async () => {
  for (const name of ['duckdb', 'sqlite'] as const) {
    const engine = openEngine(name);
    const loaded = await engine.load(sqlFixture('empty', 'CREATE TABLE placeholder(x INTEGER);'));
    expect(loaded.ok).toBe(true);
    engines[name] = engine;
  }
});

afterAll(async () => {
  await Promise.all(Object.values(engines).map((e) => e.close()));
});

function normalize(cell: Cell): unknown {
  // Object.is semantics: NaN equals NaN, -0 differs from 0.
  if (typeof cell === 'number') return Object.is(cell, -0) ? '-0' : Number.isNaN(cell) ? 'NaN' : cell;
  if (cell instanceof Uint8Array) return { bytes: [...cell] };
  if (Array.isArray(cell)) return cell.map(normalize);
  if (cell && typeof cell === 'object') return Object.fromEntries(Object.entries(cell).map(([k, v]) => [k, normalize(v)]));
  return cell;
}

for (const engineName of ['duckdb', 'sqlite'] as const) {
  describe(`engine contract: ${engineName}`, () => {
    for (const c of CASES) {
      it(c.name, async () => {
        const expectation = c[engineName];
        const outcome = await engines[engineName]!.execute(expectation.sql);
        if (!outcome.ok) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
        const result: QueryResult = outcome.value;
        expect(result.columns.map((col) => col.kind)).toEqual(expectation.kinds);
        if (expectation.names) expect(result.columns.map((col) => col.name)).toEqual(expectation.names);
        expect(result.rows).toHaveLength(1);
        expect(result.rows[0]!.map(normalize)).toEqual(expectation.row.map(normalize));
        for (const col of result.columns) expect(col.engineType).not.toBe('');
      });
    }
  });
}

describe('engine contract: engine types are the engine’s own names', () => {
  it('DuckDB reports DECIMAL(p,s), BIGINT, DATE, TIMESTAMP', async () => {
    const outcome = await engines.duckdb!.execute("SELECT 1.5::DECIMAL(18,2) a, 1::BIGINT b, DATE '2024-01-01' c, TIMESTAMP '2024-01-01 10:00:00' d");
    if (!outcome.ok) throw new Error(outcome.error.message);
    expect(outcome.value.columns.map((c) => c.engineType)).toEqual(['DECIMAL(18,2)', 'BIGINT', 'DATE', 'TIMESTAMP']);
  });
});
