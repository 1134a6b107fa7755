/**
 * Property tests on seeded random tables (no property-testing library):
 * each property runs on many generated tables, and verdicts are checked
 * against a naive reference (all-pairs maximum matching) where one applies.
 */
import { describe, expect, it } from 'vitest';
import {
  compareResults,
  cellsEqual,
  type CellMismatch,
  type Tolerance,
  type TypeMismatch,
} from '../../src/core/result/index.ts';
import { hashCell } from '../../src/core/result/cell-hash.ts';
import { COMPARISON_MODES, NULL_EQUALITY_MODES } from '../../src/core/result/config.ts';
import { resultsAgree } from '../../src/core/result/compare.ts';
import { identicalResults } from '../../src/core/result/identical.ts';
import { isTolerantKind } from '../../src/core/result/value-policy.ts';
import type { Cell, Column, Kind, ResultTable } from '../../src/core/value/kind.ts';
import { col, expectPlainJson, rng, shuffle } from './helpers.ts';

const TOL: Tolerance = { atol: 1e-6, rtol: 1e-6, nullsEqual: true };

const POOLS: Partial<Record<Kind, Cell[]>> = {
  integer: [0, 1, -1, 10, 42, 9007199254740993n, -9007199254740993n],
  decimal: ['10', '10.00', '10.5', '0.00', '-0.50', '0.1', '12345678901234567890.12'],
  float: [0.1, 0.3, 0.1 + 0.2, NaN, -0, 0, 1e9, 1e9 + 0.5, Infinity, 2.5],
  text: ['a', 'A', 'é', 'e\u0301', '', ' a', '10'],
  boolean: [true, false],
  date: ['2024-01-02', '2024-01-03', '1999-12-31'],
  timestamp: ['2024-01-02 00:00:00', '2024-01-02 00:00:00.000001', '2024-01-02 03:04:05.5', '2024-01-03 00:00:00'],
};
const KINDS = Object.keys(POOLS) as Kind[];

type Random = ReturnType<typeof rng>;

function randomTable(random: Random, rows = 1 + random.int(12), width = 1 + random.int(4)): ResultTable {
  const columns: Column[] = Array.from({ length: width }, (_, c) => col(`c${c}`, random.pick(KINDS)));
  const data = Array.from({ length: rows }, () =>
    columns.map((column) => (random.next() < 0.15 ? null : random.pick(POOLS[column.kind]!))),
  );
  // Duplicates on purpose: repeat a few rows.
  for (let k = random.int(3); k > 0 && data.length > 0; k--) data.push(data[random.int(data.length)]!.slice());
  return { columns, rows: data };
}

function copyTable(t: ResultTable): ResultTable {
  return { columns: t.columns.map((c) => ({ ...c })), rows: t.rows.map((r) => r.slice()) };
}

/** Naive reference: is there a perfect matching of rows under positional columns (Kuhn on all pairs)? */
function naiveBagEqual(E: ResultTable, A: ResultTable, tol = TOL): boolean {
  if (E.rows.length !== A.rows.length || E.columns.length !== A.columns.length) return false;
  const n = E.rows.length;
  const equal = (i: number, j: number) =>
    E.columns.every((c, k) => cellsEqual(c, E.rows[i]![k]!, A.columns[k]!, A.rows[j]![k]!, tol));
  const matchA = new Array<number>(n).fill(-1);
  const tryRow = (i: number, seen: boolean[]): boolean => {
    for (let j = 0; j < n; j++) {
      if (seen[j] || !equal(i, j)) continue;
      seen[j] = true;
      if (matchA[j] === -1 || tryRow(matchA[j]!, seen)) {
        matchA[j] = i;
        return true;
      }
    }
    return false;
  };
  for (let i = 0; i < n; i++) if (!tryRow(i, new Array<boolean>(n).fill(false))) return false;
  return true;
}

function permutations(n: number): number[][] {
  if (n === 0) return [[]];
  return permutations(n - 1).flatMap((p) =>
    Array.from({ length: n }, (_, k) => [...p.slice(0, k), n - 1, ...p.slice(k)]),
  );
}

/** Naive reference with free columns: some one-to-one column mapping makes the bags equal. */
function naiveAnyMapping(E: ResultTable, A: ResultTable): boolean {
  if (E.columns.length !== A.columns.length) return false;
  return permutations(E.columns.length).some((perm) =>
    naiveBagEqual(E, { columns: perm.map((k) => A.columns[k]!), rows: A.rows.map((r) => perm.map((k) => r[k]!)) }),
  );
}

function positionalEqual(E: ResultTable, A: ResultTable): boolean {
  return (
    E.rows.length === A.rows.length &&
    E.rows.every((row, i) => E.columns.every((c, k) => cellsEqual(c, row[k]!, A.columns[k]!, A.rows[i]![k]!, TOL)))
  );
}

/** A value of the column's kind equal (under the policy) to nothing in that column. */
function freshValue(t: ResultTable, c: number, random: Random): Cell {
  const column = t.columns[c]!;
  const candidates: Record<string, Cell[]> = {
    integer: [777777, 9007199254740995n],
    decimal: ['777.77', '-777777777777777777.77'],
    float: [777.25, -7.5e100],
    text: ['fresh', 'FRESH'],
    boolean: [true, false, null],
    date: ['2030-06-30'],
    timestamp: ['2030-06-30 12:00:00.25'],
  };
  const options = (candidates[column.kind] ?? [null]).filter((v) =>
    t.rows.every((r) => !cellsEqual(column, r[c]!, column, v, TOL)),
  );
  return options.length > 0 ? random.pick(options) : null;
}

const TRIALS = 300;

describe('result comparison properties (seeded)', () => {
  it('a shuffled copy passes as a bag, and fails in ordered mode unless the order is unchanged', () => {
    const random = rng(1);
    let orderedFailures = 0;
    for (let t = 0; t < TRIALS; t++) {
      const E = randomTable(random);
      const A = { columns: E.columns, rows: shuffle(E.rows, random) };
      const bag = compareResults(E, A);
      expect(bag.result_equality_family.mode_pass).toBe(true);
      const ordered = compareResults(E, A, { comparison_mode: 'order-sensitive' });
      const unchanged = positionalEqual(E, A);
      expect(ordered.result_equality_family.mode_pass).toBe(unchanged);
      if (!unchanged) {
        orderedFailures++;
        expect(ordered.reasons.map((r) => r.code)).toEqual(['order_violation']);
        expect(ordered.result_equality_family.mode_details['order-insensitive'].pass).toBe(true);
      }
    }
    expect(orderedFailures).toBeGreaterThan(TRIALS / 3);
  });

  it('a single changed cell anywhere fails, and the witness names that column and row', () => {
    const random = rng(2);
    for (let t = 0; t < TRIALS; t++) {
      const E = randomTable(random, 1 + random.int(12), 1 + random.int(4));
      const r = random.int(E.rows.length);
      const c = random.int(E.columns.length);
      const value = freshValue(E, c, random);
      if (cellsEqual(E.columns[c]!, E.rows[r]![c]!, E.columns[c]!, value, TOL)) continue;
      const A = copyTable(E);
      A.rows[r]![c] = value;
      const shuffled = random.next() < 0.5;
      const order = shuffled
        ? shuffle(
            A.rows.map((_, i) => i),
            random,
          )
        : A.rows.map((_, i) => i);
      const actual = { columns: A.columns, rows: order.map((i) => A.rows[i]!) };
      const result = compareResults(E, actual);
      expect(result.result_equality_family.mode_pass).toBe(false);
      const cellReasons = result.reasons.filter(
        (x): x is CellMismatch | TypeMismatch =>
          x.code === 'value_mismatch' || x.code === 'null_mismatch' || x.code === 'type_mismatch',
      );
      expect(cellReasons.length, JSON.stringify(result.reasons)).toBeGreaterThan(0);
      const witness = cellReasons[0]!;
      expect(witness.column.expected_index).toBe(c);
      // The rows named are the changed one (or a copy equal under the policy) and the original it came from.
      const same = (x: readonly Cell[], y: readonly Cell[]) =>
        E.columns.every((column, k) => cellsEqual(column, x[k]!, column, y[k]!, TOL));
      expect(same(actual.rows[witness.actual_row!.position]!, A.rows[r]!)).toBe(true);
      expect(same(E.rows[witness.expected_row!.position]!, E.rows[r]!)).toBe(true);
      expectPlainJson(result);
    }
  });

  it('swapping two columns passes by default and fails with strict column order', () => {
    const random = rng(3);
    let strictFailures = 0;
    for (let t = 0; t < TRIALS; t++) {
      const E = randomTable(random, 1 + random.int(10), 2 + random.int(3));
      const i = random.int(E.columns.length);
      let j = random.int(E.columns.length - 1);
      if (j >= i) j++;
      const perm = E.columns.map((_, k) => (k === i ? j : k === j ? i : k));
      const A = {
        columns: perm.map((k) => E.columns[k]!),
        rows: shuffle(E.rows, random).map((row) => perm.map((k) => row[k]!)),
      };
      const free = compareResults(E, A);
      expect(free.result_equality_family.mode_pass, JSON.stringify(free.reasons)).toBe(true);
      const strict = compareResults(E, A, { require_column_order_match: true });
      const positional = naiveBagEqual(E, A);
      expect(strict.result_equality_family.mode_pass).toBe(positional);
      if (!positional) {
        strictFailures++;
        expect(strict.reasons.map((r) => r.code)).toContain('column_order_mismatch');
      }
    }
    expect(strictFailures).toBeGreaterThan(TRIALS / 2);
  });

  it('scrambling rows across columns fails whenever no column alignment keeps the rows together', () => {
    const random = rng(4);
    let scrambled = 0;
    for (let t = 0; t < TRIALS; t++) {
      const E = randomTable(random, 2 + random.int(10), 2 + random.int(3));
      const c = random.int(E.columns.length);
      const perm = shuffle(
        E.rows.map((_, k) => k),
        random,
      );
      const A = copyTable(E);
      A.rows.forEach((row, k) => (row[c] = E.rows[perm[k]!]![c]!));
      // Every column of A holds the same bag of values as in E: only rows differ.
      const expected = naiveAnyMapping(E, A);
      const result = compareResults(E, A);
      expect(result.result_equality_family.mode_pass, JSON.stringify(result.reasons)).toBe(expected);
      if (!expected) {
        scrambled++;
        expect(result.reasons.length).toBeGreaterThan(0);
      }
    }
    expect(scrambled).toBeGreaterThan(TRIALS / 3);
  });

  it('agrees with the naive reference on random mutations (tolerance, NULLs, duplicates, reordered columns)', () => {
    const random = rng(5);
    for (let t = 0; t < TRIALS * 2; t++) {
      const E = randomTable(random, random.int(9), 1 + random.int(3));
      let A = copyTable(E);
      const mutation = random.int(5);
      if (mutation === 0 && A.rows.length > 0) A.rows.splice(random.int(A.rows.length), 1);
      if (mutation === 1 && A.rows.length > 0) A.rows.push(A.rows[random.int(A.rows.length)]!.slice());
      if (mutation === 2) {
        // Nudge floats within (or just past) the tolerance.
        A.rows.forEach((row) =>
          row.forEach((v, k) => {
            if (typeof v === 'number' && A.columns[k]!.kind === 'float' && Number.isFinite(v))
              row[k] = v + (random.next() < 0.8 ? 5e-7 : 3e-6) * Math.max(1, Math.abs(v));
          }),
        );
      }
      if (mutation === 3 && A.rows.length > 0) {
        const r = random.int(A.rows.length);
        const c = random.int(A.columns.length);
        A.rows[r]![c] = random.next() < 0.5 ? null : random.pick(POOLS[A.columns[c]!.kind]!);
      }
      A = { columns: A.columns, rows: shuffle(A.rows, random) };
      const result = compareResults(E, A);
      expect(
        result.result_equality_family.mode_pass,
        JSON.stringify({ E, A, reasons: result.reasons }, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)),
      ).toBe(naiveAnyMapping(E, A));
      if (!result.result_equality_family.mode_pass) expect(result.reasons.length).toBeGreaterThan(0);
    }
  });

  it("the verdict alone (resultsAgree, the counterfactuals) is the full comparison's mode_pass under every mode and policy", () => {
    const random = rng(11);
    const outcomes = new Set<boolean>();
    for (let t = 0; t < TRIALS * 2; t++) {
      const E = randomTable(random, random.int(7), 1 + random.int(3));
      const A = random.next() < 0.5 ? randomTable(random, random.int(7), 1 + random.int(3)) : copyTable(E);
      if (random.next() < 0.5) A.rows = shuffle(A.rows, random);
      if (random.next() < 0.3 && A.columns.length > 1)
        A.columns = A.columns.map((c, k) => (k === 0 ? { ...c, name: 'renamed' } : c));
      const config = {
        comparison_mode: random.pick([...COMPARISON_MODES]),
        null_equality_mode: random.pick([...NULL_EQUALITY_MODES]),
        set_semantics: random.next() < 0.3,
        require_column_name_match: random.next() < 0.3,
        require_column_order_match: random.next() < 0.3,
      };
      const options = {
        ...(random.next() < 0.3 ? { shape: 'scalar' as const } : {}),
        ...(random.next() < 0.3 ? { orderKeys: [0] } : {}),
      };
      const full = compareResults(E, A, config, options).result_equality_family.mode_pass;
      expect(resultsAgree(E, A, config, options), JSON.stringify(config)).toBe(full);
      outcomes.add(full);
    }
    expect([...outcomes].sort()).toEqual([false, true]);
  });

  it('cells equal under the policy hash alike on columns without floats (the exact fast path never misses a match)', () => {
    const random = rng(6);
    const exactKinds = KINDS.filter((k) => !isTolerantKind(k));
    const variants: Record<string, (v: Cell) => { kind: Kind; cell: Cell }[]> = {
      integer: (v) =>
        typeof v === 'number' || typeof v === 'bigint'
          ? [
              { kind: 'decimal', cell: `${v}.000` },
              { kind: 'integer', cell: BigInt(v) },
            ]
          : [],
      decimal: (v) => (typeof v === 'string' ? [{ kind: 'decimal', cell: v.includes('.') ? `${v}00` : `${v}.0` }] : []),
      date: (v) =>
        typeof v === 'string'
          ? [
              { kind: 'timestamp', cell: `${v} 00:00:00` },
              { kind: 'timestamp', cell: `${v}T00:00:00.000000` },
            ]
          : [],
      timestamp: (v) =>
        typeof v === 'string' ? [{ kind: 'timestamp', cell: v.includes('.') ? `${v}000` : `${v}.000` }] : [],
    };
    for (let t = 0; t < TRIALS; t++) {
      const kind = random.pick(exactKinds);
      const cell = random.pick(POOLS[kind]!);
      for (const other of variants[kind]?.(cell) ?? [{ kind, cell }]) {
        const a = { kind };
        const b = { kind: other.kind };
        if (!cellsEqual(a, cell, b, other.cell, TOL)) continue;
        expect(hashCell(a, cell), `${kind} ${String(cell)} vs ${other.kind} ${String(other.cell)}`).toBe(
          hashCell(b, other.cell),
        );
      }
    }
  });

  it('a table and its copy are identical results, and every mode and policy passes them (the counterfactuals skip the comparison then)', () => {
    const random = rng(7);
    let identical = 0;
    for (let t = 0; t < 4 * TRIALS; t++) {
      const E = randomTable(random);
      const A = { columns: E.columns.map((c) => ({ ...c })), rows: E.rows.map((r) => r.slice()) };
      if (!identicalResults(E, A)) continue;
      identical++;
      for (const comparison_mode of COMPARISON_MODES)
        for (const null_equality_mode of NULL_EQUALITY_MODES)
          for (const set_semantics of [false, true])
            for (const strict of [false, true]) {
              const config = {
                comparison_mode,
                null_equality_mode,
                set_semantics,
                require_column_order_match: strict,
                require_column_name_match: strict,
                numeric_abs_tolerance: 0,
                numeric_rel_tolerance: 0,
              };
              const orderKeys = random.next() < 0.5 ? null : [random.int(E.columns.length)];
              const pass = compareResults(E, A, config, { orderKeys }).result_equality_family.mode_pass;
              expect(
                pass,
                JSON.stringify({ config, orderKeys, E }, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)),
              ).toBe(true);
            }
    }
    // NULLs and NaN are left to the full comparison: about one table in six qualifies.
    expect(identical).toBeGreaterThan(TRIALS / 3);
    // Any changed cell, column name or row order is not identical.
    const E = randomTable(random, 3, 2);
    expect(identicalResults(E, { ...E, rows: E.rows.slice(1) })).toBe(false);
    expect(identicalResults(E, { ...E, columns: E.columns.map((c, i) => (i ? c : { ...c, name: 'renamed' })) })).toBe(
      false,
    );
  });

  it('under set semantics an empty result against rows fails without searching column permutations', () => {
    // SQLite types the columns of an empty result as NULL: every column pairs with every other, and
    // with no rows to prune by, 8 columns meant 8! = 40,320 alignments tried (14 columns: hours).
    for (const width of [8, 14]) {
      const empty: ResultTable = {
        columns: Array.from({ length: width }, (_, i) => ({
          name: `c${i}`,
          engineType: 'NULL',
          kind: 'null' as const,
        })),
        rows: [],
      };
      const rows: ResultTable = {
        columns: Array.from({ length: width }, (_, i) => col(`c${i}`, i % 2 ? 'text' : 'integer')),
        rows: Array.from({ length: 10 }, (_, r) => Array.from({ length: width }, (_, i) => (i % 2 ? `v${r}` : r))),
      };
      for (const [E, A] of [
        [empty, rows],
        [rows, empty],
      ] as const) {
        const r = compareResults(E, A, { set_semantics: true });
        expect(r.result_equality_family.mode_pass).toBe(false);
        expect(r.column_alignment.alignments_checked).toBe(0);
        expect(r.reasons.map((x) => x.code)).toContain('row_count_mismatch');
      }
    }
  });
});
