/**
 * The spider and bird policy presets on hand-made results: the official
 * Spider execution match's rules (DISTINCT removal, first statement, empty
 * results, column permutations, order only with ORDER BY, Python equality)
 * and BIRD's set comparison; Python's float repr for the within-row sort.
 */
import { describe, expect, it } from 'vitest';
import { birdResultEq, birdSoftF1, cleanAbnormal, rvesReward } from '../../src/core/presets/bird.ts';
import { elapsedRatio } from '../../src/core/run/preset-grade.ts';
import { pythonFloatRepr } from '../../src/core/presets/python-values.ts';
import { removeDistinct, spiderPrepare, spiderResultEq } from '../../src/core/presets/spider.ts';
import type { Cell, Column, Kind, ResultTable } from '../../src/core/value/kind.ts';

function table(kinds: Kind[], rows: Cell[][]): ResultTable {
  const columns: Column[] = kinds.map((kind, i) => ({
    name: `c${i}`,
    engineType: kind === 'float' ? 'REAL' : kind.toUpperCase(),
    kind,
  }));
  return { columns, rows };
}

describe('spider preset', () => {
  it('removes every bare DISTINCT (not in strings or quoted names) and keeps only the first statement', () => {
    expect(
      removeDistinct('SELECT DISTINCT a, count(distinct b) FROM t WHERE c = \'distinct\' AND "distinct" = 1').sql,
    ).toBe('SELECT  a, count( b) FROM t WHERE c = \'distinct\' AND "distinct" = 1');
    expect(removeDistinct('SELECT a FROM t; SELECT b FROM t')).toEqual({
      sql: 'SELECT a FROM t;',
      removed: 0,
      truncated: true,
    });
    expect(removeDistinct('SELECT distinct_name FROM t').removed).toBe(0);
  });

  it('prepares both queries as the official driver does', () => {
    const p = spiderPrepare('SELECT DISTINCT name FROM t ORDER BY name', "SELECT name FROM t WHERE v > = 'value'");
    expect(p).toEqual({
      gold: 'SELECT  name FROM t ORDER BY name',
      pred: "SELECT name FROM t WHERE v >= '1'",
      orderMatters: true,
      changes: ["the prediction's 'value' became '1'", 'DISTINCT removed'],
    });
    expect(spiderPrepare('SELECT DISTINCT a FROM t', 'SELECT a FROM t', { keepDistinct: true }).gold).toBe(
      'SELECT DISTINCT a FROM t',
    );
    // Official: 'order by' as a substring of the gold (two spaces do not count).
    expect(spiderPrepare('SELECT a FROM t ORDER  BY a', 'SELECT a FROM t').orderMatters).toBe(false);
  });

  it('equal: two empty results whatever the columns; column permutations; 1 = 1.0; bags without ORDER BY', () => {
    expect(spiderResultEq(table(['integer'], []), table(['text', 'text'], []), false).equal).toBe(true);
    expect(
      spiderResultEq(
        table(
          ['integer', 'text'],
          [
            [1, 'a'],
            [2, 'b'],
          ],
        ),
        table(
          ['text', 'integer'],
          [
            ['b', 2],
            ['a', 1],
          ],
        ),
        false,
      ),
    ).toMatchObject({ equal: true, code: 'column_permutation' });
    expect(spiderResultEq(table(['integer'], [[1]]), table(['float'], [[1.0]]), false).equal).toBe(true);
    expect(spiderResultEq(table(['integer'], [[1], [1], [2]]), table(['integer'], [[1], [2], [2]]), false).equal).toBe(
      false,
    );
    expect(spiderResultEq(table(['text'], [['1']]), table(['integer'], [[1]]), false).equal).toBe(false);
  });

  it('not equal: rows out of order when the gold orders them; row and column counts', () => {
    expect(spiderResultEq(table(['integer'], [[1], [2]]), table(['integer'], [[2], [1]]), true)).toMatchObject({
      equal: false,
      code: 'values',
    });
    expect(spiderResultEq(table(['integer'], [[1], [2]]), table(['integer'], [[2], [1]]), false).equal).toBe(true);
    expect(spiderResultEq(table(['integer'], [[1]]), table(['integer'], []), false).code).toBe('row_count');
    expect(spiderResultEq(table(['integer'], [[1]]), table(['integer', 'integer'], [[1, 1]]), false).code).toBe(
      'column_count',
    );
  });

  it('permutes columns of four and more (the official code prunes by sampling; the same permutations survive)', () => {
    const gold = table(
      ['integer', 'integer', 'text', 'text'],
      [
        [1, 2, 'a', 'b'],
        [3, 4, 'c', 'd'],
      ],
    );
    const pred = table(
      ['text', 'integer', 'text', 'integer'],
      [
        ['b', 2, 'a', 1],
        ['d', 4, 'c', 3],
      ],
    );
    expect(spiderResultEq(gold, pred, true)).toMatchObject({ equal: true, code: 'column_permutation' });
  });

  it("sorts within a row by Python's str(x) + str(type(x)) (repr of floats)", () => {
    expect([1.0, 1e16, 1e-5, 0.0001, 123.456, 1e15, -2.5].map(pythonFloatRepr)).toEqual([
      '1.0',
      '1e+16',
      '1e-05',
      '0.0001',
      '123.456',
      '1000000000000000.0',
      '-2.5',
    ]);
  });
});

describe('bird preset', () => {
  it('compares sets of rows: duplicates and order ignored, column order significant', () => {
    expect(birdResultEq(table(['text'], [['a'], ['b']]), table(['text'], [['b'], ['a'], ['a']])).equal).toBe(true);
    expect(birdResultEq(table(['text', 'integer'], [['a', 1]]), table(['integer', 'text'], [[1, 'a']])).equal).toBe(
      false,
    );
    expect(birdResultEq(table(['integer'], []), table(['integer'], [])).equal).toBe(true);
    expect(birdResultEq(table(['float'], [[2.0]]), table(['integer'], [[2]])).equal).toBe(true);
  });
});

describe('BIRD Soft-F1 and R-VES', () => {
  it('Soft-F1: rows deduplicated and paired by position, cells matched whatever their column order', () => {
    expect(birdSoftF1(table(['text', 'integer'], [['a', 1]]), table(['integer', 'text'], [[1, 'a']]))).toBe(1);
    expect(birdSoftF1(table(['integer'], []), table(['integer'], []))).toBe(1);
    // gold (a,1),(b,2); prediction (a,9): tp 0.5, fp 0.5, fn 0.5 + 1 (the unpaired gold row) → P 0.5, R 0.25 → F1 1/3.
    expect(
      birdSoftF1(
        table(
          ['text', 'integer'],
          [
            ['a', 1],
            ['b', 2],
          ],
        ),
        table(['text', 'integer'], [['a', 9]]),
      ),
    ).toBeCloseTo(1 / 3, 12);
    // An extra predicted row counts 1 against precision: tp 1, fp 1 → P 0.5, R 1 → F1 2/3.
    expect(birdSoftF1(table(['integer'], [[1]]), table(['integer'], [[1], [2]]))).toBeCloseTo(2 / 3, 12);
  });

  it("R-VES reward bands and BIRD's outlier cleaning (mean ± 3σ, strict)", () => {
    expect([0, 0.1, 0.25, 0.5, 0.99, 1, 1.99, 2, 10].map(rvesReward)).toEqual([
      0, 0.25, 0.5, 0.75, 0.75, 1, 1, 1.25, 1.25,
    ]);
    expect(cleanAbnormal([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 100])).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(cleanAbnormal([2, 2, 2])).toEqual([2, 2, 2]);
  });

  it('a time ratio floors both times at the timer resolution: two queries too fast to time ran equally fast', () => {
    expect(elapsedRatio(0, 0)).toBe(1);
    expect(rvesReward(elapsedRatio(0, 0))).toBe(1);
    expect(elapsedRatio(4, 1)).toBe(4);
    expect(elapsedRatio(0, 2)).toBeCloseTo(0.0005, 12);
  });
});
