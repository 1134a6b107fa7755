/**
 * Helpers for the result comparison tests: engines that produce real values,
 * small table builders, a seeded random generator and verdict assertions.
 */
import { expect } from 'vitest';
import type { Engine } from '../../src/core/engine.ts';
import {
  compareResults,
  type CompareOptions,
  type ComparisonConfig,
  type ReasonCode,
  type ResultComparison,
} from '../../src/core/result/index.ts';
import type { Cell, Column, Kind, ResultTable } from '../../src/core/value/kind.ts';
import { openEngine } from '../../src/engines/node.ts';
import { rngFrom } from '../../src/core/neighbours/prng.ts';

const FIXTURE = new TextEncoder().encode('CREATE TABLE t(x INTEGER);\nINSERT INTO t VALUES (1);\n');

/** Open a DuckDB and a SQLite engine with a trivial fixture (share them per test file). */
export async function openBothEngines(): Promise<{ duckdb: Engine; sqlite: Engine; close(): Promise<void> }> {
  const duckdb = openEngine('duckdb');
  const sqlite = openEngine('sqlite');
  for (const engine of [duckdb, sqlite]) {
    const loaded = await engine.load({
      name: 'tiny',
      files: [{ fileName: 'tiny.sql', format: 'sql', bytes: FIXTURE }],
    });
    if (!loaded.ok) throw new Error(`${engine.name}: ${loaded.error.message}`);
  }
  return {
    duckdb,
    sqlite,
    close: async () => {
      await Promise.all([duckdb.close(), sqlite.close()]);
    },
  };
}

/** Run a query and return its result (the test fails on an engine error). */
export async function query(engine: Engine, sql: string): Promise<ResultTable> {
  const outcome = await engine.execute(sql);
  if (!outcome.ok) throw new Error(`${engine.name} rejected ${sql}: ${outcome.error.message}`);
  return { columns: outcome.value.columns, rows: outcome.value.rows };
}

export function col(name: string, kind: Kind, engineType: string = kind.toUpperCase()): Column {
  return { name, kind, engineType };
}

export function table(columns: Column[], rows: Cell[][]): ResultTable {
  return { columns, rows };
}

/** Assert a pass: mode_pass true, no reasons, and the output is plain JSON. */
export function expectPass(
  expected: ResultTable,
  actual: ResultTable,
  config: Partial<ComparisonConfig> = {},
  options: CompareOptions = {},
): ResultComparison {
  const result = compareResults(expected, actual, config, options);
  expect(result.reasons, JSON.stringify(result.reasons, null, 1)).toEqual([]);
  expect(result.result_equality_family.mode_pass).toBe(true);
  expectPlainJson(result);
  return result;
}

/** Assert a failure with the given reason code among the reasons (each failure has a reason). */
export function expectFail(
  expected: ResultTable,
  actual: ResultTable,
  code: ReasonCode,
  config: Partial<ComparisonConfig> = {},
  options: CompareOptions = {},
): ResultComparison {
  const result = compareResults(expected, actual, config, options);
  expect(result.result_equality_family.mode_pass).toBe(false);
  expect(result.reasons.map((r) => r.code)).toContain(code);
  expectPlainJson(result);
  return result;
}

/** JSON round trip is lossless: no bigint, NaN, undefined or class instances anywhere. */
export function expectPlainJson(value: unknown): void {
  const visit = (v: unknown, path: string): void => {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return;
    if (typeof v === 'number') {
      expect(Number.isFinite(v), `${path} is a finite number`).toBe(true);
      return;
    }
    if (Array.isArray(v)) return v.forEach((x, i) => visit(x, `${path}[${i}]`));
    expect(typeof v, `${path} is an object`).toBe('object');
    expect(Object.getPrototypeOf(v), `${path} is a plain object`).toBe(Object.prototype);
    for (const [k, x] of Object.entries(v as object)) {
      expect(x, `${path}.${k} is defined`).not.toBeUndefined();
      visit(x, `${path}.${k}`);
    }
  };
  visit(value, '$');
  expect(JSON.parse(JSON.stringify(value))).toEqual(value);
}

/** A small deterministic PRNG: the neighbour generator's (mulberry32), so a failing seed replays anywhere. */
export const rng = rngFrom;

export function shuffle<T>(xs: readonly T[], random: ReturnType<typeof rng>): T[] {
  const out = xs.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
