/**
 * Verdicts on values that only some engine types produce, decoded by the real
 * engines (DuckDB-WASM, native DuckDB when its binding loads, PGlite): the
 * decoded cells must mean what the policy says, so a wrong candidate fails and
 * a right one passes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine.ts';
import { nativeDuckDbProblem } from '../../src/engines/duckdb/native-available.ts';
import { CodecError, decodeResultTable } from '../../src/core/value/json-codec.ts';
import { openEngine } from '../../src/engines/node.ts';
import { expectFail, expectPass, query } from './helpers.ts';

const FIXTURE = new TextEncoder().encode('CREATE TABLE t(x INTEGER);\nINSERT INTO t VALUES (1);\n');

let wasm: Engine;
let native: Engine | null = null;

async function loaded(engine: Engine): Promise<Engine> {
  const outcome = await engine.load({ name: 'tiny', files: [{ fileName: 'tiny.sql', format: 'sql', bytes: FIXTURE }] });
  if (!outcome.ok) throw new Error(`${engine.name}: ${outcome.error.message}`);
  return engine;
}

beforeAll(async () => {
  wasm = await loaded(openEngine('duckdb', { duckdbDriver: 'wasm' }));
  if (nativeDuckDbProblem() === null) native = await loaded(openEngine('duckdb', { duckdbDriver: 'native' }));
}, 60_000);

afterAll(async () => {
  await Promise.all([wasm?.close(), native?.close()]);
});

/** Each DuckDB this machine has (WASM always, native when its binding loads). */
const duckdbs = () => [wasm, ...(native ? [native] : [])];

describe('DuckDB struct fields', () => {
  it('a field named __proto__ keeps its value: 1 and 2 differ', async () => {
    for (const engine of duckdbs()) {
      const one = await query(engine, "SELECT {'__proto__': 1} AS s");
      expect(Object.keys(one.rows[0]![0] as object)).toEqual(['__proto__']);
      expectFail(one, await query(engine, "SELECT {'__proto__': 2} AS s"), 'value_mismatch');
      expectPass(one, await query(engine, "SELECT {'__proto__': 1.0} AS s"));
    }
  });
});

/** One PGlite for the file, opened by the first block that needs it. */
let pgliteOnce: Promise<Engine> | null = null;
const openPglite = () => (pgliteOnce ??= loaded(openEngine('pglite')));
afterAll(async () => {
  await (await pgliteOnce)?.close();
});

describe('intervals across engines', () => {
  let pglite: Engine;
  beforeAll(async () => {
    pglite = await openPglite();
  }, 120_000);

  const INTERVALS = [
    "'1 month'",
    "'-1 day'",
    "'1 year 2 months 3 days 04:05:06.7'",
    "'-1 year -2 months'",
    "'1 year -1 month'",
    "'-1 day 02:00:00'",
    "'1 day -01:00:00'",
    "'-25 months -1 days'",
    "'100 hours'",
    "'0 seconds'",
    "'-0.5 seconds'",
  ];

  it('the same interval on PostgreSQL and DuckDB is the same value', async () => {
    const select = INTERVALS.map((text, i) => `INTERVAL ${text} AS i${i}`).join(', ');
    const pg = await query(pglite, `SELECT ${select}`);
    const duck = await query(wasm, `SELECT ${select}`);
    expect(pg.rows).toEqual(duck.rows);
    expectPass(pg, duck, { require_column_order_match: true });
    expectPass(
      await query(pglite, "SELECT ARRAY[INTERVAL '1 month', INTERVAL '-1 day 02:00:00'] AS l"),
      await query(wasm, "SELECT [INTERVAL '1 month', INTERVAL '-1 day 02:00:00'] AS l"),
    );
  });

  it('a PostgreSQL real is the same number as the DuckDB REAL (float32), even with zero tolerance', async () => {
    const exact = { numeric_abs_tolerance: 0, numeric_rel_tolerance: 0 };
    const pg = await query(pglite, 'SELECT 0.1::real AS r, ARRAY[1.1::real, 1e-45::real] AS l');
    const duck = await query(wasm, 'SELECT 0.1::REAL AS r, [1.1::REAL, 1e-45::REAL] AS l');
    expect(pg.rows).toEqual(duck.rows);
    expectPass(pg, duck, exact);
    expectFail(
      await query(pglite, 'SELECT 0.1::real AS r'),
      await query(wasm, 'SELECT 0.1::DOUBLE AS r'),
      'value_mismatch',
      exact,
    );
  });

  it('a numeric NaN or Infinity is the float of that name', async () => {
    const rows = (values: string) => `SELECT * FROM (VALUES ${values}) t(k, v)`;
    expectPass(
      await query(pglite, rows("(1, 'NaN'::numeric), (2, 'Infinity'::numeric), (3, '-Infinity'::numeric), (4, 2.5)")),
      await query(wasm, rows("(4, 2.5::DOUBLE), (3, '-inf'::DOUBLE), (2, 'inf'::DOUBLE), (1, 'nan'::DOUBLE)")),
    );
    expectFail(
      await query(pglite, "SELECT 'NaN'::numeric AS v"),
      await query(pglite, 'SELECT 1::numeric AS v'),
      'value_mismatch',
    );
    expectFail(
      await query(pglite, "SELECT 'Infinity'::numeric AS v"),
      await query(wasm, "SELECT '-inf'::DOUBLE AS v"),
      'value_mismatch',
    );
  });

  it('different intervals still differ (a month is not 30 days, a day is not 24 hours)', async () => {
    expectFail(
      await query(pglite, "SELECT INTERVAL '1 month' AS i"),
      await query(wasm, "SELECT INTERVAL '30 days' AS i"),
      'value_mismatch',
    );
    expectFail(
      await query(pglite, "SELECT INTERVAL '1 day' AS i"),
      await query(wasm, "SELECT INTERVAL '24 hours' AS i"),
      'value_mismatch',
    );
  });
});

describe('DuckDB TIMESTAMP_NS', () => {
  it('is a timestamp: it equals the same TIMESTAMP and a DATE at its midnight, never a VARCHAR', async () => {
    for (const engine of duckdbs()) {
      const d = (sql: string) => query(engine, sql);
      const ns = await d("SELECT TIMESTAMP_NS '2024-01-01 01:02:03' AS t");
      expect(ns.columns[0]!.kind).toBe('timestamp');
      expectPass(ns, await d("SELECT TIMESTAMP '2024-01-01 01:02:03' AS t"));
      expectPass(await d("SELECT TIMESTAMP_NS '2024-01-01 00:00:00' AS t"), await d("SELECT DATE '2024-01-01' AS t"));
      expectPass(
        await d("SELECT [TIMESTAMP_NS '2024-01-01 01:02:03.5', TIMESTAMP_NS '2024-01-02 00:00:00'] AS t"),
        await d("SELECT [TIMESTAMP_MS '2024-01-01 01:02:03.500', TIMESTAMP_MS '2024-01-02 00:00:00'] AS t"),
      );
      expectFail(ns, await d("SELECT '2024-01-01 01:02:03' AS t"), 'type_mismatch');
    }
  });

  it('keeps its nanoseconds', async () => {
    for (const engine of duckdbs()) {
      const d = (sql: string) => query(engine, sql);
      const ns = await d("SELECT TIMESTAMP_NS '2024-01-01 01:02:03.123456789' AS t");
      expectFail(ns, await d("SELECT TIMESTAMP_NS '2024-01-01 01:02:03.123456788' AS t"), 'value_mismatch');
      expectFail(ns, await d("SELECT TIMESTAMP '2024-01-01 01:02:03.123456' AS t"), 'value_mismatch');
      expectFail(
        await d("SELECT TIMESTAMP_NS '2024-01-01 00:00:00.000000001' AS t"),
        await d("SELECT DATE '2024-01-01' AS t"),
        'value_mismatch',
      );
      expectPass(ns, await d("SELECT TIMESTAMP_NS '2024-01-01 01:02:03.123456789' AS t"));
    }
  });
});

describe('DuckDB TIME_NS', () => {
  it('is a time: it equals the same TIME, keeps its nanoseconds, never equals a VARCHAR', async () => {
    for (const engine of duckdbs()) {
      const d = (sql: string) => query(engine, sql);
      const ns = await d("SELECT '01:02:03.5'::TIME_NS AS t");
      expect(ns.columns[0]!.kind).toBe('time');
      expectPass(ns, await d("SELECT TIME '01:02:03.5' AS t"));
      expectFail(ns, await d("SELECT '01:02:03.5' AS t"), 'type_mismatch');
      expectFail(
        await d("SELECT ['01:02:03.123456789'::TIME_NS] AS t"),
        await d("SELECT [TIME '01:02:03.123456'] AS t"),
        'value_mismatch',
      );
    }
  });
});

describe('DuckDB BIGNUM (VARINT)', () => {
  it('is an integer: it equals the same INTEGER or HUGEINT, keeps every digit, never equals a VARCHAR', async () => {
    for (const engine of duckdbs()) {
      const d = (sql: string) => query(engine, sql);
      const twelve = await d("SELECT '12'::BIGNUM AS n");
      expect(twelve.columns[0]!.kind).toBe('integer');
      expectPass(twelve, await d('SELECT 12 AS n'));
      expectPass(twelve, await d('SELECT 12.00 AS n'));
      expectFail(twelve, await d("SELECT '12' AS n"), 'type_mismatch');
      const big = await d("SELECT '-123456789012345678901234567890123456789012'::BIGNUM AS n");
      expect(big.rows[0]![0]).toBe(-123456789012345678901234567890123456789012n);
      expectFail(big, await d("SELECT '-123456789012345678901234567890123456789011'::BIGNUM AS n"), 'value_mismatch');
      expectPass(
        await d("SELECT ['170141183460469231731687303715884105727'::BIGNUM, NULL] AS l"),
        await d("SELECT ['170141183460469231731687303715884105727'::HUGEINT, NULL] AS l"),
      );
    }
  });
});

/**
 * ROW(…) compares field by field, by kind, on an engine that prints ROW(1) and ROW('1') alike; `listOf` writes a
 * list of rows in the engine's dialect, `text` is the engine's text of ROW(1, 'a'). Returns that ROW's result.
 */
async function expectRowsByKind(engine: Engine, listOf: (row: string) => string, text: string) {
  const d = (sql: string) => query(engine, sql);
  const reference = await d("SELECT row(1, 'a') AS r");
  expect(reference.rows[0]![0]).toEqual({ 1: 1, 2: 'a' });
  expectPass(reference, await d("SELECT row(1, 'a') AS r"));
  expectFail(reference, await d("SELECT row('1', 'a') AS r"), 'value_mismatch');
  expectFail(reference, await d("SELECT row(1, 'b') AS r"), 'value_mismatch');
  expectFail(reference, await d(`SELECT '${text}' AS r`), 'type_mismatch');
  expectPass(await d(`SELECT ${listOf('row(1, 2.50)')} AS r`), await d(`SELECT ${listOf('row(1, 2.5)')} AS r`));
  const [two, twoAsText] = [listOf('row(1, 2)'), listOf("row(1, '2')")];
  expectFail(await d(`SELECT ${two} AS r`), await d(`SELECT ${twoAsText} AS r`), 'value_mismatch');
  return reference;
}

describe('DuckDB unnamed structs (ROW)', () => {
  it("compare field by field, by kind: ROW(1) is not ROW('1'), though DuckDB prints both as (1)", async () => {
    for (const engine of duckdbs()) await expectRowsByKind(engine, (row) => `[${row}]`, '(1, a)');
  });
});

describe('DuckDB UNION values', () => {
  it("keep their tag: union_value(a := 1) is not union_value(b := '1')", async () => {
    for (const engine of duckdbs()) {
      const d = (sql: string) => query(engine, sql);
      const u = (member: string) => d(`SELECT union_value(${member})::UNION(a INTEGER, b VARCHAR) AS u`);
      expectPass(await u('a := 1'), await u('a := 1'));
      expectFail(await u('a := 1'), await u("b := '1'"), 'value_mismatch');
      expectFail(await u('a := 1'), await u('a := 2'), 'value_mismatch');
      const none = await d('SELECT NULL::UNION(a INTEGER, b VARCHAR) AS u');
      expect(none.rows[0]![0]).toBeNull();
      expectPass(none, await d('SELECT NULL::UNION(a INTEGER, b VARCHAR) AS u'));
    }
  });

  it('keep their tag inside a list, an array, a struct, a map and a struct in a list', async () => {
    const U = 'UNION(a INTEGER, b VARCHAR)';
    // Each shape with the member a := 1; the candidate with b := '1' prints the same text.
    const shapes = [
      (m: string) => `[union_value(${m})::${U}, NULL]`,
      (m: string) => `array_value(union_value(${m})::${U})`,
      (m: string) => `{'k': union_value(${m})::${U}, 'n': 1}`,
      (m: string) => `MAP {'k': union_value(${m})::${U}}`,
      (m: string) => `[{'k': [union_value(${m})::${U}]}]`,
      (m: string) => `MAP {union_value(${m})::${U}: 1}`,
    ];
    for (const engine of duckdbs()) {
      const d = (sql: string) => query(engine, sql);
      for (const shape of shapes) {
        const reference = await d(`SELECT ${shape('a := 1')} AS v`);
        expectPass(reference, await d(`SELECT ${shape('a := 1')} AS v`));
        expectFail(reference, await d(`SELECT ${shape("b := '1'")} AS v`), 'value_mismatch');
        expectFail(reference, await d(`SELECT ${shape('a := 2')} AS v`), 'value_mismatch');
      }
      const listed = await d(`SELECT [union_value(a := 1)::${U}, NULL] AS v`);
      expect(listed.rows[0]![0]).toEqual([{ tag: 'a', value: '1' }, null]);
      // A NULL struct holding a union stays NULL (not a struct of NULLs).
      const noStruct = await d(`SELECT NULL::STRUCT(k ${U}) AS v`);
      expect(noStruct.rows[0]![0]).toBeNull();
      expectFail(noStruct, await d(`SELECT {'k': NULL::${U}} AS v`), 'null_mismatch');
    }
  });
});

describe('PostgreSQL records and composites', () => {
  it("compare field by field, by kind, as DuckDB's ROW does: ROW(1, 'a') is not ROW('1', 'a')", async () => {
    const pglite = await openPglite();
    const p = (sql: string) => query(pglite, sql);
    const reference = await expectRowsByKind(pglite, (row) => `ARRAY[${row}]`, '(1,a)');
    expectPass(reference, await p("SELECT (1, 'a') AS r"));
    // Decimals by value, as everywhere: PostgreSQL's text (1,2.50) was not (1,2.5).
    expectPass(await p('SELECT ROW(1, 2.50) AS r'), await p('SELECT ROW(1, 2.5) AS r'));
    // The same ROW reads the same on DuckDB.
    for (const engine of duckdbs()) expectPass(await query(engine, "SELECT row(1, 'a') AS r"), reference);
  }, 120_000);

  it('read a whole-row reference as the struct of its columns, keep NULL records, names and row order', async () => {
    const pglite = await openPglite();
    const p = (sql: string) => query(pglite, sql);
    const whole = await p('SELECT t, t AS t FROM t');
    expect(whole.columns.map((c) => [c.name, c.kind, c.engineType])).toEqual([
      ['t', 'struct', 't'],
      ['t', 'struct', 't'],
    ]);
    expect(whole.rows).toEqual([[{ x: 1 }, { x: 1 }]]);
    const ordered = await p(
      "SELECT r FROM (VALUES (1, ROW(2, 'x')), (2, NULL), (3, ROW(1, NULL))) AS v(k, r) ORDER BY k DESC",
    );
    expect(ordered.rows).toEqual([[{ 1: 1, 2: null }], [null], [{ 1: 2, 2: 'x' }]]);
  }, 120_000);
});

describe('PostgreSQL arrays with other bounds', () => {
  it("'[2:3]={1,2}' is not ARRAY[1,2] (PostgreSQL: false), and equals itself", async () => {
    const pglite = await openPglite();
    const bounded = await query(pglite, "SELECT '[2:3]={1,2}'::int[] AS a");
    expectFail(bounded, await query(pglite, 'SELECT ARRAY[1,2] AS a'), 'type_mismatch');
    expectPass(bounded, await query(pglite, "SELECT '[2:3]={1,2}'::int[] AS a"));
    expectPass(await query(pglite, 'SELECT ARRAY[1,2] AS a'), await query(pglite, "SELECT '{1,2}'::int[] AS a"));
  }, 120_000);
});

describe('DuckDB maps', () => {
  it('compare as their entries: decimals by value, floats within tolerance, order and keys significant', async () => {
    for (const engine of duckdbs()) {
      const d = (sql: string) => query(engine, sql);
      expectPass(await d("SELECT MAP {'a': 10.0} AS m"), await d("SELECT MAP {'a': 10.00} AS m"));
      expectPass(
        await d("SELECT MAP {'a': 0.3::DOUBLE} AS m"),
        await d("SELECT MAP {'a': 0.1::DOUBLE + 0.2::DOUBLE} AS m"),
      );
      expectPass(
        await d("SELECT [MAP {'k': [1.5::DECIMAL(4,2)]}] AS m"),
        await d("SELECT [MAP {'k': [1.5::DECIMAL(9,1)]}] AS m"),
      );
      expectFail(await d("SELECT MAP {'a': 10.0} AS m"), await d("SELECT MAP {'a': 10.01} AS m"), 'value_mismatch');
      expectFail(
        await d("SELECT MAP {'a': 1, 'b': 2} AS m"),
        await d("SELECT MAP {'b': 2, 'a': 1} AS m"),
        'value_mismatch',
      );
      expectFail(await d("SELECT MAP {'a': 1} AS m"), await d("SELECT MAP {'b': 1} AS m"), 'value_mismatch');
      expectFail(
        await d('SELECT MAP {}::MAP(VARCHAR, INTEGER) AS m'),
        await d('SELECT NULL::MAP(VARCHAR, INTEGER) AS m'),
        'null_mismatch',
      );
    }
  });

  it('never equal text', async () => {
    for (const engine of duckdbs())
      expectFail(
        await query(engine, "SELECT MAP {'a': 1} AS m"),
        await query(engine, "SELECT '{a=1}' AS m"),
        'type_mismatch',
      );
  });
});

describe('frozen expected results (JSON)', () => {
  const frozen = (cell: string) =>
    decodeResultTable(JSON.parse(`{"columns": [{"name": "v", "kind": "decimal"}], "rows": [[${cell}]]}`), 'expected');

  it('refuses a decimal written as a JSON number the parser has rounded (it would be another number)', async () => {
    // JSON.parse reads 12345678901234567890.12 as 12345678901234567000: taking those digits passed a
    // candidate returning 12345678901234567000 and failed the right one.
    expect(() => frozen('12345678901234567890.12')).toThrowError(CodecError);
    expect(() => frozen('1234567890.123456')).toThrowError(/15 significant digits/);
    const right = await query(wasm, 'SELECT 12345678901234567890.12::DECIMAL(38,2) AS v');
    expectPass(frozen('"12345678901234567890.12"'), right);
    expectFail(
      frozen('"12345678901234567890.12"'),
      await query(wasm, 'SELECT 12345678901234567000::DECIMAL(38,2) AS v'),
      'value_mismatch',
    );
  });

  it('still reads short decimals and safe integers written as numbers', async () => {
    expectPass(frozen('12.5'), await query(wasm, 'SELECT 12.50 AS v'));
    expectPass(frozen('9007199254740991'), await query(wasm, 'SELECT 9007199254740991::DECIMAL(20,0) AS v'));
    expectPass(frozen('1234567890.12345'), await query(wasm, 'SELECT 1234567890.12345 AS v'));
  });
});

describe('frozen timestamps (JSON)', () => {
  const frozen = (kind: string, cell: string) =>
    decodeResultTable({ columns: [{ name: 'v', kind }], rows: [[cell]] }, 'expected');

  it('a timestamptz written without "+00" is that UTC instant: it equals the engine TIMESTAMPTZ, never a local TIMESTAMP or a DATE', async () => {
    // It was read as a local timestamp's text under kind timestamptz: it never equalled the engine's
    // "… +00" (a right candidate failed), in a list neither.
    expectPass(
      frozen('timestamptz', '2024-01-02 10:00:00'),
      await query(wasm, "SELECT TIMESTAMPTZ '2024-01-02 10:00:00+00' AS v"),
    );
    expectPass(
      frozen('timestamptz', '2024-01-02T00:00:00'),
      await query(wasm, "SELECT TIMESTAMPTZ '2024-01-02 00:00:00+00' AS v"),
    );
    expectPass(
      decodeResultTable(
        {
          columns: [{ name: 'v', kind: 'list', children: [{ name: 'e', kind: 'timestamptz' }] }],
          rows: [[['2024-01-02 10:00:00']]],
        },
        'expected',
      ),
      await query(wasm, "SELECT [TIMESTAMPTZ '2024-01-02 10:00:00+00'] AS v"),
    );
    expectFail(
      frozen('timestamptz', '2024-01-02 10:00:00'),
      await query(wasm, "SELECT TIMESTAMP '2024-01-02 10:00:00' AS v"),
      'type_mismatch',
    );
    expectFail(
      frozen('timestamptz', '2024-01-02 00:00:00'),
      await query(wasm, "SELECT DATE '2024-01-02' AS v"),
      'type_mismatch',
    );
    expectFail(
      frozen('timestamptz', '2024-01-02 10:00:00'),
      await query(wasm, "SELECT TIMESTAMPTZ '2024-01-02 10:00:01+00' AS v"),
      'value_mismatch',
    );
    expect(frozen('timestamptz', 'infinity').rows[0]![0]).toBe('infinity');
  });

  it('a local timestamp written with "+00" is that wall-clock time: it equals the engine TIMESTAMP, never a TIMESTAMPTZ', async () => {
    expectPass(
      frozen('timestamp', '2024-01-02 10:00:00+00'),
      await query(wasm, "SELECT TIMESTAMP '2024-01-02 10:00:00' AS v"),
    );
    expectPass(frozen('timestamp', '2024-01-02 00:00:00+00'), await query(wasm, "SELECT DATE '2024-01-02' AS v"));
    expectFail(
      frozen('timestamp', '2024-01-02 10:00:00+00'),
      await query(wasm, "SELECT TIMESTAMPTZ '2024-01-02 10:00:00+00' AS v"),
      'type_mismatch',
    );
  });
});
