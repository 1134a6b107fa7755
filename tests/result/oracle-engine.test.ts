/**
 * Metamorphic properties on real results: generated tables are written as
 * SQL, run on DuckDB (the real engine and decoder), and the candidate is
 * produced by a transformed query — columns permuted and renamed, rows in
 * another order, DECIMAL(6,1) widened to DECIMAL(9,3) (1.5 ↔ 1.500), DATE
 * cast to TIMESTAMP (midnight) — which must pass; a one-cell change must
 * get the oracle's verdict.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine.ts';
import { compareResults, resultVerdict } from '../../src/core/result/index.ts';
import { DEFAULT_COMPARISON_CONFIG } from '../../src/core/result/config.ts';
import { openEngine } from '../../src/engines/node.ts';
import { query } from './helpers.ts';
import { oracleModePass } from './oracle.ts';

let duckdb: Engine;
beforeAll(async () => {
  duckdb = openEngine('duckdb');
  const loaded = await duckdb.load({
    name: 'tiny',
    files: [{ fileName: 'tiny.sql', format: 'sql', bytes: new TextEncoder().encode('CREATE TABLE t(x INTEGER);\n') }],
  });
  if (!loaded.ok) throw new Error(loaded.error.message);
});
afterAll(async () => {
  await duckdb?.close();
});

// Few distinct values per column, so columns and rows repeat and alignments are ambiguous.
const AMOUNTS = ['1.5', '2.0', '-0.5', '1.5'];
const DAYS = ['2024-01-02', '2024-01-03'];
const SCORES = ['0.1', '0.30000000000000004', '0.3', '1e9'];
const NAMES = ["'a'", "'b'", 'NULL'];

const rowArb = fc.tuple(fc.nat(3), fc.nat(3), fc.nat(1), fc.boolean(), fc.nat(3), fc.nat(2));
const tableArb = fc.array(rowArb, { minLength: 1, maxLength: 7 });

const COLUMNS = ['id', 'amount', 'day', 'flag', 'score', 'name'];

function values(rows: (typeof rowArb extends fc.Arbitrary<infer T> ? T : never)[]): string {
  const cells = rows.map(
    ([id, amount, day, flag, score, name]) =>
      `(${id}::INTEGER, ${AMOUNTS[amount]}::DECIMAL(6,1), DATE '${DAYS[day]}', ${flag}, ${SCORES[score]}::DOUBLE, ${NAMES[name]}::VARCHAR)`,
  );
  return `(VALUES ${cells.join(', ')}) t(${COLUMNS.join(', ')})`;
}

describe('metamorphic properties on DuckDB results', () => {
  it('permuted and renamed columns, reordered rows, 1.5 ↔ 1.500 and DATE ↔ TIMESTAMP pass; one changed cell gets the oracle verdict', async () => {
    const samples = fc.sample(fc.tuple(tableArb, fc.nat(5), fc.nat(1000), fc.nat(5)), {
      seed: 20_241_202,
      numRuns: 12,
    });
    let changedFails = 0;
    for (const [rows, order, cellSeed, column] of samples) {
      const source = values(rows);
      const expected = await query(duckdb, `SELECT * FROM ${source}`);
      const perm = [4, 2, 0, 5, 3, 1];
      const select = perm.map((k, i) => `${COLUMNS[k]} AS x${i}`).join(', ');
      const permuted = await query(
        duckdb,
        `SELECT ${select} FROM ${source} ORDER BY ${COLUMNS[order]} DESC, ${COLUMNS[(order + 1) % 6]}`,
      );
      const retyped = await query(
        duckdb,
        `SELECT id, amount::DECIMAL(9,3) AS amount, day::TIMESTAMP AS day, flag, score, name FROM ${source} ORDER BY ${COLUMNS[order]}`,
      );
      expect(retyped.columns.map((c) => c.kind)).toEqual([
        'integer',
        'decimal',
        'timestamp',
        'boolean',
        'float',
        'text',
      ]);
      for (const actual of [permuted, retyped]) {
        const result = compareResults(expected, actual);
        expect(result.reasons, JSON.stringify(result.reasons)).toEqual([]);
        expect(resultVerdict(result)).toBe('pass');
      }
      // One change away: one cell of one row takes another value of its column.
      const r = cellSeed % rows.length;
      const changedRows = rows.map(
        ([id, amount, day, flag, score, name]) => [id, amount, day, flag, score, name] as (typeof rows)[number],
      );
      const [id, amount, day, flag, score, name] = changedRows[r]!;
      const sizes = [4, AMOUNTS.length, DAYS.length, 2, SCORES.length, NAMES.length];
      const step = (v: number) => (v + 1) % sizes[column]!;
      changedRows[r] = [
        column === 0 ? step(id) : id,
        column === 1 ? step(amount) : amount,
        column === 2 ? step(day) : day,
        column === 3 ? !flag : flag,
        column === 4 ? step(score) : score,
        column === 5 ? step(name) : name,
      ];
      const changed = await query(duckdb, `SELECT ${select} FROM ${values(changedRows)}`);
      const want = oracleModePass(expected, changed, DEFAULT_COMPARISON_CONFIG);
      const got = compareResults(expected, changed);
      expect(resultVerdict(got)).toBe(want ? 'pass' : 'fail');
      if (!want) changedFails++;
    }
    expect(changedFails).toBeGreaterThan(0);
  }, 120_000);
});
