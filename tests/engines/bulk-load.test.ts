/**
 * DuckDB loads a dump's plain INSERTs from staged CSV (src/core/sql/dump-rows.ts, DuckDbSession.loadRows):
 * the tables must be exactly those of the dump run as written. Each dump is loaded twice on the real engine,
 * DuckDB-WASM and native: as it is (the staged path) and inside a transaction of its own (which makes the
 * session load it as written); every row, every value and the content digest must agree, and the staged
 * path must have been taken where the literals allow it. Also here, the other read that a fresh engine's first
 * load made faster: the catalog's functions for the call policy, read as one string.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureInfo } from '../../src/core/engine.ts';
import { nativeDuckDbProblem } from '../../src/engines/duckdb/native-available.ts';
import type { DuckDbDriver } from '../../src/engines/duckdb/session.ts';
import { DuckDbSession } from '../../src/engines/duckdb/session.ts';
import { sqlFixture } from '../helpers/fixtures.ts';

const nativeProblem = nativeDuckDbProblem();

interface Recorded {
  session: DuckDbSession<unknown, unknown>;
  queries: string[];
}

/** A session whose driver notes every SQL text it is given. */
function recorded(driver: DuckDbDriver<unknown, unknown>): Recorded {
  const queries: string[] = [];
  const noting: DuckDbDriver<unknown, unknown> = {
    ...driver,
    query: (sql) => {
      queries.push(sql);
      return driver.query(sql);
    },
  };
  return { session: new DuckDbSession(noting), queries };
}

/** 80 rows of every kind of literal the staged path takes, into one table of most scalar types. */
function everyKindDump(): string {
  const strings = [
    "it''s",
    'say "hi", ok',
    'line\nbreak',
    'carriage\rreturn',
    'tab\there',
    '',
    ' padded ',
    'back\\slash',
    'Zürich 李 🦆',
    'NULL',
    ',',
  ];
  const rows: string[] = [];
  for (let i = 0; i < 80; i++) {
    const s = strings[i % strings.length]!;
    const n = (k: number) => (i % k === 0 ? 'NULL' : null);
    rows.push(
      `(${i}, ${n(7) ?? (i % 2 ? -i * 1000003 : i * 77)}, ${n(5) ?? `${i % 3 ? '-' : ''}${i}.${String(i % 100).padStart(2, '0')}`},` +
        ` ${n(6) ?? (i % 4 ? `${i}.${i}` : `${i * 13}`)}, ${n(9) ?? `'${s}'`}, ${n(8) ?? `'20${String(10 + (i % 15))}-0${1 + (i % 9)}-1${i % 10}'`},` +
        ` ${n(10) ?? `'2024-02-29 23:59:${String(i % 60).padStart(2, '0')}.${i}'`}, ${n(11) ?? `'${i % 2 ? 'true' : 'f'}'`},` +
        ` ${n(12) ?? `'${-i}'`}, ${n(13) ?? `${i}1234567890123456789`}, ${n(3) ?? `'12:34:${String(i % 60).padStart(2, '0')}'`})`,
    );
  }
  return [
    'CREATE TABLE kinds (id INTEGER, big BIGINT, price DECIMAL(10,2), ratio DOUBLE, label VARCHAR, day DATE,',
    '  ts TIMESTAMP, flag BOOLEAN, small SMALLINT, huge HUGEINT, clock TIME);',
    `INSERT INTO kinds VALUES ${rows.slice(0, 40).join(',\n  ')};`,
    // Interleaved tables (each run of rows flushed in order), a quoted name, a table altered between its INSERTs.
    'CREATE TABLE "Order Lines" (n INTEGER, note VARCHAR);',
    `INSERT INTO "Order Lines" VALUES ${Array.from({ length: 30 }, (_, i) => `(${i}, 'note ${i}')`).join(', ')};`,
    `INSERT INTO kinds VALUES ${rows.slice(40).join(',\n  ')};`,
    'ALTER TABLE "Order Lines" ADD COLUMN extra DECIMAL(6,3);',
    `INSERT INTO "Order Lines" VALUES ${Array.from({ length: 30 }, (_, i) => `(${100 + i}, NULL, ${i}.5)`).join(', ')};`,
  ].join('\n');
}

/**
 * Statements the staged path must leave as written: each has one value that would, or could, land
 * differently from staged text (the rest of its row is plain). Repeated to pass the size the staged path
 * starts at.
 */
const AS_WRITTEN = [
  'CREATE TABLE odd (a DOUBLE, b DECIMAL(10,2), c INTEGER, d VARCHAR);',
  "INSERT INTO odd VALUES (-0.0, 1, 2, 'x');", // the SQL makes +0 of a minus zero, the text -0
  "INSERT INTO odd VALUES (1, 1.005, 2, 'x');", // a rounding
  "INSERT INTO odd VALUES (1, 2, 2.5, 'x');", // a rounding to an integer
  'INSERT INTO odd VALUES (1, 2, 3, 42);', // a number into text
  'INSERT INTO odd VALUES (1, 2, 3, 0042);', // a number into text, leading zeros
  "INSERT INTO odd VALUES (1e3, 2, 3, 'x');", // an exponent
  "INSERT INTO odd VALUES (0.1234567890123456789, 2, 3, 'x');", // 19 digits into DOUBLE
  "INSERT INTO odd VALUES (0.5, 2, 3, 'x'), (123456789012345, 2, 3, 'x');", // a common DECIMAL(16,1)
  "INSERT INTO odd VALUES (1, 2, '3', 'x'), (4, 5, 6, 'y');", // a string and a number in one column
  'CREATE TABLE lists (e INTEGER[], f VARCHAR);',
  "INSERT INTO lists VALUES ('[1, 2]', 'x');", // a type the staged path does not know
].join('\n');

const DUMPS: Record<string, () => string> = {
  'every kind of literal': everyKindDump,
  'literals left as written, next to staged rows': () => `${everyKindDump()}\n${AS_WRITTEN}`,
  'the built-in retail fixture': () => readFileSync(new URL('../../fixtures/retail.sql', import.meta.url), 'utf8'),
  'the built-in retail_monthly fixture': () =>
    readFileSync(new URL('../../fixtures/retail_monthly.sql', import.meta.url), 'utf8'),
};

const drivers: Record<string, () => Promise<DuckDbDriver<unknown, unknown>>> = {
  'DuckDB-WASM': async () =>
    (await import('../../src/engines/duckdb/driver-node.ts')).createNodeDuckDbDriver() as Promise<
      DuckDbDriver<unknown, unknown>
    >,
  'native DuckDB': async () =>
    (await import('../../src/engines/duckdb/driver-native.ts')).createNativeDuckDbDriver({ threads: 1 }) as Promise<
      DuckDbDriver<unknown, unknown>
    >,
};

for (const [driverName, create] of Object.entries(drivers)) {
  const skip = driverName === 'native DuckDB' && nativeProblem !== null;
  // Where the native binding cannot load, its suite is skipped, saying why (as the engine contract does).
  (skip ? describe.skip : describe)(
    `a staged dump on ${driverName}${skip ? ` (skipped: ${nativeProblem})` : ''}`,
    () => {
      let engine: Recorded;
      beforeAll(async () => {
        engine = recorded(await create());
      }, 120_000);
      afterAll(() => engine?.session.dispose());

      /** Every table's rows in insertion order, and the fixture info. */
      async function load(sql: string): Promise<{ info: FixtureInfo; tables: Record<string, unknown[][]> }> {
        const loaded = await engine.session.load(sqlFixture('dump', sql));
        if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
        const tables: Record<string, unknown[][]> = {};
        for (const table of loaded.value.tables) {
          // The values, and DuckDB's own text of each (which tells -0.0 from 0, where the value model does not).
          for (const select of ['*', 'CAST(COLUMNS(*) AS VARCHAR)']) {
            const result = await engine.session.execute(`SELECT ${select} FROM "${table.name}"`, { maxRows: 10_000 });
            if (!result.ok) throw new Error(JSON.stringify(result.error));
            tables[`${table.name}: ${select}`] = result.value.rows;
          }
        }
        return { info: loaded.value, tables };
      }

      for (const [dumpName, dump] of Object.entries(DUMPS))
        it(`loads ${dumpName} exactly as the dump run as written`, async () => {
          const sql = dump();
          engine.queries.length = 0;
          const staged = await load(sql);
          const stagedInserts = engine.queries.filter((q) => /^INSERT INTO .* FROM read_csv\(/s.test(q)).length;
          engine.queries.length = 0;
          const written = await load(`BEGIN TRANSACTION;\n${sql}\nCOMMIT;\n`);
          expect(engine.queries.some((q) => q.includes('read_csv('))).toBe(false);
          expect(stagedInserts).toBeGreaterThan(0);
          expect(staged.info.tables).toEqual(written.info.tables);
          expect(staged.tables).toEqual(written.tables);
          expect(staged.info.contentDigest).toBe(written.info.contentDigest);
        });

      it("reads the catalog's functions as one string, and as rows where a text holds a separator", async () => {
        const session = engine.session as unknown as {
          catalogFunctions(): Promise<(string | null)[][]>;
          rows(sql: string, columns: { name: string; engineType: string; kind: 'text' }[]): Promise<unknown[][]>;
        };
        const asRows = () =>
          session.rows(
            'SELECT function_name, function_type, stability, CAST(has_side_effects AS VARCHAR), macro_definition, database_name FROM duckdb_functions()',
            ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => ({ name, engineType: 'VARCHAR', kind: 'text' as const })),
          );
        for (const macro of ["'plain'", "'rec\u001esep'", 'chr(29)', "'field\u001fsep'"]) {
          const loaded = await engine.session.load(
            sqlFixture('macros', `CREATE TABLE t (a INTEGER);\nCREATE MACRO m() AS ${macro};\n`),
          );
          expect(loaded.ok).toBe(true);
          const packed = await session.catalogFunctions();
          expect(packed.length).toBeGreaterThan(500);
          expect(packed).toEqual(await asRows());
          expect(packed.find((r) => r[0] === 'm')?.[4]).toContain(macro === 'chr(29)' ? 'chr(29)' : macro.slice(1, -1));
        }
      });

      it('gives a broken dump the error and line of the dump as written, nothing half-loaded', async () => {
        const rows = Array.from({ length: 70 }, (_, i) => `(${i})`).join(', ');
        const broken = `CREATE TABLE t (a INTEGER PRIMARY KEY);\nINSERT INTO t VALUES ${rows};\nINSERT INTO t VALUES (5);\n`;
        const loaded = await engine.session.load(sqlFixture('broken', broken));
        expect(loaded.ok).toBe(false);
        if (loaded.ok) return;
        expect(loaded.error.code).toBe('fixture.load_failed');
        expect(loaded.error.message).toMatch(/^broken\.sql(:\d+)?: .*(Duplicate key|PRIMARY KEY|constraint)/i);
      });
    },
  );
}
