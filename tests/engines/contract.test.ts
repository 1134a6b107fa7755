/**
 * The engine contract (table in contract-cases.ts), run on DuckDB (WASM and
 * native: the same column of expectations), SQLite and PGlite in Node worker
 * threads: every column kind, every row and every cell asserted. (The
 * PostgreSQL server column: postgres-server.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine, EngineName, QueryResult } from '../../src/core/engine.ts';
import { CASES, normalizeCell, rowsOf } from './contract-cases.ts';
import { openEngine } from '../../src/engines/node.ts';
import { nativeDuckDbProblem } from '../../src/engines/duckdb/native-available.ts';
import { sqlFixture } from '../helpers/fixtures.ts';

type Column = EngineName | 'duckdb-native';
const engines: Partial<Record<Column, Engine>> = {};
const COLUMNS = ['duckdb', 'duckdb-native', 'sqlite', 'pglite'] as const;
// Where the native binding cannot load (a platform npm found no binding for), its column is skipped, saying why.
const nativeProblem = nativeDuckDbProblem();
const skipped = (column: Column) => column === 'duckdb-native' && nativeProblem !== null;
const expectationsOf = (column: (typeof COLUMNS)[number]) => (column === 'duckdb-native' ? 'duckdb' : column);

beforeAll(async () => {
  // Side by side: each engine starts in its own thread.
  await Promise.all(
    COLUMNS.filter((name) => !skipped(name)).map(async (name) => {
      const engine = name === 'duckdb-native' ? openEngine('duckdb', { duckdbDriver: 'native' }) : openEngine(name);
      const loaded = await engine.load(sqlFixture('empty', 'CREATE TABLE placeholder(x INTEGER);'));
      expect(loaded.ok).toBe(true);
      engines[name] = engine;
    }),
  );
  // Five engine starts (PGlite, two DuckDB-WASM bundles) on a loaded 2-core machine.
}, 300_000);

afterAll(async () => {
  await Promise.all(Object.values(engines).map((e) => e.close()));
});

for (const engineName of COLUMNS) {
  const suite = skipped(engineName) ? describe.skip : describe;
  suite(`engine contract: ${engineName}${skipped(engineName) ? ` (skipped: ${nativeProblem})` : ''}`, () => {
    for (const c of CASES) {
      it(c.name, async () => {
        const expectation = c[expectationsOf(engineName)];
        const outcome = await engines[engineName]!.execute(expectation.sql);
        if (!outcome.ok) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
        const result: QueryResult = outcome.value;
        expect(result.columns.map((col) => col.kind)).toEqual(expectation.kinds);
        if (expectation.names) expect(result.columns.map((col) => col.name)).toEqual(expectation.names);
        if (expectation.engineTypes)
          expect(result.columns.map((col) => col.engineType)).toEqual(expectation.engineTypes);
        if (expectation.children)
          expectation.children.forEach((kinds, i) => {
            if (kinds)
              expect(
                result.columns[i]!.children?.map((child) => child.kind),
                `children of column ${i}`,
              ).toEqual(kinds);
          });
        expect(result.rows.map((row) => row.map(normalizeCell))).toEqual(
          rowsOf(expectation).map((row) => row.map(normalizeCell)),
        );
        for (const col of result.columns) expect(col.engineType).not.toBe('');
      });
    }
  });
}

describe('engine contract: engine types are the engine’s own names', () => {
  it('DuckDB reports DECIMAL(p,s), BIGINT, DATE, TIMESTAMP', async () => {
    const outcome = await engines.duckdb!.execute(
      "SELECT 1.5::DECIMAL(18,2) a, 1::BIGINT b, DATE '2024-01-01' c, TIMESTAMP '2024-01-01 10:00:00' d",
    );
    if (!outcome.ok) throw new Error(outcome.error.message);
    expect(outcome.value.columns.map((c) => c.engineType)).toEqual(['DECIMAL(18,2)', 'BIGINT', 'DATE', 'TIMESTAMP']);
  });
});
