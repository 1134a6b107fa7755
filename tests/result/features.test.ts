/**
 * The comparison's features one by one: tie-aware order, unstable goldens,
 * maximum tolerance matching, modes, alignment witnesses, metrics, limits
 * and configuration.
 */
import { describe, expect, it } from 'vitest';
import {
  cellsEqual,
  compareResults,
  findLimitTieCut,
  floatsClose,
  resolveComparisonConfig,
  type CellMismatch,
  type OrderViolation,
} from '../../src/core/result/index.ts';
import { hashCell } from '../../src/core/result/cell-hash.ts';
import type { Cell, Kind } from '../../src/core/value/kind.ts';
import { col, expectFail, expectPass, expectPlainJson, table } from './helpers.ts';

const region = col('region', 'text', 'VARCHAR');
const sales = col('sales', 'integer', 'BIGINT');
const ratio = col('ratio', 'float', 'DOUBLE');
const amount = col('amount', 'decimal', 'DECIMAL(10,2)');

describe('the float rule', () => {
  it('is |a − b| ≤ max(atol, rtol · max(|a|, |b|)), symmetric', () => {
    expect(floatsClose(1, 1 + 1e-6, 1e-6, 1e-6)).toBe(true);
    expect(floatsClose(1, 1 + 2.1e-6, 1e-6, 1e-6)).toBe(false);
    expect(floatsClose(1e12, 1e12 + 1e6, 1e-6, 1e-6)).toBe(true);
    expect(floatsClose(1e12, 1e12 + 1.1e6, 1e-6, 1e-6)).toBe(false);
    expect(floatsClose(0, 9e-7, 1e-6, 0)).toBe(true);
    expect(floatsClose(NaN, NaN, 0, 0)).toBe(true);
    expect(floatsClose(-0, 0, 0, 0)).toBe(true);
    expect(floatsClose(Infinity, -Infinity, 1, 1)).toBe(false);
    for (const [a, b] of [
      [1, 1.0000015],
      [3e-7, -6e-7],
      [1e300, 1.000001e300],
    ])
      expect(floatsClose(a!, b!, 1e-6, 1e-6)).toBe(floatsClose(b!, a!, 1e-6, 1e-6));
  });
});

describe('equal cells hash alike (the exact fast path never misses a match)', () => {
  it.each([
    ['time', '12:00:00.500000', 'time', '12:00:00.5'],
    ['time', '12:00:00.000', 'time', '12:00:00'],
    ['timestamptz', '2024-01-02 00:00:00+00', 'timestamptz', '2024-01-02 00:00:00.000+00'],
    ['timestamptz', '2024-01-02 10:00:00.120+00', 'timestamptz', '2024-01-02T10:00:00.12+00'],
    ['timestamp', '+012024-01-02 00:00:00', 'date', '+012024-01-02'],
    ['date', 'infinity', 'timestamp', 'infinity'],
    ['decimal', '-0.000', 'integer', 0],
    ['decimal', '123456789012345678901234567890', 'integer', 123456789012345678901234567890n],
    ['decimal', '9007199254740992.0', 'integer', 9007199254740992n],
    ['decimal', '3000000000.00', 'integer', 3000000000],
    ['struct', { a: 1, b: 'x' }, 'struct', { b: 'x', a: 1 }],
  ] as [Kind, Cell, Kind, Cell][])('%s %s = %s %s', (k1, v1, k2, v2) => {
    const tol = { atol: 1e-6, rtol: 1e-6, nullsEqual: true };
    expect(cellsEqual({ kind: k1 }, v1, { kind: k2 }, v2, tol)).toBe(true);
    expect(hashCell({ kind: k1 }, v1)).toBe(hashCell({ kind: k2 }, v2));
  });
});

describe('tie-aware order', () => {
  const E = table(
    [region, sales],
    [
      ['a', 30],
      ['b', 20],
      ['c', 20],
      ['d', 20],
      ['e', 10],
    ],
  );
  const tiesSwapped = table(
    [region, sales],
    [
      ['a', 30],
      ['d', 20],
      ['b', 20],
      ['c', 20],
      ['e', 10],
    ],
  );
  const acrossKeys = table(
    [region, sales],
    [
      ['a', 30],
      ['b', 20],
      ['e', 10],
      ['c', 20],
      ['d', 20],
    ],
  );
  const ordered = { comparison_mode: 'order-sensitive' } as const;

  it('lets rows that tie on the ORDER BY keys come in any order', () => {
    const result = expectPass(E, tiesSwapped, ordered, { orderKeys: [1] });
    expect(result.order_check).toMatchObject({
      applied: true,
      pass: true,
      tie_aware: true,
      order_keys: [1],
      tie_groups: 3,
    });
  });

  it('fails order between distinct keys, at the first position that breaks it', () => {
    const result = expectFail(E, acrossKeys, 'order_violation', ordered, { orderKeys: [1] });
    const violation = result.reasons[0] as OrderViolation;
    expect(violation).toMatchObject({
      position: 2,
      tie_group: { start: 1, end: 4 },
      tie_aware: true,
      actual_row: { position: 2, values: ['e', 10] },
    });
    expect(result.result_equality_family.mode_details['order-insensitive'].pass).toBe(true);
  });

  it('falls back to strict order when the keys are unknown, and says so', () => {
    const result = expectFail(E, tiesSwapped, 'order_violation', ordered);
    expect(result.order_check.tie_aware).toBe(false);
    expect(result.order_check.note).toMatch(/unknown/);
    expect(result.result_equality_family.mode_details['order-sensitive'].note).toMatch(/unknown/);
  });

  it('treats no ORDER BY (keys = []) as one tie group, and rejects invalid keys with a warning', () => {
    expectPass(E, acrossKeys, ordered, { orderKeys: [] });
    const result = expectFail(E, tiesSwapped, 'order_violation', ordered, { orderKeys: [7] });
    expect(result.warnings.map((w) => w.code)).toContain('order_keys_invalid');
  });

  it('uses the keys of a large tie group too (matching inside the group)', () => {
    const rows = Array.from({ length: 200 }, (_, i) => [`r${i}`, i < 100 ? 2 : 1]);
    const reversedTies = [...rows.slice(0, 100).reverse(), ...rows.slice(100).reverse()];
    expectPass(table([region, sales], rows), table([region, sales], reversedTies), ordered, { orderKeys: [1] });
    expectFail(
      table([region, sales], rows),
      table([region, sales], [...rows.slice(100), ...rows.slice(0, 100)]),
      'order_violation',
      ordered,
      {
        orderKeys: [1],
      },
    );
  });
});

describe('unstable goldens: a LIMIT that cuts through a tie', () => {
  const withoutLimit = table(
    [region, sales],
    [
      ['a', 30],
      ['b', 20],
      ['c', 20],
      ['d', 10],
    ],
  );

  it('flags a LIMIT that keeps some tied rows and drops others', () => {
    const check = findLimitTieCut(withoutLimit, 2, [1]);
    expect(check.unstable).toBe(true);
    expect(check.cuts[0]).toMatchObject({
      boundary: 'limit',
      position: 2,
      tie_group: { start: 1, end: 3 },
      rows_inside: 1,
      rows_outside: 1,
      key: [20],
    });
    expectPlainJson(check);
  });

  it('does not flag a LIMIT at a key boundary, or a tie of identical rows', () => {
    expect(findLimitTieCut(withoutLimit, 3, [1]).unstable).toBe(false);
    expect(findLimitTieCut(withoutLimit, 1, [1]).unstable).toBe(false);
    const identical = table([sales], [[30], [20], [20], [10]]);
    expect(findLimitTieCut(identical, 2, [0]).unstable).toBe(false);
  });

  it('checks the OFFSET boundary, treats no ORDER BY as one tie, and cannot tell without keys', () => {
    expect(findLimitTieCut(withoutLimit, 1, [1], { offset: 2 }).cuts[0]).toMatchObject({ boundary: 'offset' });
    expect(findLimitTieCut(withoutLimit, 2, []).unstable).toBe(true);
    expect(findLimitTieCut(withoutLimit, 2, null).unstable).toBeNull();
    expect(findLimitTieCut(withoutLimit, 10, [1]).unstable).toBe(false);
  });
});

describe('tolerance matching is a maximum matching', () => {
  it('pairs near floats correctly even when the exact phase chose an unlucky partner', () => {
    // 1.0 matches 1.0 exactly, but then 1.0000009 (only close to 1.0) is left with 0.9999991.
    const E = table([ratio], [[1.0], [1.0000009]]);
    const A = table([ratio], [[0.9999991], [1.0]]);
    const result = expectPass(E, A);
    expect(result.numeric_tolerance_match).toMatchObject({
      pass: true,
      within_tolerance_not_identical: 2,
      outside_tolerance: 0,
    });
  });

  it('matches a float column against a decimal column as floats, in any row order', () => {
    const E = table(
      [amount, ratio],
      [
        ['0.10', 0.1 + 0.2],
        ['0.20', 2 / 3],
        ['0.30', 1e9],
      ],
    );
    const A = table(
      [ratio, amount],
      [
        [1e9 + 0.5, '0.3'],
        [0.3, '0.1'],
        [0.6666666666, '0.2'],
      ],
    );
    expectPass(E, A);
  });

  it('reports the largest deltas seen and the tolerance applied', () => {
    const result = expectFail(table([ratio], [[1], [2]]), table([ratio], [[1.0000005], [2.1]]), 'value_mismatch');
    const witness = result.reasons[0] as CellMismatch;
    expect(witness).toMatchObject({ expected: 2, actual: 2.1, rule: 'float' });
    expect(witness.delta).toBeCloseTo(0.1, 12);
    expect(witness.tolerance).toBeCloseTo(2.1e-6, 15);
    expect(result.numeric_tolerance_match.outside_tolerance).toBe(1);
    expect(result.numeric_tolerance_match.max_abs_delta).toBeCloseTo(0.1, 12);
  });
});

describe('matching at scale', () => {
  it('pairs rows that differ only in the last bits of their floats, when few exact values tell rows apart', () => {
    const category = col('category', 'text', 'VARCHAR');
    const rows: Cell[][] = Array.from({ length: 6000 }, (_, i) => [['a', 'b', 'c'][i % 3]!, i / 7]);
    const noisy: Cell[][] = rows.map(([c, v]) => [c!, (v as number) * (1 + 1e-12)]).reverse();
    const started = performance.now();
    expectPass(table([category, ratio], rows), table([category, ratio], noisy));
    expect(performance.now() - started).toBeLessThan(20_000);
    const off = noisy.map((row) => row.slice());
    off[100]![1] = (off[100]![1] as number) + 1;
    expectFail(table([category, ratio], rows), table([category, ratio], off), 'value_mismatch');
  });

  it('keeps duplicates apart in long chains of equal keys', () => {
    const rows: Cell[][] = Array.from({ length: 3000 }, (_, i) => ['same', i % 2]);
    expectPass(table([region, sales], rows), table([region, sales], rows.slice().reverse()));
    expectFail(
      table([region, sales], rows),
      table(
        [region, sales],
        rows.map(([r], i) => [r!, i < 1501 ? 0 : 1]),
      ),
      'duplicate_rows',
    );
  });
});

describe('modes and semantics', () => {
  const E = table(
    [region, sales],
    [
      ['a', 1],
      ['b', 2],
      ['b', 2],
    ],
  );

  it('reports the outcome under every mode for diagnosis', () => {
    const reversed = table(
      [region, sales],
      [
        ['b', 2],
        ['b', 2],
        ['a', 1],
      ],
    );
    const result = compareResults(E, reversed);
    expect(result.result_equality_family.mode_details).toMatchObject({
      exact: { pass: false, reasons: ['order_violation'] },
      'order-insensitive': { pass: true },
      'order-sensitive': { pass: false, reasons: ['order_violation'] },
      set: { pass: true },
    });
  });

  it('exact mode requires equal names, kinds and row order', () => {
    expectPass(
      E,
      table(
        [region, sales],
        [
          ['a', 1],
          ['b', 2],
          ['b', 2],
        ],
      ),
      { comparison_mode: 'exact' },
    );
    expectFail(
      E,
      table(
        [region, col('n', 'integer')],
        [
          ['a', 1],
          ['b', 2],
          ['b', 2],
        ],
      ),
      'column_name_mismatch',
      { comparison_mode: 'exact' },
    );
    const kinds = expectFail(
      E,
      table(
        [region, col('sales', 'decimal')],
        [
          ['a', '1'],
          ['b', '2.00'],
          ['b', '2'],
        ],
      ),
      'type_mismatch',
      { comparison_mode: 'exact' },
    );
    expect(kinds.result_equality_family.mode_details['order-insensitive'].pass).toBe(true);
  });

  it('set semantics ignores duplicates; the bag says duplicate_rows', () => {
    const once = table(
      [region, sales],
      [
        ['b', 2],
        ['a', 1],
      ],
    );
    expectPass(E, once, { set_semantics: true });
    const bag = expectFail(E, once, 'duplicate_rows');
    expect(bag.reasons.find((r) => r.code === 'duplicate_rows')).toMatchObject({
      expected_count: 2,
      actual_count: 1,
      side: 'expected',
    });
    const result = compareResults(E, once, { set_semantics: true, comparison_mode: 'order-sensitive' });
    expect(result.warnings.map((w) => w.code)).toContain('set_semantics_ignored');
  });

  it('sql_semantic NULLs never match, strict NULLs match only NULL', () => {
    const withNull = table([region, sales], [['a', null]]);
    expectPass(withNull, table([region, sales], [['a', null]]));
    expectFail(withNull, table([region, sales], [['a', null]]), 'null_mismatch', {
      null_equality_mode: 'sql_semantic',
    });
  });
});

describe('alignment and witnesses', () => {
  it('finds swapped columns even when a value also differs, and points at that value', () => {
    const E = table(
      [region, sales, amount],
      [
        ['a', 1, '1.50'],
        ['b', 2, '2.50'],
        ['c', 3, '3.50'],
      ],
    );
    const A = table(
      [amount, region, sales],
      [
        ['3.50', 'c', 3],
        ['1.50', 'a', 1],
        ['2.51', 'b', 2],
      ],
    );
    const result = expectFail(E, A, 'value_mismatch');
    expect(result.column_alignment.method).toBe('best_effort');
    expect(result.column_alignment.mapping.map((m) => m.actual_index)).toEqual([1, 2, 0]);
    expect(result.reasons[0]).toMatchObject({
      column: { expected_index: 2, actual_index: 0 },
      expected: '2.50',
      actual: '2.51',
      delta: '0.01',
      expected_row: { position: 1 },
      actual_row: { position: 2 },
      pairing: 'best_partial',
    });
    expect(result.row_overlap).toMatchObject({ matched_rows: 2, jaccard: 0.5, f1: 2 / 3 });
    expect(result.cell_overlap).toMatchObject({ matching_cells: 8, expected_cells: 9 });
    expect(result.per_column.find((c) => c.expected_index === 2)).toMatchObject({
      mismatched: 1,
      compared: 3,
      mismatch_rate: 1 / 3,
    });
  });

  it('reports row count mismatches with the first unmatched row of each side', () => {
    const result = expectFail(table([sales], [[1], [2], [3]]), table([sales], [[3], [1]]), 'row_count_mismatch');
    expect(result.reasons[0]).toMatchObject({
      expected_rows: 3,
      actual_rows: 2,
      first_unmatched_expected: { position: 1, values: [2] },
      first_unmatched_actual: null,
    });
    expect(result.cardinality_match).toMatchObject({ pass: false, delta: -1, ratio: 2 / 3 });
  });

  it('encodes witnesses exactly (big integers and decimals as strings) and stays plain JSON', () => {
    const big = col('n', 'integer');
    const result = expectFail(
      table([big], [[9007199254740993n]]),
      table([big], [[9007199254740995n]]),
      'value_mismatch',
    );
    expect(result.reasons[0]).toMatchObject({ expected: '9007199254740993', actual: '9007199254740995', delta: '2' });
  });
});

describe('limits', () => {
  it('caps the cell alignment at max_rows_for_cell_alignment and says so', () => {
    const E = table(
      [sales, region],
      Array.from({ length: 50 }, (_, i) => [i, `r${i}`]),
    );
    const A = table(
      [sales, region],
      Array.from({ length: 50 }, (_, i) => [i, `x${i}`]),
    );
    const capped = compareResults(E, A, { max_rows_for_cell_alignment: 10 });
    expect(capped.limits).toMatchObject({ cell_alignment_capped: true, unmatched_expected_examined: 10 });
    expect(capped.cell_overlap.estimated).toBe(true);
    expect(capped.cell_overlap.matching_cells).toBe(50);
    expect(capped.warnings.map((w) => w.code)).toContain('cell_alignment_capped');
    const full = compareResults(E, A);
    expect(full.limits.cell_alignment_capped).toBe(false);
    expect(full.cell_overlap).toMatchObject({ estimated: false, matching_cells: 50, f1: 0.5 });
    expect(full.result_equality_family.mode_pass).toBe(capped.result_equality_family.mode_pass);
  });

  it('handles empty results', () => {
    expectPass(table([sales], []), table([col('x', 'integer')], []));
    expectFail(table([sales], []), table([sales], [[1]]), 'row_count_mismatch');
    const kinds = compareResults(table([sales], []), table([col('x', 'boolean')], []));
    expect(kinds.schema_match.kinds_compatible).toBe(false);
    expect(kinds.warnings.map((w) => w.code)).toContain('kinds_incompatible');
  });
});

describe('configuration', () => {
  it('validates user options and names the problem', () => {
    expect(resolveComparisonConfig({ comparison_mode: 'bag' })).toMatchObject({
      ok: false,
      error: { code: 'input.invalid' },
    });
    expect(resolveComparisonConfig({ numeric_abs_tolerance: -1 })).toMatchObject({ ok: false });
    expect(resolveComparisonConfig({ tolerance: 1 })).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/unknown option "tolerance"/) },
    });
    expect(resolveComparisonConfig({ comparison_mode: 'order-sensitive' })).toMatchObject({
      ok: true,
      value: {
        comparison_mode: 'order-sensitive',
        numeric_abs_tolerance: 1e-6,
        numeric_rel_tolerance: 1e-6,
        null_equality_mode: 'strict',
      },
    });
    expect(() => compareResults(table([sales], []), table([sales], []), { max_rows_for_cell_alignment: -5 })).toThrow(
      RangeError,
    );
  });

  it('echoes the resolved config in the output', () => {
    const result = compareResults(table([sales], [[1]]), table([sales], [[1]]), { numeric_rel_tolerance: 0 });
    expect(result.config).toMatchObject({
      comparison_mode: 'order-insensitive',
      numeric_rel_tolerance: 0,
      max_rows_for_cell_alignment: 10000,
    });
  });
});
