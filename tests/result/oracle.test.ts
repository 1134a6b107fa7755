/**
 * The result comparison against a brute-force reference (tests/result/oracle.ts)
 * on generated pairs (tests/result/pair-gen.ts), a fixed-seed slice of the
 * larger run in the bench (bench/result-oracle.ts); metamorphic properties;
 * and the counterexamples found so far as named regression tests.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { compareResults, resultVerdict, type ComparisonConfig } from '../../src/core/result/index.ts';
import { DEFAULT_COMPARISON_CONFIG } from '../../src/core/result/config.ts';
import { SEARCH_LIMITS } from '../../src/core/result/limits.ts';
import type { Cell, Kind, ResultTable } from '../../src/core/value/kind.ts';
import { col, expectPass, table } from './helpers.ts';
import { disagreement, oracleModePass } from './oracle.ts';
import {
  describePair,
  floatChain,
  identicalMultisetTable,
  pairArb,
  permuteColumns,
  recipeArb,
  shuffleRows,
  type Pair,
} from './pair-gen.ts';

/** The seed of the `npm test` slice; the bench runs ≥ 20,000 pairs from other seeds. */
export const ORACLE_SEED = 20_241_201;

describe('the comparison agrees with the brute-force oracle', () => {
  it('on generated pairs (fixed seed): equal by construction, one change away, adversarial shapes, every mode', () => {
    fc.assert(
      fc.property(pairArb(), (p) => {
        const d = disagreement(p, (e, a, c, o) => compareResults(e, a, c, o));
        if (d) throw new Error(`${d}\n${describePair(p)}`);
      }),
      { seed: ORACLE_SEED, numRuns: 1500 },
    );
  });

  it('the generator covers passes and failures in every mode and pattern', () => {
    const seen = new Set<string>();
    for (const p of fc.sample(pairArb(), { seed: ORACLE_SEED, numRuns: 1500 })) {
      const verdict = oracleModePass(p.expected, p.actual, p.config, {
        orderKeys: p.orderKeys,
        ...(p.shape ? { shape: p.shape } : {}),
      });
      seen.add(`${p.config.comparison_mode} ${verdict}`);
      seen.add(`${p.pattern} ${verdict}`);
    }
    for (const mode of ['order-insensitive', 'order-sensitive', 'exact'])
      for (const v of [true, false]) expect(seen).toContain(`${mode} ${v}`);
    for (const pattern of [
      'random',
      'latin',
      'same_column',
      'few_values',
      'same_multiset',
      'float_chain',
      'float_grid',
      'null_columns',
    ])
      expect(seen).toContain(`${pattern} true`);
  });
});

describe('metamorphic properties (the verdict does not move)', () => {
  const runs = { seed: ORACLE_SEED + 1, numRuns: 300 };
  const bagConfig = (p: Pair): ComparisonConfig => ({
    ...p.config,
    comparison_mode: 'order-insensitive',
    require_column_order_match: false,
  });
  const verdictOf = (e: ResultTable, a: ResultTable, c: ComparisonConfig, keys: number[] | null = null) =>
    resultVerdict(compareResults(e, a, c, { orderKeys: keys }));

  it('row shuffles of the candidate, under bag comparison', () => {
    fc.assert(
      fc.property(pairArb(), fc.nat(), (p, seed) => {
        const c = bagConfig(p);
        expect(verdictOf(p.expected, shuffleRows(p.actual, seed), c)).toBe(verdictOf(p.expected, p.actual, c));
      }),
      runs,
    );
  });

  it('candidate column permutation and renaming, under the default policy', () => {
    fc.assert(
      fc.property(pairArb(), fc.nat(), (p, seed) => {
        const c = {
          ...DEFAULT_COMPARISON_CONFIG,
          comparison_mode: p.config.comparison_mode === 'exact' ? 'order-insensitive' : p.config.comparison_mode,
        };
        const m = p.actual.columns.length;
        const perm = shuffleRows({ columns: [], rows: Array.from({ length: m }, (_, k) => [k]) }, seed).rows.map(
          (r) => r[0] as number,
        );
        expect(verdictOf(p.expected, permuteColumns(p.actual, perm), c, p.orderKeys)).toBe(
          verdictOf(p.expected, p.actual, c, p.orderKeys),
        );
      }),
      runs,
    );
  });

  it('decimal rescaling (1.5 ↔ 1.50) and DATE ↔ midnight TIMESTAMP on either side', () => {
    const rescale = (t: ResultTable): ResultTable => ({
      columns: t.columns.map((c) =>
        c.kind === 'date' ? { ...c, kind: 'timestamp' as Kind, engineType: 'TIMESTAMP' } : c,
      ),
      rows: t.rows.map((row) =>
        row.map((v, k): Cell => {
          const kind = t.columns[k]!.kind;
          if (kind === 'decimal' && typeof v === 'string') return v.includes('.') ? `${v}0` : `${v}.0`;
          if (kind === 'date' && typeof v === 'string') return `${v} 00:00:00`;
          return v;
        }),
      ),
    });
    fc.assert(
      fc.property(pairArb(), fc.boolean(), (p, side) => {
        const c =
          p.config.comparison_mode === 'exact'
            ? { ...p.config, comparison_mode: 'order-sensitive' as const }
            : p.config;
        const before = verdictOf(p.expected, p.actual, c, p.orderKeys);
        const after = side
          ? verdictOf(rescale(p.expected), p.actual, c, p.orderKeys)
          : verdictOf(p.expected, rescale(p.actual), c, p.orderKeys);
        expect(after).toBe(before);
      }),
      runs,
    );
  });

  it('recipes shrink (a failing property reports a small pair)', () => {
    const shrunk = fc.check(
      fc.property(recipeArb(), (r) => r.m < 3 || r.n < 4),
      { seed: ORACLE_SEED, numRuns: 200 },
    );
    expect(shrunk.failed).toBe(true);
    expect(shrunk.counterexample?.[0]).toMatchObject({ m: 3, n: 4 });
  });
});

describe('regressions: counterexamples found by the differential fuzz', () => {
  const bool = (name: string) => col(name, 'boolean');

  it('4 BOOLEAN columns × 2 rows, the first column moved to the end and renamed (was: value_mismatch ×2 after 16 mappings)', () => {
    const E = table(
      [bool('c0'), bool('c1'), bool('c2'), bool('c3')],
      [
        [false, true, true, true],
        [true, false, false, false],
      ],
    );
    const A = permuteColumns(E, [1, 2, 3, 0]);
    const result = expectPass(E, A);
    expect(result.column_alignment.method).toBe('content');
    expect(result.column_alignment.search_capped).toBe(false);
    // The order-sensitive variant: a mapping puts every row in place (was: order_violation).
    expectPass(E, A, { comparison_mode: 'order-sensitive' });
  });

  it('5 BOOLEAN columns with identical value multisets, reordered and renamed, order-sensitive with tie keys', () => {
    const rows: Cell[][] = [
      [false, false, false, false, false],
      [false, true, true, true, false],
      [false, false, false, false, false],
      [false, true, true, true, true],
      [false, false, false, false, false],
      [true, false, false, false, true],
      [true, true, true, true, true],
      [true, true, true, false, false],
      [false, false, false, true, true],
      [true, false, false, false, false],
    ];
    const E = table(
      [0, 1, 2, 3, 4].map((k) => bool(`c${k}`)),
      rows,
    );
    const A = permuteColumns(E, [1, 4, 2, 0, 3]);
    expectPass(E, A, { comparison_mode: 'order-sensitive' }, { orderKeys: [0, 2, 3] });
  });

  it('a 7-column Latin square, columns reordered and renamed (was: search_capped, value_mismatch)', () => {
    const E = table(
      Array.from({ length: 7 }, (_, c) => col(`c${c}`, 'integer')),
      Array.from({ length: 7 }, (_, r) => Array.from({ length: 7 }, (_, c) => (r + c) % 7)),
    );
    const A = permuteColumns(E, [6, 4, 2, 0, 5, 3, 1]);
    expect(expectPass(E, A).column_alignment.search_capped).toBe(false);
    // One cell changed: a fail, and a decided one.
    const B = { columns: A.columns, rows: A.rows.map((r) => r.slice()) };
    B.rows[3]![2] = 99;
    const failed = compareResults(E, B);
    expect(resultVerdict(failed)).toBe('fail');
  });

  it('3 floats whose only valid pairing crosses (was: value_mismatch + a false duplicate_rows; visited marked before the equality test)', () => {
    const E = table([col('v', 'float', 'DOUBLE')], [[1.0000021], [1.0000014], [1.0]]);
    const A = table([col('v', 'float', 'DOUBLE')], [[1.00000141], [1.0000028], [1.0000007]]);
    expectPass(E, A);
  });

  it('float grids from the fuzz (shrunk): several valid pairings, greedy choices must be repaired', () => {
    const f = (xs: number[]) =>
      table(
        [col('c0', 'float')],
        xs.map((x) => [x]),
      );
    expectPass(
      f([1.0000014, 1, 1.0000007, 1.0000028, 1.0000007, 1.0000014, 1.0000021]),
      f([
        1.00000135000038, 0.99999995, 1.00000155000046, 1.00000180000056, 1.00000250000084, 1.00000320000112,
        1.00000110000028,
      ]),
      {
        comparison_mode: 'order-sensitive',
        require_column_name_match: true,
      },
      { orderKeys: [] },
    );
    expectPass(
      f([1.0000028, 1.0000014, 1, 1.0000014, 1.0000014]),
      f([1.000002, 1.0000014, 1.0000014, 1.00000095, 0.99999955]),
    );
  });

  it('a 2,000-row one-column float chain within tolerance (was: 470/500 matched at depth 256, no budget flag)', () => {
    const n = 2000;
    // Expected rows from the top of the chain down; each actual value is within tolerance of its own
    // expected value and of the next one up (see floatChain).
    const { expected: E, actual: A } = floatChain(n);
    const result = expectPass(E, A);
    expect(result.row_overlap.matched_rows).toBe(n);
    expect(result.limits.tolerance_budget_exhausted).toBe(false);
    // The same chain behind a constant float column (rows then come in their own order): one
    // augmenting path runs through all 2,000 rows, followed without recursion or a depth limit.
    const chained = floatChain(n, true);
    expect(expectPass(chained.expected, chained.actual).row_overlap.matched_rows).toBe(n);
  });

  it('an all-NULL column typed differently on each side pairs with any kind, in any column order (was: fail, or best_effort)', () => {
    const E = table(
      [col('n', 'integer'), col('a', 'integer'), col('b', 'integer')],
      [
        [null, 1, 2],
        [null, 2, 3],
        [null, 3, 1],
      ],
    );
    const reordered = table(
      [col('x', 'text', 'VARCHAR'), col('y', 'integer'), col('z', 'integer')],
      [
        [null, 2, 1],
        [null, 3, 2],
        [null, 1, 3],
      ],
    );
    expect(expectPass(E, reordered).column_alignment.method).toBe('content');
    const inOrder = permuteColumns(reordered, [0, 2, 1], false);
    expect(expectPass(E, inOrder).column_alignment.method).toBe('positional');
    // Not an escape hatch: a NULL column against a column holding values still fails.
    const filled = {
      columns: reordered.columns,
      rows: reordered.rows.map((r, k) => [k === 0 ? 'x' : null, ...r.slice(1)]),
    };
    expect(resultVerdict(compareResults(E, filled))).toBe('fail');
  });

  it('repeated column names under strict names: another same-name bijection is searched', () => {
    const E = table(
      [col('a', 'integer'), col('a', 'integer'), col('b', 'text')],
      [
        [1, 2, 'x'],
        [3, 4, 'y'],
      ],
    );
    const A = table(
      [col('a', 'integer'), col('a', 'integer'), col('b', 'text')],
      [
        [2, 1, 'x'],
        [4, 3, 'y'],
      ],
    );
    expectPass(E, A, { require_column_name_match: true });
  });

  it('8 columns with identical value multisets × 2,000 rows, renamed and permuted: pass; one swapped pair of cells: fail', () => {
    const E = identicalMultisetTable(8, 2000);
    const A = shuffleRows(permuteColumns(E, [5, 2, 7, 0, 3, 6, 1, 4]), 99);
    expectPass(E, A);
    const B = { columns: A.columns, rows: A.rows.map((r) => r.slice()) };
    const k = B.rows.findIndex((r, i) => i > 0 && r[2] !== B.rows[0]![2]);
    [B.rows[0]![2], B.rows[k]![2]] = [B.rows[k]![2]!, B.rows[0]![2]!];
    expect(resultVerdict(compareResults(E, B))).toBe('fail');
  });
});

describe('a search that runs out of its budget says undecided, never a confident fail', () => {
  const saved = { ...SEARCH_LIMITS };
  afterEach(() => Object.assign(SEARCH_LIMITS, saved));

  it('the tolerance matching', () => {
    SEARCH_LIMITS.toleranceComparisons = 2;
    const E = table([col('v', 'float', 'DOUBLE')], [[1.0000021], [1.0000014], [1.0]]);
    const A = table([col('v', 'float', 'DOUBLE')], [[1.00000141], [1.0000028], [1.0000007]]);
    const result = compareResults(E, A);
    expect(resultVerdict(result)).toBe('undecided');
    expect(result.result_equality_family.mode_pass).toBe(false);
    expect(result.result_equality_family.undecided).toBe(true);
    expect(result.reasons.map((r) => r.code)).toEqual(['matching_incomplete']);
    expect(result.warnings.map((w) => w.code)).toContain('comparison_undecided');
    expect(result.limits.tolerance_budget_exhausted).toBe(true);
    // A certain failure stays a failure: a row count differs.
    expect(resultVerdict(compareResults(E, { columns: A.columns, rows: A.rows.slice(1) }))).toBe('fail');
  });

  it('the column search', () => {
    SEARCH_LIMITS.alignmentCells = 0;
    const E = table(
      Array.from({ length: 5 }, (_, c) => col(`c${c}`, 'integer')),
      Array.from({ length: 5 }, (_, r) => Array.from({ length: 5 }, (_, c) => (r + c) % 5)),
    );
    const result = compareResults(E, permuteColumns(E, [4, 3, 2, 1, 0]));
    expect(resultVerdict(result)).toBe('undecided');
    expect(result.column_alignment.search_capped).toBe(true);
    expect(result.reasons.map((r) => r.code)).toEqual(['matching_incomplete']);
    expect(result.reasons[0]!.message).toMatch(/column-alignment search/);
  });
});
