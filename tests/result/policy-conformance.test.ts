/**
 * SPEC section 3, the disclosed tolerance policy: one test per row of the
 * table, each in both directions (what must pass passes, what must fail
 * fails), on values produced by DuckDB and SQLite from real queries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine.ts';
import { compareResults } from '../../src/core/result/index.ts';
import { expectFail, expectPass, openBothEngines, query } from './helpers.ts';

let duckdb: Engine;
let sqlite: Engine;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ duckdb, sqlite, close } = await openBothEngines());
});

afterAll(async () => {
  await close();
});

const d = (sql: string) => query(duckdb, sql);
const s = (sql: string) => query(sqlite, sql);

describe('SPEC §3 policy, on DuckDB and SQLite values', () => {
  it('Money, decimals, integers: exact by value (10 = 10.00 = 10.000, 10.01 ≠ 10.02), never via binary floats', async () => {
    // Same value across scales, kinds and engines.
    expectPass(await d('SELECT 10::DECIMAL(10,2) AS v'), await d('SELECT 10 AS v'));
    expectPass(await d('SELECT 10.000 AS v'), await d('SELECT 10::DECIMAL(10,2) AS v'));
    expectPass(await d('SELECT 10::DECIMAL(10,2) AS v'), await s('SELECT 10 AS v'));
    expectPass(await d('SELECT 12.50::DECIMAL(10,2) AS v'), await d('SELECT 12.5::DECIMAL(18,4) AS v'));
    // A decimal against a float compares as floats.
    expectPass(await d('SELECT 10::DECIMAL(10,2) AS v'), await s('SELECT 10.0 AS v'));
    expectPass(await d('SELECT 0.1::DECIMAL(2,1) AS v'), await d('SELECT 0.1::DOUBLE AS v'));
    // Integers beyond 2^53 stay exact (they are equal as doubles).
    expectPass(await d('SELECT 9007199254740993::BIGINT AS v'), await d('SELECT 9007199254740993::HUGEINT AS v'));
    expectPass(await d('SELECT 9007199254740993::BIGINT AS v'), await s('SELECT 9007199254740993 AS v'));
    expectPass(await d('SELECT 9007199254740993::DECIMAL(20,0) AS v'), await s('SELECT 9007199254740993 AS v'));

    // One cent is a difference, on every engine.
    const cent = expectFail(
      await d('SELECT 10.01::DECIMAL(10,2) AS v'),
      await d('SELECT 10.02::DECIMAL(10,2) AS v'),
      'value_mismatch',
    );
    const witness = cent.reasons.find((r) => r.code === 'value_mismatch');
    expect(witness).toMatchObject({
      expected: '10.01',
      actual: '10.02',
      delta: '0.01',
      rule: 'exact',
      tolerance: null,
    });
    expectFail(await d('SELECT 10.01::DECIMAL(10,2) AS v'), await s('SELECT 1002 / 100.0 AS v'), 'value_mismatch');
    expectFail(
      await d('SELECT 9007199254740993::BIGINT AS v'),
      await d('SELECT 9007199254740992::BIGINT AS v'),
      'value_mismatch',
    );
    expectFail(await s('SELECT 9007199254740993 AS v'), await s('SELECT 9007199254740992 AS v'), 'value_mismatch');
    expectFail(
      await d('SELECT 9007199254740993::DECIMAL(20,0) AS v'),
      await d('SELECT 9007199254740992::BIGINT AS v'),
      'value_mismatch',
    );
    // Sums that match as doubles but not exactly (0.1 + 0.2 as DECIMAL is exactly 0.3; as floats it is not).
    expectPass(await d('SELECT 0.1 + 0.2 AS v'), await d('SELECT 0.3 AS v'));
    expectFail(
      await d('SELECT 1000000000000000.01::DECIMAL(18,2) AS v'),
      await d('SELECT 1000000000000000.02::DECIMAL(18,2) AS v'),
      'value_mismatch',
    );
  });

  it('Floats: equal within 1e-6 relative and absolute (configurable atol/rtol); NaN = NaN; -0.0 = 0.0', async () => {
    expectPass(await d('SELECT 0.1::DOUBLE + 0.2::DOUBLE AS v'), await d('SELECT 0.3::DOUBLE AS v'));
    expectPass(await s('SELECT 0.1 + 0.2 AS v'), await d('SELECT 0.3::DOUBLE AS v'));
    expectPass(await d('SELECT 1e9::DOUBLE AS v'), await d('SELECT 1e9::DOUBLE + 0.5 AS v')); // relative 5e-10
    expectPass(await d('SELECT 1.0000005::DOUBLE AS v'), await s('SELECT 1.0 AS v')); // absolute 5e-7
    expectPass(await d("SELECT 'NaN'::DOUBLE AS v"), await d("SELECT 'NaN'::DOUBLE AS v"));
    expectPass(await d('SELECT -0.0::DOUBLE AS v'), await d('SELECT 0.0::DOUBLE AS v'));
    expectPass(await s('SELECT -0.0 AS v'), await d('SELECT 0::DOUBLE AS v'));
    expectPass(await d("SELECT 'Infinity'::DOUBLE AS v"), await d("SELECT 'Infinity'::DOUBLE AS v"));

    const off = expectFail(
      await d('SELECT 1.0::DOUBLE AS v'),
      await d('SELECT 1.00001::DOUBLE AS v'),
      'value_mismatch',
    );
    expect(off.reasons[0]).toMatchObject({ rule: 'float', tolerance: expect.closeTo(1.00001e-6, 12) });
    expectFail(await d('SELECT 1e9::DOUBLE AS v'), await s('SELECT 1000002000.0 AS v'), 'value_mismatch'); // relative 2e-6
    expectFail(await d("SELECT 'NaN'::DOUBLE AS v"), await d('SELECT 0::DOUBLE AS v'), 'value_mismatch');
    expectFail(await d("SELECT 'Infinity'::DOUBLE AS v"), await d('SELECT 1e308::DOUBLE AS v'), 'value_mismatch');
    // Configurable: a looser atol passes what the default fails, a zero tolerance fails a last-bit difference.
    expectPass(await d('SELECT 1.0::DOUBLE AS v'), await d('SELECT 1.0001::DOUBLE AS v'), {
      numeric_abs_tolerance: 1e-3,
    });
    expectFail(await d('SELECT 0.1::DOUBLE + 0.2::DOUBLE AS v'), await d('SELECT 0.3::DOUBLE AS v'), 'value_mismatch', {
      numeric_abs_tolerance: 0,
      numeric_rel_tolerance: 0,
    });
  });

  it('Row order: insignificant by default (bag semantics, duplicates count); significant with order_matters', async () => {
    const up = await d('SELECT x FROM (VALUES (1), (2), (2), (3)) t(x) ORDER BY x');
    const down = await d('SELECT x FROM (VALUES (1), (2), (2), (3)) t(x) ORDER BY x DESC');
    const sqliteDown = await s('SELECT 3 AS x UNION ALL SELECT 2 UNION ALL SELECT 2 UNION ALL SELECT 1');
    expectPass(up, down);
    expectPass(up, sqliteDown);
    expectPass(
      up,
      await d('SELECT x FROM (VALUES (1), (2), (2), (3)) t(x) ORDER BY x'),
      { comparison_mode: 'order-sensitive' },
      { orderKeys: [0] },
    );

    const ordered = expectFail(up, down, 'order_violation', { comparison_mode: 'order-sensitive' }, { orderKeys: [0] });
    expect(ordered.result_equality_family.mode_details['order-insensitive'].pass).toBe(true);
    expectFail(up, sqliteDown, 'order_violation', { comparison_mode: 'order-sensitive' });
    // Duplicates count: {1, 2, 2, 3} is not {1, 2, 3, 3}, nor {1, 2, 3}; as sets they agree.
    const dup = expectFail(
      up,
      await s('SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 3'),
      'duplicate_rows',
    );
    expect(dup.result_equality_family.mode_details.set.pass).toBe(true);
    expectFail(up, await d('SELECT x FROM (VALUES (1), (2), (3)) t(x)'), 'row_count_mismatch');
    expectPass(up, await d('SELECT x FROM (VALUES (1), (2), (3)) t(x)'), { set_semantics: true });
  });

  it('Scalars: a case of shape scalar must return exactly one row and one column', async () => {
    const expected = await d('SELECT 42 AS answer');
    expectPass(expected, await s('SELECT 42 AS total'), {}, { shape: 'scalar' });
    expectPass(expected, await d('SELECT 42::DECIMAL(10,2)'), {}, { shape: 'scalar' });

    const extraColumn = expectFail(
      expected,
      await d('SELECT 42 AS answer, 1 AS n'),
      'scalar_shape',
      {},
      { shape: 'scalar' },
    );
    expect(extraColumn.reasons.map((r) => r.code)).toContain('column_count_mismatch');
    expectFail(expected, await s('SELECT 42 UNION ALL SELECT 42'), 'scalar_shape', {}, { shape: 'scalar' });
    expectFail(expected, await d('SELECT 42 AS answer WHERE false'), 'scalar_shape', {}, { shape: 'scalar' });
  });

  it('NULL: matches only NULL', async () => {
    expectPass(await d('SELECT NULL::INTEGER AS v'), await d('SELECT NULL AS v'));
    expectPass(await d('SELECT NULL::DECIMAL(10,2) AS v'), await s('SELECT NULL AS v'));
    expectPass(await d('SELECT x FROM (VALUES (1), (NULL)) t(x)'), await s('SELECT NULL AS x UNION ALL SELECT 1'));

    const zero = expectFail(await d('SELECT NULL::INTEGER AS v'), await d('SELECT 0 AS v'), 'null_mismatch');
    expect(zero.null_handling_match.pass).toBe(false);
    expectFail(await s("SELECT '' AS v"), await d('SELECT NULL::VARCHAR AS v'), 'null_mismatch');
    expectFail(
      await d('SELECT x FROM (VALUES (1), (NULL)) t(x)'),
      await d('SELECT x FROM (VALUES (1), (0)) t(x)'),
      'null_mismatch',
    );
    // null_equality_mode sql_semantic: NULL = NULL is unknown, so not a match.
    expectFail(await d('SELECT NULL::INTEGER AS v'), await d('SELECT NULL AS v'), 'null_mismatch', {
      null_equality_mode: 'sql_semantic',
    });
  });

  it('Booleans: match only booleans, true is never 1', async () => {
    expectPass(await d('SELECT true AS v, false AS w'), await d('SELECT 1 = 1 AS v, 1 = 2 AS w'));

    const one = expectFail(await d('SELECT true AS v'), await d('SELECT 1 AS v'), 'type_mismatch');
    expect(one.reasons[0]).toMatchObject({
      expected: true,
      actual: 1,
      expected_kind: 'boolean',
      actual_kind: 'integer',
    });
    // SQLite has no boolean type: its comparisons yield integers.
    expectFail(await d('SELECT 1 = 1 AS v'), await s('SELECT 1 = 1 AS v'), 'type_mismatch');
    expectFail(await d("SELECT 'true' AS v"), await d('SELECT true AS v'), 'type_mismatch');
    // The message is plain English: "an exact number", "an interval", not "a exact number".
    const text = expectFail(await d('SELECT 6 AS v'), await d("SELECT '6' AS v"), 'type_mismatch');
    expect(text.reasons[0]!.message).toContain('an exact number never equals a text');
    const interval = expectFail(await d("SELECT INTERVAL '1 day' AS v"), await d('SELECT 1 AS v'), 'type_mismatch');
    expect(interval.reasons[0]!.message).toContain('an interval never equals an exact number');
  });

  it('Dates: a DATE equals the TIMESTAMP at its midnight; a real time component is never reduced to its date', async () => {
    const day = await d("SELECT DATE '2024-01-02' AS v");
    expectPass(day, await d("SELECT TIMESTAMP '2024-01-02 00:00:00' AS v"));
    expectPass(day, await d("SELECT date_trunc('day', TIMESTAMP '2024-01-02 10:11:12') AS v"));
    expectPass(
      await d("SELECT TIMESTAMP '2024-01-02 03:04:05.123456' AS v"),
      await d("SELECT TIMESTAMP '2024-01-02 03:04:05.123456' AS v"),
    );
    expectPass(await s("SELECT date('2024-01-02 10:11:12') AS v"), await s("SELECT '2024-01-02' AS v"));

    expectFail(day, await d("SELECT TIMESTAMP '2024-01-02 00:00:01' AS v"), 'value_mismatch');
    expectFail(day, await d("SELECT TIMESTAMP '2024-01-02 00:00:00.000001' AS v"), 'value_mismatch');
    expectFail(
      await d("SELECT TIMESTAMP '2024-01-02 03:04:05.123456' AS v"),
      await d("SELECT TIMESTAMP '2024-01-02 03:04:05.123457' AS v"),
      'value_mismatch',
    );
    expectFail(await d("SELECT TIMESTAMP '2024-01-02 10:11:12' AS v"), day, 'value_mismatch');
    // SQLite has no date type: its dates are text, and the date rule applies only where a kind is known.
    expectFail(day, await s("SELECT date('2024-01-02') AS v"), 'type_mismatch');
  });

  it('Column count: a mismatch is reported explicitly as a projection defect, with the best partial alignment', async () => {
    expectPass(await d("SELECT 1 AS a, 'x' AS b"), await s("SELECT 1 AS a, 'x' AS b"));

    const result = expectFail(
      await d("SELECT 1 AS id, 'x' AS name, 2.5 AS amount"),
      await s("SELECT 'x' AS label, 1 AS id"),
      'column_count_mismatch',
    );
    const reason = result.reasons.find((r) => r.code === 'column_count_mismatch');
    expect(reason).toMatchObject({
      expected_columns: 3,
      actual_columns: 2,
      missing_expected_columns: [{ index: 2, name: 'amount' }],
      extra_actual_columns: [],
    });
    expect(result.row_overlap).toMatchObject({ basis: 'mapped_columns', matched_rows: 1 });
    expectFail(await d('SELECT 1 AS a'), await d('SELECT 1 AS a, 1 AS b'), 'column_count_mismatch');
  });

  it('Column names: not required to match by default (aliases differ); optional strict mode', async () => {
    expectPass(await d('SELECT sum(x) AS total FROM range(4) t(x)'), await s('SELECT 6 AS "sum(x)"'));
    expectPass(await d('SELECT 6 AS total'), await s('SELECT 6 AS total'), { require_column_name_match: true });

    const strict = expectFail(await d('SELECT 6 AS total'), await s('SELECT 6 AS sum_x'), 'column_name_mismatch', {
      require_column_name_match: true,
    });
    expect(strict.reasons[0]).toMatchObject({ columns: [{ expected_name: 'total', actual_name: 'sum_x' }] });
    expectFail(await d('SELECT 6 AS total'), await d('SELECT 6 AS Total'), 'column_name_mismatch', {
      require_column_name_match: true,
    });
  });

  it('Column order: not required by default — columns aligned by content, the alignment reported; optional strict order', async () => {
    const expected = await d("SELECT region, total FROM (VALUES ('north', 10), ('south', 20)) t(region, total)");
    const swapped = await s("SELECT 20 AS t, 'south' AS r UNION ALL SELECT 10, 'north'");
    const result = expectPass(expected, swapped);
    expect(result.column_alignment.method).toBe('content');
    expect(result.column_alignment.mapping.map((c) => [c.expected_index, c.actual_index])).toEqual([
      [0, 1],
      [1, 0],
    ]);

    const strict = expectFail(expected, swapped, 'column_order_mismatch', { require_column_order_match: true });
    expect(strict.reasons.find((r) => r.code === 'column_order_mismatch')).toMatchObject({
      matching_alignment: [
        { expected_index: 0, actual_index: 1 },
        { expected_index: 1, actual_index: 0 },
      ],
    });
    // Row-scrambled columns never pass: each column's values agree, the rows do not.
    expectFail(
      expected,
      await d("SELECT region, total FROM (VALUES ('north', 20), ('south', 10)) t(region, total)"),
      'value_mismatch',
    );
  });

  it('every failing comparison carries a reason and the reasons name the mode outcomes', async () => {
    const result = compareResults(await d('SELECT 1 AS v'), await d('SELECT 2 AS v'));
    expect(result.result_equality_family).toMatchObject({
      comparison_mode: 'order-insensitive',
      mode_pass: false,
      mode_details: { 'order-insensitive': { pass: false, reasons: ['value_mismatch'] } },
    });
  });

  it('a value_mismatch witness of two long texts shows where they differ, and never cuts a character in half', async () => {
    // Both were cut at 200 UTF-16 units: the two witnesses were the same text ("differs: expected A, got A"),
    // and the cut split the emoji's surrogate pair (a lone surrogate, U+FFFD once written as UTF-8).
    for (const engine of [d, s]) {
      const result = compareResults(
        await engine("SELECT 'ab' || replace(printf('%0250d', 0), '0', 'a') || '😀' || 'x' AS v"),
        await engine("SELECT 'ab' || replace(printf('%0250d', 0), '0', 'a') || '😀' || 'y' AS v"),
      );
      const reason = result.reasons.find((r) => r.code === 'value_mismatch') as {
        expected: unknown;
        actual: unknown;
        message: string;
      };
      expect(reason.expected).not.toEqual(reason.actual);
      expect(String(reason.expected)).toMatch(/😀x/);
      expect(String(reason.actual)).toMatch(/😀y/);
      for (const text of [reason.expected, reason.actual, reason.message])
        expect(String(text)).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
      const emojiAtCut = compareResults(
        await engine("SELECT replace(printf('%0199d', 0), '0', 'a') || '😀' || 'x' AS v"),
        await engine("SELECT replace(printf('%0199d', 0), '0', 'b') || '😀' || 'x' AS v"),
      ).reasons[0] as { expected: unknown };
      expect(String(emojiAtCut.expected)).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    }
  });
});
