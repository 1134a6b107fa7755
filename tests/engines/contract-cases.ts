/**
 * The engine contract table: literal queries with every column kind and
 * every cell stated, shared by the Node run (tests/engines/contract.test.ts,
 * engines in worker threads) and the Chromium run
 * (tests/browser/engine-contract.test.ts, engines in Web Workers behind the
 * app worker). Where SQLite has no such type the table states what SQLite
 * gives instead (it is dynamically typed: no DECIMAL, DATE, BOOLEAN, LIST).
 * The `pglite` column is PostgreSQL's: PGlite (Node and Chromium) and a
 * PostgreSQL server (tests/engines/postgres-server.test.ts) are held to the
 * same cells; where DuckDB's type has no PostgreSQL twin (HUGEINT, MAP,
 * STRUCT, TIME_NS) the case states PostgreSQL's nearest types instead.
 */
import type { Cell, Kind } from '../../src/core/value/kind.ts';

export interface Expectation {
  sql: string;
  names?: string[];
  kinds: Kind[];
  /** The one row of a single-row case. */
  row?: Cell[];
  /** Every row, in order, of a multi-row case. */
  rows?: Cell[][];
  /** Kinds of list elements and struct fields, per column (undefined: not checked). */
  children?: (Kind[] | undefined)[];
  /** engine_type of each column, where it is part of the contract. */
  engineTypes?: string[];
}

export interface ContractCase {
  name: string;
  duckdb: Expectation;
  sqlite: Expectation;
  /** PostgreSQL: PGlite and a PostgreSQL server (session TimeZone UTC). */
  pglite: Expectation;
}

export const CASES: ContractCase[] = [
  {
    name: 'BIGINT beyond 2^53 stays exact',
    duckdb: {
      sql: 'SELECT 9007199254740993::BIGINT AS b, -9007199254740993::BIGINT AS nb, 42::BIGINT AS small',
      kinds: ['integer', 'integer', 'integer'],
      row: [9007199254740993n, -9007199254740993n, 42],
    },
    sqlite: {
      sql: 'SELECT 9007199254740993 AS b, -9007199254740993 AS nb, 42 AS small',
      kinds: ['integer', 'integer', 'integer'],
      row: [9007199254740993n, -9007199254740993n, 42],
    },
    pglite: {
      sql: 'SELECT 9007199254740993::bigint AS b, -9007199254740993::bigint AS nb, 42::bigint AS small',
      kinds: ['integer', 'integer', 'integer'],
      engineTypes: ['bigint', 'bigint', 'bigint'],
      row: [9007199254740993n, -9007199254740993n, 42],
    },
  },
  {
    name: 'DECIMAL(38,10) exact to the last digit, scale kept',
    duckdb: {
      sql: 'SELECT 1234567890123456789012345678.1234567891::DECIMAL(38,10) AS a, 1234567890123456789012345678.1234567892::DECIMAL(38,10) AS b, 12.50::DECIMAL(10,2) AS money, -0.01::DECIMAL(5,2) AS neg',
      kinds: ['decimal', 'decimal', 'decimal', 'decimal'],
      row: ['1234567890123456789012345678.1234567891', '1234567890123456789012345678.1234567892', '12.50', '-0.01'],
    },
    // SQLite has no exact decimal: DECIMAL affinity stores a REAL (or an INTEGER when whole).
    sqlite: {
      sql: 'SELECT CAST(12.50 AS DECIMAL(10,2)) AS money, CAST(10.00 AS DECIMAL(10,2)) AS whole, -0.01 AS neg',
      kinds: ['float', 'float', 'float'],
      row: [12.5, 10, -0.01],
    },
    pglite: {
      sql: 'SELECT 1234567890123456789012345678.1234567891::numeric(38,10) AS a, 1234567890123456789012345678.1234567892::numeric(38,10) AS b, 12.50::numeric(10,2) AS money, -0.01::numeric(5,2) AS neg, 10::numeric(10,3) AS whole',
      kinds: ['decimal', 'decimal', 'decimal', 'decimal', 'decimal'],
      engineTypes: ['numeric', 'numeric', 'numeric', 'numeric', 'numeric'],
      row: [
        '1234567890123456789012345678.1234567891',
        '1234567890123456789012345678.1234567892',
        '12.50',
        '-0.01',
        '10.000',
      ],
    },
  },
  {
    name: 'HUGEINT and UBIGINT extremes',
    duckdb: {
      sql: 'SELECT 170141183460469231731687303715884105727::HUGEINT AS h, 18446744073709551615::UBIGINT AS u, sum(x) AS s FROM (VALUES (1), (2)) t(x)',
      kinds: ['integer', 'integer', 'integer'],
      row: [170141183460469231731687303715884105727n, 18446744073709551615n, 3],
    },
    sqlite: {
      sql: 'SELECT 9223372036854775807 AS max_int, sum(x) AS s FROM (SELECT 1 AS x UNION ALL SELECT 2)',
      kinds: ['integer', 'integer'],
      row: [9223372036854775807n, 3],
    },
    pglite: {
      // No 128-bit integer in PostgreSQL: numeric holds it exactly; sum(integer) is a bigint.
      sql: 'SELECT 170141183460469231731687303715884105727::numeric AS h, 9223372036854775807::bigint AS m, sum(x) AS s FROM (VALUES (1), (2)) t(x)',
      kinds: ['decimal', 'integer', 'integer'],
      row: ['170141183460469231731687303715884105727', 9223372036854775807n, 3],
    },
  },
  {
    name: 'TIMESTAMP to the microsecond, also where a float of milliseconds cannot hold it',
    duckdb: {
      sql: "SELECT TIMESTAMP '2024-01-02 03:04:05.123456' AS ts, TIMESTAMP '9999-12-31 23:59:59.999999' AS ts_max, TIMESTAMP '1969-12-31 23:59:59.999999' AS before_epoch",
      kinds: ['timestamp', 'timestamp', 'timestamp'],
      row: ['2024-01-02 03:04:05.123456', '9999-12-31 23:59:59.999999', '1969-12-31 23:59:59.999999'],
    },
    sqlite: { sql: "SELECT '2024-01-02 03:04:05.123456' AS ts", kinds: ['text'], row: ['2024-01-02 03:04:05.123456'] },
    pglite: {
      sql: "SELECT TIMESTAMP '2024-01-02 03:04:05.123456' AS ts, TIMESTAMP '9999-12-31 23:59:59.999999' AS ts_max, TIMESTAMP '1969-12-31 23:59:59.999999' AS before_epoch",
      kinds: ['timestamp', 'timestamp', 'timestamp'],
      engineTypes: ['timestamp without time zone', 'timestamp without time zone', 'timestamp without time zone'],
      row: ['2024-01-02 03:04:05.123456', '9999-12-31 23:59:59.999999', '1969-12-31 23:59:59.999999'],
    },
  },
  {
    name: 'DATE and a midnight TIMESTAMP are distinguishable by kind',
    duckdb: {
      sql: "SELECT DATE '2024-01-02' AS d, TIMESTAMP '2024-01-02 00:00:00' AS t, DATE '0001-01-01' AS first_day, 'infinity'::DATE AS forever",
      kinds: ['date', 'timestamp', 'date', 'date'],
      row: ['2024-01-02', '2024-01-02 00:00:00', '0001-01-01', 'infinity'],
    },
    // SQLite has no date type: both are text.
    sqlite: {
      sql: "SELECT date('2024-01-02') AS d, datetime('2024-01-02') AS t",
      kinds: ['text', 'text'],
      row: ['2024-01-02', '2024-01-02 00:00:00'],
    },
    pglite: {
      sql: "SELECT DATE '2024-01-02' AS d, TIMESTAMP '2024-01-02 00:00:00' AS t, DATE '0001-01-01' AS first_day, 'infinity'::date AS forever, DATE '0044-03-15 BC' AS ides",
      kinds: ['date', 'timestamp', 'date', 'date', 'date'],
      row: ['2024-01-02', '2024-01-02 00:00:00', '0001-01-01', 'infinity', '-000043-03-15'],
    },
  },
  {
    name: 'NULL is null',
    duckdb: {
      sql: 'SELECT NULL AS n, NULL::VARCHAR AS s, CAST(NULL AS DECIMAL(10,2)) AS d',
      kinds: ['integer', 'text', 'decimal'],
      row: [null, null, null],
    },
    sqlite: { sql: 'SELECT NULL AS n', kinds: ['null'], row: [null] },
    pglite: {
      sql: 'SELECT NULL AS n, NULL::varchar AS s, CAST(NULL AS numeric(10,2)) AS d',
      kinds: ['text', 'text', 'decimal'],
      row: [null, null, null],
    },
  },
  {
    name: 'booleans are booleans (SQLite has none: 1/0)',
    duckdb: {
      sql: 'SELECT true AS t, false AS f, NULL::BOOLEAN AS n',
      kinds: ['boolean', 'boolean', 'boolean'],
      row: [true, false, null],
    },
    sqlite: { sql: 'SELECT true AS t, false AS f', kinds: ['integer', 'integer'], row: [1, 0] },
    pglite: {
      sql: 'SELECT true AS t, false AS f, NULL::boolean AS n',
      kinds: ['boolean', 'boolean', 'boolean'],
      row: [true, false, null],
    },
  },
  {
    name: 'NaN, ±Infinity and -0.0 kept',
    duckdb: {
      sql: "SELECT 'nan'::DOUBLE AS nan, 'inf'::DOUBLE AS inf, '-inf'::DOUBLE AS ninf, -0.0::DOUBLE AS nz, 0.1::DOUBLE + 0.2::DOUBLE AS sum",
      kinds: ['float', 'float', 'float', 'float', 'float'],
      row: [NaN, Infinity, -Infinity, -0, 0.30000000000000004],
    },
    sqlite: {
      sql: 'SELECT 9e999 AS inf, -9e999 AS ninf, -0.0 AS nz, 0.1 + 0.2 AS sum',
      kinds: ['float', 'float', 'float', 'float'],
      row: [Infinity, -Infinity, -0, 0.30000000000000004],
    },
    pglite: {
      sql: "SELECT 'nan'::float8 AS nan, 'inf'::float8 AS inf, '-inf'::float8 AS ninf, '-0'::float8 AS nz, 0.1::float8 + 0.2::float8 AS sum, 0.5::real AS r",
      kinds: ['float', 'float', 'float', 'float', 'float', 'float'],
      engineTypes: [
        'double precision',
        'double precision',
        'double precision',
        'double precision',
        'double precision',
        'real',
      ],
      row: [NaN, Infinity, -Infinity, -0, 0.30000000000000004, 0.5],
    },
  },
  {
    name: 'unicode text intact',
    duckdb: {
      sql: "SELECT 'Zoë ü 漢字 🎉' AS t, '' AS empty, 'a''b' AS quote",
      kinds: ['text', 'text', 'text'],
      row: ['Zoë ü 漢字 🎉', '', "a'b"],
    },
    sqlite: {
      sql: "SELECT 'Zoë ü 漢字 🎉' AS t, '' AS empty, 'a''b' AS quote",
      kinds: ['text', 'text', 'text'],
      row: ['Zoë ü 漢字 🎉', '', "a'b"],
    },
    pglite: {
      sql: "SELECT 'Zoë ü 漢字 🎉' AS t, '' AS empty, 'a''b' AS quote, 'x  '::char(3) AS padded",
      kinds: ['text', 'text', 'text', 'text'],
      row: ['Zoë ü 漢字 🎉', '', "a'b", 'x  '],
    },
  },
  {
    name: 'blobs are bytes',
    duckdb: { sql: "SELECT '\\x00\\xAB\\xFF'::BLOB AS b", kinds: ['blob'], row: [new Uint8Array([0, 0xab, 0xff])] },
    sqlite: { sql: "SELECT X'00ABFF' AS b", kinds: ['blob'], row: [new Uint8Array([0, 0xab, 0xff])] },
    pglite: {
      sql: "SELECT '\\x00abff'::bytea AS b",
      kinds: ['blob'],
      engineTypes: ['bytea'],
      row: [new Uint8Array([0, 0xab, 0xff])],
    },
  },
  {
    name: 'TIME, INTERVAL, lists and structs',
    duckdb: {
      sql: "SELECT TIME '01:02:03.5' AS tm, INTERVAL 3 DAY + INTERVAL 4 HOUR AS iv, [1.5, 2.25]::DECIMAL(4,2)[] AS l, {'a': 1, 'b': 'x'} AS s",
      kinds: ['time', 'interval', 'list', 'struct'],
      row: ['01:02:03.5', '3 days 04:00:00', ['1.50', '2.25'], { a: 1, b: 'x' }],
    },
    sqlite: { sql: "SELECT time('01:02:03.5') AS tm", kinds: ['text'], row: ['01:02:03'] },
    pglite: {
      // A row value is read through its JSON (records.ts): a struct whose fields are named by position, as
      // DuckDB names an unnamed struct's.
      sql: "SELECT TIME '01:02:03.5' AS tm, INTERVAL '3 days' + INTERVAL '4 hours' AS iv, ARRAY[1.5, 2.25]::numeric(4,2)[] AS l, ROW(1, 'x') AS s, INTERVAL '1 year 2 months 3 days 04:05:06.789' AS long, INTERVAL '-1 day' AS neg",
      kinds: ['time', 'interval', 'list', 'struct', 'interval', 'interval'],
      children: [undefined, undefined, ['decimal'], ['integer', 'text'], undefined, undefined],
      engineTypes: ['time without time zone', 'interval', 'numeric[]', 'record', 'interval', 'interval'],
      // Intervals in DuckDB's form, so the same interval reads the same on both engines.
      row: [
        '01:02:03.5',
        '3 days 04:00:00',
        ['1.50', '2.25'],
        { 1: 1, 2: 'x' },
        '1 year 2 months 3 days 04:05:06.789',
        '-1 day',
      ],
    },
  },
  {
    name: 'duplicate output names are kept',
    duckdb: { sql: 'SELECT 1 AS a, 2 AS a', names: ['a', 'a'], kinds: ['integer', 'integer'], row: [1, 2] },
    sqlite: { sql: 'SELECT 1 AS a, 2 AS a', names: ['a', 'a'], kinds: ['integer', 'integer'], row: [1, 2] },
    pglite: { sql: 'SELECT 1 AS a, 2 AS a', names: ['a', 'a'], kinds: ['integer', 'integer'], row: [1, 2] },
  },
  {
    name: 'lists over several rows: every row read at its own position',
    duckdb: {
      sql: 'SELECT * FROM (VALUES (1, [10]), (2, [20, 21, 22]), (3, NULL), (4, [NULL, 40]), (5, [])) t(k, l) ORDER BY k',
      kinds: ['integer', 'list'],
      children: [undefined, ['integer']],
      rows: [
        [1, [10]],
        [2, [20, 21, 22]],
        [3, null],
        [4, [null, 40]],
        [5, []],
      ],
    },
    // SQLite has no list: JSON arrays are text.
    sqlite: {
      sql: 'SELECT 1 AS k, json_array(10) AS l UNION ALL SELECT 2, json_array(20, 21, 22) UNION ALL SELECT 3, NULL ORDER BY k',
      kinds: ['integer', 'text'],
      rows: [
        [1, '[10]'],
        [2, '[20,21,22]'],
        [3, null],
      ],
    },
    pglite: {
      sql: "SELECT * FROM (VALUES (1, ARRAY[10]), (2, ARRAY[20, 21, 22]), (3, NULL), (4, ARRAY[NULL, 40]), (5, '{}'::integer[])) t(k, l) ORDER BY k",
      kinds: ['integer', 'list'],
      children: [undefined, ['integer']],
      engineTypes: ['integer', 'integer[]'],
      rows: [
        [1, [10]],
        [2, [20, 21, 22]],
        [3, null],
        [4, [null, 40]],
        [5, []],
      ],
    },
  },
  {
    name: 'lists of every exact scalar kind, second row included',
    duckdb: {
      sql: `SELECT * FROM (VALUES
        (1, [1::TINYINT, (-128)::TINYINT], [9007199254740993::BIGINT], [170141183460469231731687303715884105727::HUGEINT], [1.50::DECIMAL(5,2)], [12345678901234567890.123456789012345678::DECIMAL(38,18)], ['a'], [true]),
        (2, [2::TINYINT, NULL], [-9007199254740993::BIGINT, 7], [-5::HUGEINT], [-0.01::DECIMAL(5,2), NULL], [-0.000000000000000001::DECIMAL(38,18)], ['', 'Zoë 漢字'], [false, NULL])
      ) t(k, ti, bi, hi, de, dw, vc, bo) ORDER BY k`,
      kinds: ['integer', 'list', 'list', 'list', 'list', 'list', 'list', 'list'],
      children: [undefined, ['integer'], ['integer'], ['integer'], ['decimal'], ['decimal'], ['text'], ['boolean']],
      rows: [
        [
          1,
          [1, -128],
          [9007199254740993n],
          [170141183460469231731687303715884105727n],
          ['1.50'],
          ['12345678901234567890.123456789012345678'],
          ['a'],
          [true],
        ],
        [
          2,
          [2, null],
          [-9007199254740993n, 7],
          [-5],
          ['-0.01', null],
          ['-0.000000000000000001'],
          ['', 'Zoë 漢字'],
          [false, null],
        ],
      ],
    },
    sqlite: {
      sql: "SELECT json_array(1, 9007199254740993, 'a') AS l",
      kinds: ['text'],
      row: ['[1,9007199254740993,"a"]'],
    },
    pglite: {
      sql: `SELECT * FROM (VALUES
        (1, ARRAY[1::int2, (-128)::int2], ARRAY[9007199254740993::int8], ARRAY[1.50::numeric(5,2)], ARRAY[12345678901234567890.123456789012345678::numeric(38,18)], ARRAY['a'], ARRAY[true]),
        (2, ARRAY[2::int2, NULL], ARRAY[-9007199254740993::int8, 7], ARRAY[-0.01::numeric(5,2), NULL], ARRAY[-0.000000000000000001::numeric(38,18)], ARRAY['', 'Zoë 漢字', 'q"uo\\te', 'NULL'], ARRAY[false, NULL])
      ) t(k, si, bi, de, dw, vc, bo) ORDER BY k`,
      kinds: ['integer', 'list', 'list', 'list', 'list', 'list', 'list'],
      children: [undefined, ['integer'], ['integer'], ['decimal'], ['decimal'], ['text'], ['boolean']],
      rows: [
        [1, [1, -128], [9007199254740993n], ['1.50'], ['12345678901234567890.123456789012345678'], ['a'], [true]],
        [
          2,
          [2, null],
          [-9007199254740993n, 7],
          ['-0.01', null],
          ['-0.000000000000000001'],
          ['', 'Zoë 漢字', 'q"uo\\te', 'NULL'],
          [false, null],
        ],
      ],
    },
  },
  {
    name: 'lists of floats, temporals, intervals and blobs, second row included',
    duckdb: {
      sql: `SELECT * FROM (VALUES
        (1, [1.5::DOUBLE], [0.5::REAL], [DATE '2024-01-02'], [TIMESTAMP '2024-01-02 03:04:05.123456'], [TIMESTAMPTZ '2024-01-02 03:04:05+00'], [TIME '01:02:03.5'], [INTERVAL 3 DAY], ['\\x00\\xFF'::BLOB]),
        (2, [2.5::DOUBLE, 3.5::DOUBLE, 'nan'::DOUBLE, -0.0::DOUBLE], [NULL, -1.25::REAL], [DATE '1969-12-31', 'infinity'::DATE], [TIMESTAMP '9999-12-31 23:59:59.999999', NULL], [NULL], [TIME '24:00:00', TIME '00:00:00'], [INTERVAL 1 MONTH, INTERVAL 90 MINUTE], ['\\xAB'::BLOB, ''::BLOB])
      ) t(k, db, re, dt, ts, tz, tm, iv, bl) ORDER BY k`,
      kinds: ['integer', 'list', 'list', 'list', 'list', 'list', 'list', 'list', 'list'],
      children: [
        undefined,
        ['float'],
        ['float'],
        ['date'],
        ['timestamp'],
        ['timestamptz'],
        ['time'],
        ['interval'],
        ['blob'],
      ],
      rows: [
        [
          1,
          [1.5],
          [0.5],
          ['2024-01-02'],
          ['2024-01-02 03:04:05.123456'],
          ['2024-01-02 03:04:05+00'],
          ['01:02:03.5'],
          ['3 days'],
          [new Uint8Array([0, 0xff])],
        ],
        [
          2,
          [2.5, 3.5, NaN, -0],
          [null, -1.25],
          ['1969-12-31', 'infinity'],
          ['9999-12-31 23:59:59.999999', null],
          [null],
          ['24:00:00', '00:00:00'],
          ['1 month', '01:30:00'],
          [new Uint8Array([0xab]), new Uint8Array([])],
        ],
      ],
    },
    sqlite: { sql: 'SELECT json_array(1.5, 2.5) AS l', kinds: ['text'], row: ['[1.5,2.5]'] },
    pglite: {
      sql: `SELECT * FROM (VALUES
        (1, ARRAY[1.5::float8], ARRAY[0.5::real], ARRAY[DATE '2024-01-02'], ARRAY[TIMESTAMP '2024-01-02 03:04:05.123456'], ARRAY[TIMESTAMPTZ '2024-01-02 03:04:05+00'], ARRAY[TIME '01:02:03.5'], ARRAY[INTERVAL '3 days'], ARRAY['\\x00ff'::bytea]),
        (2, ARRAY[2.5::float8, 3.5, 'nan', '-0'], ARRAY[NULL, -1.25::real], ARRAY[DATE '1969-12-31', 'infinity'], ARRAY[TIMESTAMP '9999-12-31 23:59:59.999999', NULL], ARRAY[NULL::timestamptz], ARRAY[TIME '24:00:00', TIME '00:00:00'], ARRAY[INTERVAL '1 month', INTERVAL '90 minutes'], ARRAY['\\xab'::bytea, ''::bytea])
      ) t(k, db, re, dt, ts, tz, tm, iv, bl) ORDER BY k`,
      kinds: ['integer', 'list', 'list', 'list', 'list', 'list', 'list', 'list', 'list'],
      children: [
        undefined,
        ['float'],
        ['float'],
        ['date'],
        ['timestamp'],
        ['timestamptz'],
        ['time'],
        ['interval'],
        ['blob'],
      ],
      rows: [
        [
          1,
          [1.5],
          [0.5],
          ['2024-01-02'],
          ['2024-01-02 03:04:05.123456'],
          ['2024-01-02 03:04:05+00'],
          ['01:02:03.5'],
          ['3 days'],
          [new Uint8Array([0, 0xff])],
        ],
        [
          2,
          [2.5, 3.5, NaN, -0],
          [null, -1.25],
          ['1969-12-31', 'infinity'],
          ['9999-12-31 23:59:59.999999', null],
          [null],
          ['24:00:00', '00:00:00'],
          ['1 month', '01:30:00'],
          [new Uint8Array([0xab]), new Uint8Array([])],
        ],
      ],
    },
  },
  {
    name: 'lists of lists and fixed-size arrays over several rows',
    duckdb: {
      sql: `SELECT * FROM (VALUES
        (1, [[1], [2, 3]], [1, 2]::INTEGER[2], [[1.5, 2.5]]::DOUBLE[2][]),
        (2, [[], NULL, [4, 5, 6]], [3, NULL]::INTEGER[2], [[3.5, 4.5], [5.5, 6.5]]::DOUBLE[2][]),
        (3, NULL, NULL, [])
      ) t(k, ll, fa, fl) ORDER BY k`,
      kinds: ['integer', 'list', 'list', 'list'],
      engineTypes: ['INTEGER', 'INTEGER[][]', 'INTEGER[2]', 'DOUBLE[2][]'],
      rows: [
        [1, [[1], [2, 3]], [1, 2], [[1.5, 2.5]]],
        [
          2,
          [[], null, [4, 5, 6]],
          [3, null],
          [
            [3.5, 4.5],
            [5.5, 6.5],
          ],
        ],
        [3, null, null, []],
      ],
    },
    sqlite: { sql: 'SELECT json_array(json_array(1), json_array(2, 3)) AS ll', kinds: ['text'], row: ['[[1],[2,3]]'] },
    pglite: {
      // PostgreSQL arrays of arrays are rectangular and share one type: integer[] at any depth.
      sql: "SELECT * FROM (VALUES (1, ARRAY[[1, 2], [3, 4]]), (2, '{}'::integer[]), (3, NULL), (4, ARRAY[[NULL, 5]])) t(k, ll) ORDER BY k",
      kinds: ['integer', 'list'],
      children: [undefined, ['list']],
      engineTypes: ['integer', 'integer[]'],
      rows: [
        [
          1,
          [
            [1, 2],
            [3, 4],
          ],
        ],
        [2, []],
        [3, null],
        [4, [[null, 5]]],
      ],
    },
  },
  {
    name: 'lists of structs and structs of lists over several rows',
    duckdb: {
      sql: `SELECT * FROM (VALUES
        (1, [{'x': 1, 'y': 'a'}], {'l': [1], 'd': [1.25::DECIMAL(6,2)]}),
        (2, [{'x': 2, 'y': NULL}, {'x': 3, 'y': 'c'}], {'l': [2, 3], 'd': []}),
        (3, [NULL, {'x': NULL, 'y': 'e'}], {'l': NULL, 'd': [NULL, -9.99::DECIMAL(6,2)]}),
        (4, NULL, NULL)
      ) t(k, ls, sl) ORDER BY k`,
      kinds: ['integer', 'list', 'struct'],
      children: [undefined, ['struct'], ['list', 'list']],
      rows: [
        [1, [{ x: 1, y: 'a' }], { l: [1], d: ['1.25'] }],
        [
          2,
          [
            { x: 2, y: null },
            { x: 3, y: 'c' },
          ],
          { l: [2, 3], d: [] },
        ],
        [3, [null, { x: null, y: 'e' }], { l: null, d: [null, '-9.99'] }],
        [4, null, null],
      ],
    },
    sqlite: { sql: "SELECT json_object('l', json_array(2, 3)) AS sl", kinds: ['text'], row: ['{"l":[2,3]}'] },
    pglite: {
      sql: "SELECT ARRAY[ROW(1, 'a'), ROW(2, NULL)] AS ls, ROW(ARRAY[1, 2], 'x y') AS sl",
      kinds: ['list', 'struct'],
      children: [['struct'], ['list', 'text']],
      row: [
        [
          { 1: 1, 2: 'a' },
          { 1: 2, 2: null },
        ],
        { 1: [1, 2], 2: 'x y' },
      ],
    },
  },
  {
    name: 'struct fields of every kind, nested structs, quoted field names',
    duckdb: {
      sql: `SELECT * FROM (VALUES
        (1, {'i': 1::HUGEINT, 'u': 18446744073709551615::UBIGINT, 'd': DATE '2024-01-02', 'iv': INTERVAL 2 HOUR, 'b': '\\x01'::BLOB, 'n': {'a b': 1.5::DOUBLE}}),
        (2, {'i': -2::HUGEINT, 'u': 0::UBIGINT, 'd': NULL, 'iv': NULL, 'b': NULL, 'n': {'a b': NULL}})
      ) t(k, s) ORDER BY k`,
      kinds: ['integer', 'struct'],
      children: [undefined, ['integer', 'integer', 'date', 'interval', 'blob', 'struct']],
      rows: [
        [
          1,
          {
            i: 1,
            u: 18446744073709551615n,
            d: '2024-01-02',
            iv: '02:00:00',
            b: new Uint8Array([1]),
            n: { 'a b': 1.5 },
          },
        ],
        [2, { i: -2, u: 0, d: null, iv: null, b: null, n: { 'a b': null } }],
      ],
    },
    sqlite: { sql: "SELECT json_object('a b', 1.5) AS s", kinds: ['text'], row: ['{"a b":1.5}'] },
    pglite: {
      // json keeps its text as written; jsonb is PostgreSQL's normalized text.
      sql: `SELECT '{"b":1,  "a":[1, 2.50]}'::json AS j, '{"b":1,  "a":[1, 2.50], "n": {"a b": null}}'::jsonb AS jb, '[9007199254740993]'::jsonb AS big`,
      kinds: ['other', 'other', 'other'],
      engineTypes: ['json', 'jsonb', 'jsonb'],
      row: ['{"b":1,  "a":[1, 2.50]}', '{"a": [1, 2.50], "b": 1, "n": {"a b": null}}', '[9007199254740993]'],
    },
  },
  {
    name: 'maps are the lists of their entries, alone and inside lists',
    duckdb: {
      sql: `SELECT * FROM (VALUES (1, MAP {'a': 1, 'b': 2}, [MAP {'k': [1, 2]}]), (2, MAP {}::MAP(VARCHAR, INTEGER), [NULL, MAP {'z': [3]}])) t(k, m, lm) ORDER BY k`,
      kinds: ['integer', 'list', 'list'],
      children: [undefined, ['struct'], ['list']],
      rows: [
        [
          1,
          [
            { key: 'a', value: 1 },
            { key: 'b', value: 2 },
          ],
          [[{ key: 'k', value: [1, 2] }]],
        ],
        [2, [], [null, [{ key: 'z', value: [3] }]]],
      ],
    },
    sqlite: { sql: "SELECT json_object('a', 1, 'b', 2) AS m", kinds: ['text'], row: ['{"a":1,"b":2}'] },
    pglite: {
      sql: "SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u, ARRAY['A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid, NULL] AS lu",
      kinds: ['other', 'list'],
      children: [undefined, ['other']],
      engineTypes: ['uuid', 'uuid[]'],
      row: ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', null]],
    },
  },
  {
    name: 'unsigned integers and UHUGEINT exact, alone and nested',
    duckdb: {
      sql: `SELECT * FROM (VALUES
        (1, 255::UTINYINT, 65535::USMALLINT, 4294967295::UINTEGER, 18446744073709551615::UBIGINT, 340282366920938463463374607431768211455::UHUGEINT, [5::UHUGEINT, 18446744073709551616::UHUGEINT], {'u': 9007199254740993::UHUGEINT}),
        (2, 0::UTINYINT, NULL, 0::UINTEGER, 9007199254740991::UBIGINT, 5::UHUGEINT, [NULL, 0::UHUGEINT], {'u': NULL})
      ) t(k, a, b, c, d, e, f, g) ORDER BY k`,
      kinds: ['integer', 'integer', 'integer', 'integer', 'integer', 'integer', 'list', 'struct'],
      children: [undefined, undefined, undefined, undefined, undefined, undefined, ['integer'], ['integer']],
      engineTypes: [
        'INTEGER',
        'UTINYINT',
        'USMALLINT',
        'UINTEGER',
        'UBIGINT',
        'UHUGEINT',
        'UHUGEINT[]',
        'STRUCT(u UHUGEINT)',
      ],
      rows: [
        [
          1,
          255,
          65535,
          4294967295,
          18446744073709551615n,
          340282366920938463463374607431768211455n,
          [5, 18446744073709551616n],
          { u: 9007199254740993n },
        ],
        [2, 0, null, 0, 9007199254740991, 5, [null, 0], { u: null }],
      ],
    },
    // SQLite integers are 64-bit signed: the largest is 2^63 − 1.
    sqlite: {
      sql: 'SELECT 9223372036854775807 AS a, -9223372036854775808 AS b',
      kinds: ['integer', 'integer'],
      row: [9223372036854775807n, -9223372036854775808n],
    },
    pglite: {
      // No unsigned integers in PostgreSQL: the signed extremes of each width.
      sql: 'SELECT 32767::int2 AS a, 2147483647::int4 AS b, 9223372036854775807::int8 AS c, (-9223372036854775808)::int8 AS d, ARRAY[9223372036854775807::int8, 1] AS e',
      kinds: ['integer', 'integer', 'integer', 'integer', 'list'],
      engineTypes: ['smallint', 'integer', 'bigint', 'bigint', 'bigint[]'],
      row: [32767, 2147483647, 9223372036854775807n, -9223372036854775808n, [9223372036854775807n, 1]],
    },
  },
  {
    name: 'TIME_NS and TIMESTAMP_NS keep their nanoseconds as text, alone and in lists (a time and a timestamp)',
    duckdb: {
      sql: "SELECT * FROM (VALUES (1, '01:02:03.123456789'::TIME_NS, ['23:59:59.999999999'::TIME_NS], TIMESTAMP_NS '2024-01-02 03:04:05.123456789'), (2, NULL, [NULL], NULL)) t(k, tn, ltn, tsn) ORDER BY k",
      kinds: ['integer', 'time', 'list', 'timestamp'],
      children: [undefined, undefined, ['time'], undefined],
      rows: [
        [1, '01:02:03.123456789', ['23:59:59.999999999'], '2024-01-02 03:04:05.123456789'],
        [2, null, [null], null],
      ],
    },
    sqlite: { sql: "SELECT '01:02:03.123456789' AS tn", kinds: ['text'], row: ['01:02:03.123456789'] },
    pglite: {
      // timestamptz is shown in the session time zone, UTC; timetz keeps its own offset (engine text).
      sql: "SELECT TIMESTAMPTZ '2024-01-02 03:04:05.123456+02' AS tz, TIME WITH TIME ZONE '01:02:03+02' AS ttz, ARRAY[TIMESTAMPTZ '2024-07-01 00:00:00-07'] AS ltz",
      kinds: ['timestamptz', 'other', 'list'],
      children: [undefined, undefined, ['timestamptz']],
      engineTypes: ['timestamp with time zone', 'time with time zone', 'timestamp with time zone[]'],
      row: ['2024-01-02 01:04:05.123456+00', '01:02:03+02', ['2024-07-01 07:00:00+00']],
    },
  },
  {
    name: 'integers beyond 2^53 mixed with reals stay exact (SQLite)',
    duckdb: {
      sql: 'SELECT * FROM (VALUES (9007199254740993::HUGEINT), (2::HUGEINT)) t(x)',
      kinds: ['integer'],
      rows: [[9007199254740993n], [2]],
    },
    // A float column would round 9007199254740993: the column keeps exact mixed values.
    sqlite: {
      sql: 'SELECT 9007199254740993 AS x UNION ALL SELECT 1.5',
      kinds: ['other'],
      rows: [[9007199254740993n], [1.5]],
    },
    pglite: {
      sql: 'SELECT * FROM (VALUES (9007199254740993::int8), (2)) t(x)',
      kinds: ['integer'],
      rows: [[9007199254740993n], [2]],
    },
  },
  {
    name: 'lists of UUID, ENUM and BIT are DuckDB’s text per element; TIMESTAMP_S and _MS lists exact',
    duckdb: {
      sql: `SELECT * FROM (VALUES
        (1, ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::UUID], ['b'::ENUM('a', 'b')], ['101'::BIT], [TIMESTAMP_S '2024-01-02 03:04:05', NULL], [TIMESTAMP_MS '2024-01-02 03:04:05.123']),
        (2, [NULL], ['a'::ENUM('a', 'b'), NULL], [], [], NULL)
      ) t(k, u, e, b, s, ms) ORDER BY k`,
      kinds: ['integer', 'list', 'list', 'list', 'list', 'list'],
      children: [undefined, ['other'], ['other'], ['other'], ['timestamp'], ['timestamp']],
      rows: [
        [
          1,
          ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
          ['b'],
          ['101'],
          ['2024-01-02 03:04:05', null],
          ['2024-01-02 03:04:05.123'],
        ],
        [2, [null], ['a', null], [], [], null],
      ],
    },
    sqlite: {
      sql: "SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' AS u",
      kinds: ['text'],
      row: ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
    },
    pglite: {
      sql: "SELECT B'101' AS bits, '192.168.0.1/24'::inet AS ip, ARRAY[B'1', B'0'] AS lb, '(1,2)'::point AS pt",
      kinds: ['other', 'other', 'list', 'other'],
      children: [undefined, undefined, ['other'], undefined],
      engineTypes: ['bit', 'inet', 'bit[]', 'point'],
      row: ['101', '192.168.0.1/24', ['1', '0'], '(1,2)'],
    },
  },
  {
    name: 'a NUL inside text, JSON text (SQLite; DuckDB has no json extension offline) and an empty blob',
    duckdb: {
      sql: "SELECT 'a' || chr(0) || 'b' AS nul, ''::BLOB AS empty",
      kinds: ['text', 'blob'],
      row: ['a\u0000b', new Uint8Array([])],
    },
    sqlite: {
      sql: "SELECT 'a' || char(0) || 'b' AS nul, json_object('a', 1, 'b', 9007199254740993) AS j, zeroblob(0) AS empty",
      kinds: ['text', 'text', 'blob'],
      row: ['a\u0000b', '{"a":1,"b":9007199254740993}', new Uint8Array([])],
    },
    pglite: {
      // PostgreSQL text cannot hold a NUL: bytes can.
      sql: "SELECT '\\x610062'::bytea AS nul, ''::bytea AS empty, convert_to('é', 'UTF8') AS utf8",
      kinds: ['blob', 'blob', 'blob'],
      row: [new Uint8Array([0x61, 0, 0x62]), new Uint8Array([]), new Uint8Array([0xc3, 0xa9])],
    },
  },
];

/** The rows a case states (one row or several). */
export function rowsOf(expectation: Expectation): Cell[][] {
  return expectation.rows ?? (expectation.row ? [expectation.row] : []);
}

/** Object.is semantics for comparing cells in assertions: NaN equals NaN, -0 differs from 0, bytes by content. */
export function normalizeCell(cell: Cell): unknown {
  if (typeof cell === 'number') return Object.is(cell, -0) ? '-0' : Number.isNaN(cell) ? 'NaN' : cell;
  if (typeof cell === 'bigint') return { bigint: cell.toString() };
  if (cell instanceof Uint8Array) return { bytes: [...cell] };
  if (Array.isArray(cell)) return cell.map(normalizeCell);
  if (cell && typeof cell === 'object')
    return Object.fromEntries(Object.entries(cell).map(([k, v]) => [k, normalizeCell(v)]));
  return cell;
}
