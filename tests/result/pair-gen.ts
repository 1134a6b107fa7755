/**
 * fast-check generators of result pairs for the oracle suite
 * (tests/result/oracle.test.ts) and the bench (bench/result-oracle.ts).
 *
 * A pair is built from a small *recipe* (sizes, kinds, pool indices, a list
 * of operations), so fast-check shrinks recipes — fewer columns, rows and
 * operations — and a counterexample comes out small. The expected table
 * takes one of several shapes (random cells, Latin squares whose columns
 * hold identical multisets, copies of one column, float chains one step
 * below the tolerance apart, all-NULL columns); the actual table is a copy,
 * then transformed by operations that keep it equal (row shuffles, column
 * permutations and renaming, 1.5 → 1.50, DATE → midnight TIMESTAMP, float
 * nudges within tolerance, an all-NULL column retyped) or take it one change
 * away (a cell changed, two cells of a column swapped, a row dropped or
 * duplicated, a cell set to NULL).
 */
import fc from 'fast-check';
import type { ComparisonConfig } from '../../src/core/result/index.ts';
import { DEFAULT_COMPARISON_CONFIG } from '../../src/core/result/config.ts';
import type { Cell, Column, Kind, ResultTable } from '../../src/core/value/kind.ts';

const POOLS: Partial<Record<Kind, Cell[]>> = {
  integer: [0, 1, 2, -1, 42, 9007199254740993n],
  decimal: ['1.5', '1.50', '2', '2.00', '-0.5', '0.00', '10'],
  float: [0.1, 0.3, 0.1 + 0.2, 1, 1 + 5e-7, 1 + 2e-6, NaN, -0, 0, Infinity, 2.5, 1e9],
  text: ['a', 'b', 'A', '', '1'],
  boolean: [true, false],
  date: ['2024-01-02', '2024-01-03', '1999-12-31'],
  timestamp: ['2024-01-02 00:00:00', '2024-01-02 00:00:00.000001', '2024-01-03 00:00:00'],
  other: [1, 1.5, 'a', 2n, true],
  null: [null],
};
export const GEN_KINDS = Object.keys(POOLS) as Kind[];

export type Pattern =
  'random' | 'latin' | 'same_column' | 'few_values' | 'same_multiset' | 'float_chain' | 'float_grid' | 'null_columns';
const PATTERNS: Pattern[] = [
  'random',
  'latin',
  'same_column',
  'few_values',
  'same_multiset',
  'float_chain',
  'float_grid',
  'null_columns',
];

/** Operations on the actual table: 0–5 keep it equal, 6–11 move it one change away. */
const OPS = [
  'shuffle_rows',
  'permute_columns',
  'rename_column',
  'rescale_decimal',
  'date_to_timestamp',
  'nudge_floats',
  'retype_null_column',
  'change_cell',
  'swap_cells',
  'drop_row',
  'duplicate_row',
  'null_cell',
] as const;

export interface Recipe {
  m: number;
  n: number;
  kinds: number[];
  cells: number[];
  nulls: number;
  pattern: number;
  ops: { op: number; a: number; b: number; c: number }[];
  config: { mode: number; set: boolean; sqlNulls: boolean; names: boolean; order: boolean };
  keys: number;
  keyMask: number;
  scalar: boolean;
}

export interface Pair {
  expected: ResultTable;
  actual: ResultTable;
  config: ComparisonConfig;
  orderKeys: number[] | null;
  shape?: 'scalar';
  pattern: Pattern;
}

const nat = (max: number) => fc.integer({ min: 0, max });

export function recipeArb(maxColumns = 6, maxRows = 10): fc.Arbitrary<Recipe> {
  return fc.record({
    m: fc.integer({ min: 1, max: maxColumns }),
    n: fc.integer({ min: 0, max: maxRows }),
    kinds: fc.array(nat(GEN_KINDS.length - 1), { minLength: maxColumns, maxLength: maxColumns }),
    cells: fc.array(nat(1000), { minLength: maxColumns * maxRows, maxLength: maxColumns * maxRows }),
    nulls: nat(9),
    pattern: nat(PATTERNS.length * 2 - 1),
    ops: fc.array(fc.record({ op: nat(OPS.length - 1), a: nat(1000), b: nat(1000), c: nat(1000) }), { maxLength: 4 }),
    config: fc.record({
      mode: nat(5),
      set: fc.boolean(),
      sqlNulls: fc.boolean(),
      names: fc.boolean(),
      order: fc.boolean(),
    }),
    keys: nat(3),
    keyMask: nat(63),
    scalar: fc.boolean(),
  });
}

/** A deterministic shuffle from a seed (0 keeps the order), so a recipe stays a value. */
function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const out = xs.slice();
  let s = seed >>> 0;
  if (s === 0) return out;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const TOL = 1e-6;

function buildExpected(r: Recipe, pattern: Pattern): ResultTable {
  const { n } = r;
  // Identical-multiset shapes need width to be hard: at least 4 columns.
  const m = pattern === 'same_multiset' || pattern === 'few_values' ? Math.min(r.kinds.length, 4 + (r.m % 3)) : r.m;
  let kinds = r.kinds.slice(0, m).map((k) => GEN_KINDS[k]!);
  if (pattern === 'latin' || pattern === 'same_column' || pattern === 'few_values' || pattern === 'same_multiset')
    kinds = kinds.map(() => (kinds[0] === 'null' ? 'integer' : kinds[0]!));
  if (pattern === 'float_grid') kinds = kinds.map((k, c) => (c % 2 === 0 || k === 'null' ? 'float' : k));
  if (pattern === 'float_chain') kinds = kinds.map((k, c) => (c === 0 || k === 'null' ? 'float' : k));
  if (pattern === 'null_columns') kinds = kinds.map((k, c) => (c % 2 === 0 ? (k === 'null' ? 'integer' : k) : k));
  const columns: Column[] = kinds.map((kind, c) => ({ name: `c${c}`, kind, engineType: kind.toUpperCase() }));
  const perms = kinds.map((_, c) =>
    shuffled(
      Array.from({ length: n }, (_, k) => k),
      c === 0 ? 0 : r.cells[c]! + c,
    ),
  );
  const cell = (row: number, c: number): Cell => {
    const kind = kinds[c]!;
    const pool = POOLS[kind]!;
    const raw = r.cells[row * r.kinds.length + c]!;
    if (pattern === 'null_columns' && c % 2 === 1) return null;
    if (pattern === 'float_chain' && kind === 'float') {
      // A chain: consecutive values 0.7 tolerance apart, so each is equal to its neighbours only.
      return 1 + (row + c) * 0.7 * TOL;
    }
    if (pattern === 'float_grid' && kind === 'float') return 1 + (raw % 5) * 0.7 * TOL;
    // Every column a reshuffle of the first column's values: identical multisets, different rows.
    if (pattern === 'same_multiset') return pool[r.cells[perms[c]![row]! * r.kinds.length]! % pool.length]!;
    if (pattern === 'few_values') return pool[raw % Math.min(2, pool.length)]!;
    if (pattern === 'latin') return pool[(row + c * (1 + (r.cells[0]! % 3))) % pool.length]!;
    if (pattern === 'same_column') return pool[r.cells[row * r.kinds.length]! % pool.length]!;
    if (r.nulls > 0 && raw % (12 - r.nulls) === 0) return null;
    return pool[raw % pool.length]!;
  };
  const rows = Array.from({ length: n }, (_, row) => columns.map((_, c) => cell(row, c)));
  return { columns, rows };
}

function copy(t: ResultTable): { columns: Column[]; rows: Cell[][] } {
  return { columns: t.columns.map((c) => ({ ...c })), rows: t.rows.map((row) => row.slice()) };
}

function applyOp(t: { columns: Column[]; rows: Cell[][] }, op: Recipe['ops'][number], pattern: Pattern): void {
  const m = t.columns.length;
  const n = t.rows.length;
  const c = op.b % m;
  const row = n > 0 ? op.c % n : -1;
  switch (OPS[op.op]!) {
    case 'shuffle_rows':
      t.rows = shuffled(t.rows, op.a + 1);
      break;
    case 'permute_columns': {
      const perm = shuffled(
        t.columns.map((_, k) => k),
        op.a + 1,
      );
      t.columns = perm.map((k) => t.columns[k]!);
      t.rows = t.rows.map((cells) => perm.map((k) => cells[k]!));
      break;
    }
    case 'rename_column':
      t.columns[c] = { ...t.columns[c]!, name: `r${op.a % 7}` };
      break;
    case 'rescale_decimal':
      for (let k = 0; k < m; k++) {
        if (t.columns[k]!.kind !== 'decimal') continue;
        for (const cells of t.rows) {
          const v = cells[k];
          if (typeof v === 'string') cells[k] = v.includes('.') ? `${v}0` : `${v}.00`;
        }
      }
      break;
    case 'date_to_timestamp':
      for (let k = 0; k < m; k++) {
        if (t.columns[k]!.kind !== 'date') continue;
        t.columns[k] = { ...t.columns[k]!, kind: 'timestamp', engineType: 'TIMESTAMP' };
        for (const cells of t.rows) if (typeof cells[k] === 'string') cells[k] = `${cells[k] as string} 00:00:00`;
      }
      break;
    case 'nudge_floats': {
      // Within tolerance (0.4 of it), or, one time in four, just past it (one change away).
      const step = op.a % 4 === 0 ? 1.6 : 0.4;
      for (let k = 0; k < m; k++) {
        if (t.columns[k]!.kind !== 'float') continue;
        for (const cells of t.rows) {
          const v = cells[k];
          if (typeof v === 'number' && Number.isFinite(v))
            cells[k] = v + step * TOL * Math.max(1, Math.abs(v)) * (op.c % 2 === 0 ? 1 : -1);
        }
        if (op.b % 2 === 0) break;
      }
      break;
    }
    case 'retype_null_column': {
      for (let k = 0; k < m; k++) {
        const kk = (c + k) % m;
        if (!t.rows.every((cells) => cells[kk] === null)) continue;
        const kinds: Kind[] = ['text', 'integer', 'boolean', 'date', 'null'];
        const kind = kinds[op.a % kinds.length]!;
        t.columns[kk] = { ...t.columns[kk]!, kind, engineType: kind.toUpperCase() };
        break;
      }
      break;
    }
    case 'change_cell': {
      if (row < 0) break;
      const pool = POOLS[t.columns[c]!.kind] ?? [null];
      t.rows[row]![c] =
        pattern === 'float_chain' && t.columns[c]!.kind === 'float'
          ? 1 + (op.a % 20) * 0.7 * TOL
          : pool[op.a % pool.length]!;
      break;
    }
    case 'swap_cells': {
      if (n < 2) break;
      const other = (row + 1 + (op.a % (n - 1))) % n;
      const v = t.rows[row]![c]!;
      t.rows[row]![c] = t.rows[other]![c]!;
      t.rows[other]![c] = v;
      break;
    }
    case 'drop_row':
      if (row >= 0) t.rows.splice(row, 1);
      break;
    case 'duplicate_row':
      if (row >= 0) t.rows.splice(op.a % (n + 1), 0, t.rows[row]!.slice());
      break;
    case 'null_cell':
      if (row >= 0) t.rows[row]![c] = null;
      break;
  }
}

export function buildPair(r: Recipe): Pair {
  const pattern = PATTERNS[r.pattern % PATTERNS.length]!;
  const expected = buildExpected(r, pattern);
  const actual = copy(expected);
  if (pattern === 'float_chain') {
    // The actual chain sits half a step up: each actual value is within tolerance of two expected ones.
    for (const cells of actual.rows)
      cells.forEach((v, k) =>
        actual.columns[k]!.kind === 'float' && typeof v === 'number' ? (cells[k] = v + 0.35 * TOL) : 0,
      );
    actual.rows = shuffled(actual.rows, r.cells[1]! + 1);
  }
  if (pattern === 'float_grid') {
    // Every actual float moves by less than half the tolerance: equal to its source, ambiguous with its neighbours.
    actual.rows.forEach((cells, row) =>
      cells.forEach((v, k) => {
        if (actual.columns[k]!.kind === 'float' && typeof v === 'number')
          cells[k] = v + ((r.cells[(row * 7 + k * 3) % r.cells.length]! % 3) - 1) * 0.45 * TOL;
      }),
    );
    actual.rows = shuffled(actual.rows, r.cells[1]! + 1);
  }
  // Changes that break equality (ops from change_cell on) apply one time in three: a third of the pairs stay equal.
  for (const op of r.ops) if (op.op < 7 || op.c % 3 === 0) applyOp(actual, op, pattern);
  // Patterns with identical columns are only interesting with the columns permuted (mostly: one time in four, not).
  if (
    (pattern === 'latin' || pattern === 'same_column' || pattern === 'few_values' || pattern === 'same_multiset') &&
    r.cells[3]! % 4 !== 0
  )
    applyOp(actual, { op: 1, a: r.cells[2]!, b: 0, c: 0 }, pattern);
  const modes = [
    'order-insensitive',
    'order-insensitive',
    'order-insensitive',
    'order-sensitive',
    'order-sensitive',
    'exact',
  ] as const;
  const mode = modes[r.config.mode]!;
  const config: ComparisonConfig = {
    ...DEFAULT_COMPARISON_CONFIG,
    comparison_mode: mode,
    set_semantics: mode === 'order-insensitive' && r.config.set,
    null_equality_mode: r.config.sqlNulls && r.keyMask % 4 === 0 ? 'sql_semantic' : 'strict',
    require_column_name_match: r.config.names && r.keyMask % 3 === 0,
    require_column_order_match: r.config.order && r.keyMask % 5 === 0,
  };
  const m = expected.columns.length;
  const orderKeys =
    r.keys === 0
      ? null
      : r.keys === 1
        ? []
        : Array.from({ length: m }, (_, k) => k).filter((k) => (r.keyMask >> k) & 1);
  return {
    expected,
    actual,
    config,
    orderKeys,
    ...(r.scalar && r.keyMask % 7 === 0 ? { shape: 'scalar' as const } : {}),
    pattern,
  };
}

export const pairArb = (maxColumns = 6, maxRows = 10): fc.Arbitrary<Pair> =>
  recipeArb(maxColumns, maxRows).map(buildPair);

/** JSON for a counterexample (bigint and non-finite numbers spelled out). */
export function describePair(p: Pair): string {
  return JSON.stringify(p, (_, v) =>
    typeof v === 'bigint'
      ? `${v}n`
      : typeof v === 'number' && !Number.isFinite(v)
        ? String(v)
        : Object.is(v, -0)
          ? '-0'
          : v,
  );
}

// ---------------------------------------------------------------------------
// Large adversarial shapes (the named regressions and the bench share them).

export function permuteColumns(t: ResultTable, perm: number[], rename = true): ResultTable {
  return {
    columns: perm.map((k, i) => ({ ...t.columns[k]!, name: rename ? `x${i}` : t.columns[k]!.name })),
    rows: t.rows.map((row) => perm.map((k) => row[k]!)),
  };
}

export function shuffleRows(t: ResultTable, seed: number): ResultTable {
  return { columns: t.columns, rows: shuffled(t.rows, seed || 1) };
}

/** `width` columns of one kind, each a reshuffle of the same `n` values (`distinct` of them): identical multisets. */
export function identicalMultisetTable(
  width: number,
  n: number,
  kind: 'integer' | 'float' = 'integer',
  distinct = 50,
): ResultTable {
  const base = Array.from({ length: n }, (_, r) => (r * 7919) % distinct);
  const perms = Array.from({ length: width }, (_, c) => shuffled(base, c + 1));
  const columns: Column[] = Array.from({ length: width }, (_, c) => ({
    name: `c${c}`,
    kind,
    engineType: kind === 'float' ? 'DOUBLE' : 'INTEGER',
  }));
  return {
    columns,
    rows: Array.from({ length: n }, (_, r) => perms.map((p) => (kind === 'float' ? p[r]! + 0.25 : p[r]!))),
  };
}

/**
 * A float chain: expected values 0.7 tolerance apart from the top down, actual values 0.35
 * tolerance above each: every actual value is equal to two expected ones, and pairing every
 * expected row with its lower partner strands the lowest one (an augmenting path through the chain).
 */
export function floatChain(n: number, constantColumn = false): { expected: ResultTable; actual: ResultTable } {
  const columns: Column[] = constantColumn
    ? [
        { name: 'k', kind: 'float', engineType: 'DOUBLE' },
        { name: 'v', kind: 'float', engineType: 'DOUBLE' },
      ]
    : [{ name: 'v', kind: 'float', engineType: 'DOUBLE' }];
  const row = (v: number): Cell[] => (constantColumn ? [5, v] : [v]);
  return {
    expected: { columns, rows: Array.from({ length: n }, (_, k) => row(1 + (n - 1 - k) * 0.7 * TOL)) },
    actual: { columns, rows: Array.from({ length: n }, (_, k) => row(1 + k * 0.7 * TOL + 0.35 * TOL)) },
  };
}
