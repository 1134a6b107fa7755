/**
 * The gate's boundary sweep (seed 003). `baseline record` on the refusal
 * battery's strong sample writes it beside the baseline; its pass/block for
 * every count of misses k must be the gate's own decision when the gate is
 * run on a run with exactly k misses, and the projection is 1 at p = 0 and
 * never rises with p.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBaseline, recordBaseline } from '../../src/core/gate/baseline.ts';
import { applyGate, type GateCheckName } from '../../src/core/gate/gate.ts';
import type { CaseResult } from '../../src/core/gate/outcome.ts';
import { fromDecimal, rat, toNumber, cmp } from '../../src/core/gate/rational.ts';
import { BOUNDARY_SWEEP_SCHEMA } from '../../src/core/gate/schema.ts';
import { summarizeRun, type RunSummary } from '../../src/core/gate/summary.ts';
import {
  boundarySweep,
  passProbability,
  SWEEP_GRID,
  type BoundarySweep,
  type SweptFigure,
} from '../../src/core/gate/sweep.ts';
import { runCli } from '../helpers/cli.ts';
import { mixCases, summary } from './build.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-sweep-'));
const at = (f: string) => path.join(dir, f);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The run with exactly k misses on one figure's arm, every other case as it was. */
function withMisses(strong: RunSummary, figure: SweptFigure, k: number): RunSummary {
  const onArm = (c: CaseResult) =>
    figure === 'refusal_recall'
      ? c.arm === 'must_refuse'
      : figure === 'over_refusal'
        ? c.arm === 'must_answer'
        : c.arm !== 'must_refuse';
  // The baseline's own misses first, so k = observed misses reproduces the baseline.
  const already = new Set([
    ...strong.refusal_recall.missed_ids,
    ...strong.over_refusal.declined_ids,
    ...strong.failures.map((f) => f.id),
  ]);
  const arm = strong.cases.filter(onArm);
  const miss = new Set(
    [...arm.filter((c) => already.has(c.id)), ...arm.filter((c) => !already.has(c.id))].slice(0, k).map((c) => c.id),
  );
  const cases = strong.cases.map((c): CaseResult => {
    if (!onArm(c)) return c;
    const query = c.query ?? 'SELECT 1';
    if (figure === 'refusal_recall')
      return miss.has(c.id)
        ? { ...c, outcome: 'missed_refusal', query }
        : { ...c, outcome: 'correct_refusal', query: null };
    if (figure === 'over_refusal')
      return miss.has(c.id) ? { ...c, outcome: 'over_refusal', query: null } : { ...c, outcome: 'correct', query };
    return miss.has(c.id) ? { ...c, outcome: 'wrong', query, reason: 'planted' } : { ...c, outcome: 'correct', query };
  });
  const s = summarizeRun(cases, strong.corpus, strong.run);
  if (!s.ok) throw new Error(s.error.message);
  return s.value;
}

describe('baseline record on the refusal battery strong sample writes the boundary sweep', () => {
  let strong: RunSummary;
  let sweep: BoundarySweep;
  let baselineFile: unknown;

  beforeAll(async () => {
    const run = await runCli([
      'run',
      '--corpus',
      'fixtures/corpora/refusal_battery.yaml',
      '--run',
      'fixtures/runs/refusal_battery.strong.json',
      '--out',
      at('strong.json'),
    ]);
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(1); // the strong sample misses one refusal (col-customer-age)
    const rec = await runCli(['baseline', 'record', '--report', at('strong.json'), '--out', at('baseline.json')]);
    expect(rec.code).toBe(0);
    expect(rec.stdout).toContain(`Boundary sweep written to ${at('baseline.sweep.json')}`);
    expect(rec.stdout).toContain('they are not measured deployment failure probabilities');
    strong = JSON.parse(readFileSync(at('strong.json'), 'utf8')).summary;
    baselineFile = JSON.parse(readFileSync(at('baseline.json'), 'utf8'));
    sweep = JSON.parse(readFileSync(at('baseline.sweep.json'), 'utf8'));
  }, 180_000);

  it('covers the three gated figures, k = 0..n on the baseline arm sizes, with the seed caveats', () => {
    expect(sweep.figures.map((f) => [f.figure, f.n, f.observed_misses])).toEqual([
      ['answer_accuracy', strong.answer_accuracy.total, strong.answer_accuracy.total - strong.answer_accuracy.correct],
      ['refusal_recall', 40, 40 - strong.refusal_recall.declined],
      ['over_refusal', 20, strong.over_refusal.declined],
    ]);
    for (const f of sweep.figures)
      expect(f.table.map((r) => r.k)).toEqual(Array.from({ length: f.n + 1 }, (_, k) => k));
    expect(sweep.caveats).toContain('Zero observed misses do not prove zero population risk.');
    expect(sweep.caveats).toContain('The sweep does not prove a narrower tolerance is unavailable.');
    expect(sweep.grid).toEqual([...SWEEP_GRID]);
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(BOUNDARY_SWEEP_SCHEMA);
    expect(validate(sweep), JSON.stringify(validate.errors)).toBe(true);
  });

  it('pass/block at every k is the decision of the gate run on a run with k misses', () => {
    const parsed = parseBaseline(baselineFile);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const disagreements: string[] = [];
    for (const f of sweep.figures) {
      for (const row of f.table) {
        const gate = applyGate(withMisses(strong, f.figure, row.k), parsed.value);
        const status = gate.checks.find((c) => c.name === (f.figure as GateCheckName))!.status;
        if (status !== row.decision)
          disagreements.push(`${f.figure} k=${row.k}: sweep ${row.decision}, gate ${status}`);
      }
    }
    expect(disagreements).toEqual([]);
    // The seed's boundary for a perfect 40-case arm: three misses fit, the fourth blocks.
    const perfect = boundarySweep(
      { ...parsed.value, figures: { ...parsed.value.figures, refusal_recall: { declined: 40, total: 40 } } },
      parsed.value.policy,
    );
    expect(perfect.figures[1]!.max_passing_misses).toBe(3);
  });

  it('the projection is 1 at p = 0 and never rises with p', () => {
    for (const f of sweep.figures) {
      expect(f.projection[0]).toMatchObject({ p: '0', pass_probability: '1.000000', pass_probability_value: 1 });
      for (let i = 1; i < f.projection.length; i++)
        expect(f.projection[i]!.pass_probability_value).toBeLessThanOrEqual(
          f.projection[i - 1]!.pass_probability_value,
        );
    }
  });
});

describe('passProbability (exact binomial CDF)', () => {
  it('is exactly 1 at p = 0, 0 at p = 1 below n, and strictly decreasing in exact arithmetic', () => {
    for (const [n, K] of [
      [40, 3],
      [20, 3],
      [64, 1],
      [5, 0],
    ] as const) {
      expect(passProbability(n, K, rat(0))).toEqual(rat(1));
      expect(passProbability(n, K, rat(1))).toEqual(rat(0));
      let prev = rat(1);
      for (const p of SWEEP_GRID.slice(1)) {
        const now = passProbability(n, K, fromDecimal(p)!);
        expect(cmp(now, prev)).toBe(-1);
        prev = now;
      }
    }
  });

  it('agrees with a floating-point sum', () => {
    const float = (n: number, K: number, p: number) => {
      let s = 0;
      let c = 1;
      for (let k = 0; k <= K; k++) {
        s += c * p ** k * (1 - p) ** (n - k);
        c = (c * (n - k)) / (k + 1);
      }
      return s;
    };
    expect(toNumber(passProbability(40, 3, rat(1, 10)))).toBeCloseTo(float(40, 3, 0.1), 12);
    expect(toNumber(passProbability(20, 3, rat(3, 20)))).toBeCloseTo(float(20, 3, 0.15), 12);
  });

  it('an empty arm is not gated, and a baseline made of synthetic counts sweeps the same way', () => {
    const s = summary(mixCases({ correct: 10, wrong: 0 }));
    const b = recordBaseline(s, { date: '2026-07-20' });
    if (!b.ok) throw new Error(b.error.message);
    const sw = boundarySweep(b.value, b.value.policy);
    expect(sw.figures[1]).toMatchObject({
      figure: 'refusal_recall',
      n: 0,
      max_passing_misses: null,
      table: [],
      projection: [],
    });
    expect(sw.figures[0]).toMatchObject({ n: 10, max_passing_misses: 0 });
  });
});
