import { describe, expect, it } from 'vitest';
import { BREAKDOWN_KEYS, computeBreakdowns } from '../../src/core/gate/breakdowns.ts';
import { diffRuns } from '../../src/core/gate/diff.ts';
import { newcombePaired, pctText, pointsText, wilson } from '../../src/core/gate/interval.ts';
import { checkReportSummary } from '../../src/core/gate/report-file.ts';
import { summary, mixCases } from './build.ts';
import { EVERY_OUTCOME } from './cases.ts';

describe('Wilson score interval', () => {
  it('matches a hand computation: 55 of 64 (the demo corpus accuracy)', () => {
    // z = 1.959963984540054, z² = 3.841458820694124, n = 64, p̂ = 0.859375
    // centre = (p̂ + z²/2n) / (1 + z²/n) = 0.889386397 / 1.060022794 = 0.839024
    // half   = z / (1 + z²/n) · √(p̂(1−p̂)/n + z²/4n²) = 1.848982 · √(0.001887… + 0.000234…) = 0.085189
    const [low, high] = wilson(55, 64)!;
    expect(low).toBeCloseTo(0.7538371825842297, 12);
    expect(high).toBeCloseTo(0.9242142744396914, 12);
    expect(pctText(55 / 64, [low, high])).toBe('85.9% [75.4%, 92.4%]');
  });

  it('matches a hand computation: 8 of 12 and the ends 0 of 5, 5 of 5', () => {
    const [low, high] = wilson(8, 12)!;
    expect(low).toBeCloseTo(0.39062208887279953, 12);
    expect(high).toBeCloseTo(0.8618799089087867, 12);
    // k = 0: centre = half, so the low end is exactly 0; high = z²/n / (1 + z²/n) = 0.768291764 / 1.768291764
    expect(wilson(0, 5)).toEqual([0, expect.closeTo(0.43448246478317476, 12)]);
    expect(wilson(5, 5)).toEqual([expect.closeTo(1 - 0.43448246478317476, 12), 1]);
    expect(wilson(0, 0)).toBeNull();
    expect(() => wilson(3, 2)).toThrow(RangeError);
  });
});

describe('percentages', () => {
  it('prints one decimal, more only where one decimal would reach 100.0% or 0.0% without being it', () => {
    expect(pctText(2146 / 2147, null)).toBe('99.95%');
    expect(pctText(1 / 2001, null)).toBe('0.05%');
    expect(pctText(1 / 20001, null)).toBe('0.005%');
    expect(pctText(1, null)).toBe('100.0%');
    expect(pctText(0, null)).toBe('0.0%');
    expect(pctText(55 / 64, null)).toBe('85.9%');
  });
});

describe("Newcombe's paired interval (method 10)", () => {
  it("reproduces Newcombe's (1998) worked example 36, 12, 2, 0: 0.0569 to 0.3404", () => {
    const d = newcombePaired(36, 2, 12, 0);
    expect(d.estimate).toBeCloseTo(0.2, 12);
    expect(d.ci95![0]).toBeCloseTo(0.0569, 4);
    expect(d.ci95![1]).toBeCloseTo(0.3404, 4);
  });

  it('corrects phi for positive association (AD − BC > N/2): no discordant pair is not a zero-width interval', () => {
    // 5 right in both, 5 wrong in both: AD − BC = 25, N/2 = 5, phi = (25 − 5)/√(5·5·5·5) = 0.8 (uncorrected
    // phi = 1 made the interval [0, 0] for ten cases). Wilson margins 5 of 10 [0.2366, 0.7634]:
    // δ = √(2 · 0.2634² − 2 · 0.8 · 0.2634²) = 0.1666.
    const none = newcombePaired(5, 0, 0, 5);
    expect(none.estimate).toBe(0);
    expect(none.ci95![0]).toBeCloseTo(-0.16659315708122263, 12);
    expect(none.ci95![1]).toBeCloseTo(0.16659315708122263, 12);
    // Fagerland, Lydersen & Laake (2017) ch. 8, Cavo et al. (2012): 59, 6, 16, 80 → −0.1186 to −0.0046.
    const cavo = newcombePaired(59, 16, 6, 80);
    expect(cavo.estimate).toBeCloseTo(-10 / 161, 12);
    expect(cavo.ci95![0]).toBeCloseTo(-0.1186, 4);
    expect(cavo.ci95![1]).toBeCloseTo(-0.0046, 4);
  });

  it('is the interval of run B minus run A in diffRuns, beside McNemar', () => {
    const a = summary(mixCases({ correct: 6, wrong: 4 }));
    const cases = a.cases.map((k, i) =>
      i === 0 ? { ...k, outcome: 'wrong' as const } : i >= 6 && i < 9 ? { ...k, outcome: 'correct' as const } : k,
    );
    const b = summary(cases);
    const d = diffRuns(a, b);
    if (!d.ok) throw new Error(d.error.message);
    expect(d.value.mcnemar).toMatchObject({ b: 1, c: 3 });
    expect(d.value.difference).toMatchObject({
      method: 'newcombe_paired_wilson',
      a_rate: 0.6,
      b_rate: 0.8,
      counts: { both: 5, a_only: 1, b_only: 3, neither: 1 },
    });
    expect(d.value.difference.estimate).toBeCloseTo(0.2, 12);
    const [low, high] = d.value.difference.ci95!;
    expect(low).toBeLessThan(0.2);
    expect(high).toBeGreaterThan(0.2);
    expect(low).toBeGreaterThanOrEqual(-1);
    // By hand (Wilson margins 0.6 of 10 [0.3127, 0.8318] and 0.8 of 10 [0.4902, 0.9433]; AD − BC = 5·1 − 1·3 = 2
    // lies in [0, N/2 = 5], so phi is 0 and the two half-widths add in quadrature).
    expect(low).toBeCloseTo(-0.1869620828703914, 10);
    expect(high).toBeCloseTo(0.5210862318923275, 10);
    expect(pointsText(d.value.difference.estimate, [low, high])).toBe('+20.0 points [−18.7, +52.1]');
  });
});

describe('differences in points', () => {
  it('prints a difference that rounds to 0.0 points without a sign: no "−0.0", no "+0.0"', () => {
    expect(pointsText(-0.0004, null)).toBe('±0.0 points');
    expect(pointsText(0.0004, null)).toBe('±0.0 points');
    expect(pointsText(-0, null)).toBe('±0.0 points');
    expect(pointsText(0, [-0.0001, 0.0001])).toBe('±0.0 points [±0.0, ±0.0]');
    expect(pointsText(-0.0005, null)).toBe('−0.1 points');
    expect(pointsText(0.063, [-0.012, 0.138])).toBe('+6.3 points [−1.2, +13.8]');
  });

  it('a diff of 2147 cases where one right answer turns wrong: "±0.0 points", its interval signed', () => {
    const a = summary(mixCases({ correct: 2146, wrong: 1 }));
    const b = summary(
      mixCases({ correct: 2146, wrong: 1 }).map((k, i) => (i === 0 ? { ...k, outcome: 'wrong' as const } : k)),
    );
    const d = diffRuns(a, b);
    if (!d.ok) throw new Error(d.error.message);
    expect(d.value.counts.regressed).toBe(1);
    expect(d.value.difference.estimate).toBeCloseTo(-1 / 2147, 12);
    const text = pointsText(d.value.difference.estimate, d.value.difference.ci95);
    // −1/2147 is −0.047 points: it printed "−0.0 points".
    expect(text).toMatch(/^±0\.0 points \[−0\.\d, \+0\.\d\]$/);
    expect(text).not.toMatch(/[−+]0\.0\b/);
  });
});

describe('summary breakdowns', () => {
  const s = summary(EVERY_OUTCOME);

  it('puts every case in one row of each breakdown (tags: once per tag), with counts that add up', () => {
    for (const key of BREAKDOWN_KEYS) {
      const rows = s.breakdowns[key];
      const total = rows.reduce((n, r) => n + r.total, 0);
      if (key === 'by_tag') expect(total).toBe(s.cases.reduce((n, k) => n + Math.max(1, k.tags?.length ?? 0), 0));
      else expect(total, key).toBe(s.cases.length);
      for (const r of rows) expect(Object.values(r.outcomes).reduce((n, v) => n + v, 0)).toBe(r.total);
      const correct = rows.reduce((n, r) => n + r.outcomes.correct, 0);
      if (key !== 'by_tag') expect(correct).toBe(s.outcomes.correct);
    }
    expect(s.breakdowns.by_fixture.map((r) => [r.key, r.total])).toEqual([
      ['retail', 2],
      ['(none)', 9],
    ]);
    expect(s.breakdowns.by_stratum.map((r) => r.key)).toEqual([
      'must_answer/control_scalar',
      'must_answer/control_top_n',
      'must_refuse/ambiguous',
      'must_refuse/injection',
      'must_refuse/out_of_schema',
      '(no arm)',
    ]);
    expect(s.breakdowns.by_difficulty.map((r) => r.key)).toEqual(['easy', 'medium', 'hard', 'extra', 'unrated']);
  });

  it("leaves a broken reference out of every row's accuracy, as the summary does (SPEC 4: a broken oracle is not graded)", () => {
    const broken = {
      ...EVERY_OUTCOME[0]!,
      id: 'g-broken',
      outcome: 'broken_reference' as const,
      reason: 'Broken oracle: the reference query fails to execute.',
      reason_code: 'oracle.broken_reference',
      severity: 'critical failure',
    };
    const run = summary([...EVERY_OUTCOME.slice(0, 2), broken]);
    expect(run.answer_accuracy.total).toBe(2);
    for (const key of ['by_fixture', 'by_difficulty', 'by_shape'] as const) {
      const rows = run.breakdowns[key];
      expect(
        rows.reduce((n, r) => n + r.accuracy.total, 0),
        key,
      ).toBe(run.answer_accuracy.total);
      // Not right, not wrong: outside the right rate too.
      expect(
        rows.reduce((n, r) => n + r.success.total, 0),
        key,
      ).toBe(2);
    }
    expect(checkReportSummary({ kind: 'run', summary: run }).ok).toBe(true);
    // A report written before (the broken reference counted in the rows) is still read, not refused as edited.
    const before = JSON.parse(JSON.stringify(run)) as typeof run;
    before.breakdowns = computeBreakdowns(run.cases, true);
    expect(before.breakdowns.by_fixture[0]!.accuracy.total).toBe(3);
    expect(checkReportSummary({ kind: 'run', summary: before }).ok).toBe(true);
  });

  it('gives every rate of the summary a Wilson interval', () => {
    const rates: [string, { rate: number | null; ci95: unknown }][] = [];
    const walk = (v: unknown, at: string) => {
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}[${i}]`));
      else if (v && typeof v === 'object') {
        if ('rate' in v) rates.push([at, v as { rate: number | null; ci95: unknown }]);
        for (const [k, x] of Object.entries(v)) walk(x, `${at}.${k}`);
      }
    };
    walk(s, 'summary');
    expect(rates.length).toBeGreaterThan(40);
    for (const [at, r] of rates) {
      expect(r, at).toHaveProperty('ci95');
      if (r.rate === null) expect(r.ci95, at).toBeNull();
      else {
        const [low, high] = r.ci95 as [number, number];
        expect(low <= r.rate && r.rate <= high, at).toBe(true);
      }
    }
    expect(s.answer_accuracy.ci95).toEqual(wilson(2, 7));
    const tagged = summary([
      { ...EVERY_OUTCOME[0]!, tags: ['a', 'b', 'a'] },
      { ...EVERY_OUTCOME[1]!, tags: ['b'] },
    ]);
    expect(tagged.breakdowns.by_tag.map((r) => [r.key, r.total, r.accuracy.count])).toEqual([
      ['a', 1, 1],
      ['b', 2, 1],
    ]);
  });

  it('still reads a 1.1 report, which has no breakdowns nor intervals', () => {
    const old = JSON.parse(JSON.stringify(s)) as Record<string, Record<string, unknown>>;
    delete old.breakdowns;
    for (const f of ['answer_accuracy', 'refusal_recall', 'over_refusal']) delete old[f]!.ci95;
    expect(checkReportSummary({ kind: 'run', summary: old }).ok).toBe(true);
    const edited = JSON.parse(JSON.stringify(s)) as { breakdowns: { by_fixture: { total: number }[] } };
    edited.breakdowns.by_fixture[0]!.total = 99;
    const checked = checkReportSummary({ kind: 'run', summary: edited });
    expect(checked.ok).toBe(false);
    expect(checked.ok ? '' : checked.error.message).toContain('summary.breakdowns.by_fixture[0].total');
  });
});
