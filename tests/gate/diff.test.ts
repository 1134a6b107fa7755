import { describe, expect, it } from 'vitest';
import { diffRuns } from '../../src/core/gate/diff.ts';
import { mcnemarExact } from '../../src/core/gate/mcnemar.ts';
import type { CaseResult } from '../../src/core/gate/outcome.ts';
import { summary } from './build.ts';

describe('McNemar exact test', () => {
  it.each([
    [0, 5, 0.0625, '1', '16'],
    [1, 9, 0.021484375, '11', '512'],
    [9, 1, 0.021484375, '11', '512'],
    [0, 0, 1, '1', '1'],
    [3, 3, 1, '1', '1'],
    [2, 6, 0.2890625, '37', '128'],
    [0, 1, 1, '1', '1'],
  ])('b=%i c=%i → p=%f', (b, c, p, num, den) => {
    const r = mcnemarExact(b, c);
    expect(r.p_value).toBe(p);
    expect(r.p_exact).toEqual({ numerator: num, denominator: den });
    expect(r.n).toBe(b + c);
  });

  it('is symmetric', () => {
    for (const [b, c] of [
      [4, 11],
      [17, 30],
      [0, 12],
    ] as const)
      expect(mcnemarExact(b, c).p_value).toBe(mcnemarExact(c, b).p_value);
  });

  it('stays exact and finite for thousands of discordant pairs', () => {
    // Balanced: p = 1. Slightly unbalanced large n: a proper probability.
    expect(mcnemarExact(1500, 1500).p_value).toBe(1);
    const p = mcnemarExact(1450, 1550).p_value;
    expect(p).toBeGreaterThan(0.06);
    expect(p).toBeLessThan(0.08); // normal approximation: z ≈ 1.81, p ≈ 0.070
    expect(Number.isFinite(mcnemarExact(0, 3000).p_value)).toBe(true);
    expect(mcnemarExact(0, 1000).p_value).toBeCloseTo(2 * 2 ** -1000, 310);
    expect(mcnemarExact(0, 1000).p_value).toBeGreaterThan(0);
  });
});

const k = (id: string, outcome: CaseResult['outcome'], arm?: CaseResult['arm']): CaseResult => ({
  id,
  outcome,
  query: null,
  ...(arm ? { arm } : {}),
});

describe('run versus run', () => {
  const a = summary([
    k('q1', 'correct'),
    k('q2', 'wrong'),
    k('q3', 'correct'),
    k('q4', 'wrong'),
    k('r1', 'correct_refusal', 'must_refuse'),
    k('r2', 'missed_refusal', 'must_refuse'),
  ]);
  const b = summary(
    [
      k('q1', 'correct'),
      k('q2', 'correct'),
      k('q3', 'no_query'),
      k('q4', 'no_query'),
      k('r1', 'correct_refusal', 'must_refuse'),
      k('r2', 'correct_refusal', 'must_refuse'),
    ],
    {},
    { model: 'sol-1' },
  );

  it('classifies every case as fixed, regressed or unchanged and tests the discordant pairs', () => {
    const d = diffRuns(a, b);
    if (!d.ok) throw new Error(d.error.message);
    expect(d.value.counts).toEqual({
      fixed: 2,
      regressed: 1,
      unchanged_right: 2,
      unchanged_wrong: 1,
      outcome_changed: 1,
      not_graded: 0,
    });
    expect(d.value.fixed_ids).toEqual(['q2', 'r2']);
    expect(d.value.regressed_ids).toEqual(['q3']);
    expect(d.value.cases.find((c) => c.id === 'q4')).toEqual({
      id: 'q4',
      a: 'wrong',
      b: 'no_query',
      change: 'unchanged_wrong',
      outcome_changed: true,
    });
    expect(d.value.mcnemar).toMatchObject({ b: 1, c: 2, p_value: 1 });
    expect(d.value.right).toEqual({ a: 3, b: 4, total: 6 });
  });

  it('leaves a broken reference out of the comparison: not graded, outside right, counts and interval', () => {
    const broken = (r: typeof a) => summary([...r.cases, k('q5', 'broken_reference')], {}, r.run);
    const d = diffRuns(broken(a), broken(b));
    const plain = diffRuns(a, b);
    if (!d.ok || !plain.ok) throw new Error('diff failed');
    expect(d.value.counts).toEqual({ ...plain.value.counts, not_graded: 1 });
    expect(d.value.right).toEqual({ a: 3, b: 4, total: 6 });
    expect(d.value.difference).toEqual(plain.value.difference);
    expect(d.value.cases.find((c) => c.id === 'q5')?.change).toBe('not_graded');
  });

  it('refuses runs of different corpora', () => {
    const other = summary(b.cases, { sha256: 'b'.repeat(64) });
    const d = diffRuns(a, other);
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.error.message).toContain('different corpora');
    const fewer = summary(b.cases.slice(1));
    const e = diffRuns(a, fewer);
    expect(e.ok).toBe(false);
    if (!e.ok) expect(e.error.message).toContain('only in A: q1');
  });
});
