import { describe, expect, it } from 'vitest';
import { classifyOutcome, type ClassifyInput } from '../../src/core/gate/outcome.ts';
import { summarizeRun } from '../../src/core/gate/summary.ts';
import { wilson } from '../../src/core/gate/interval.ts';
import { computeBreakdowns } from '../../src/core/gate/breakdowns.ts';
import { checkReportSummary } from '../../src/core/gate/report-file.ts';
import { toMarkdown } from '../../src/core/gate/export/markdown.ts';
import { CORPUS, RUN, mixCases, summary } from './build.ts';
import { EVERY_OUTCOME } from './cases.ts';

describe('classifyOutcome (SPEC 4 grading)', () => {
  it.each<[Partial<ClassifyInput>, string]>([
    [{ arm: 'must_refuse', declined: true }, 'correct_refusal'],
    [{ arm: 'must_refuse', declined: false, sql: 'SELECT 1' }, 'missed_refusal'],
    [{ arm: 'must_refuse', declined: false, sql: null }, 'no_query'],
    [{ arm: 'must_answer', hasReference: true, declined: true, sql: 'SELECT 1' }, 'over_refusal'],
    [{ arm: 'must_answer', hasReference: true, declined: false, sql: 'SELECT 1', deterministicPass: true }, 'correct'],
    [{ arm: 'must_answer', hasReference: true, declined: false, sql: 'SELECT 1', deterministicPass: false }, 'wrong'],
    [{ arm: 'must_answer', hasReference: true, declined: false, sql: '   ' }, 'no_query'],
    [{ hasReference: true, declined: true, sql: null }, 'declined_unarmed'],
    [{ hasReference: true, declined: false, sql: undefined }, 'no_query'],
    [{ hasReference: true, declined: false, sql: 'SELECT 1', deterministicPass: true }, 'correct'],
    [{ hasReference: true, declined: false, sql: 'SELECT 1' }, 'wrong'],
  ])('%j → %s', (input, expected) => {
    expect(classifyOutcome({ hasReference: false, declined: false, sql: null, ...input })).toEqual({
      ok: true,
      value: expected,
    });
  });

  it('refuses to grade an answer with nothing to grade it against', () => {
    expect(classifyOutcome({ hasReference: false, declined: false, sql: 'SELECT 1' }).ok).toBe(false);
    expect(classifyOutcome({ hasReference: false, arm: 'must_answer', declined: false, sql: 'SELECT 1' }).ok).toBe(
      false,
    );
  });
});

describe('summarizeRun on a hand-made set covering every outcome', () => {
  const s = summary(EVERY_OUTCOME, { version: 3 });

  it('counts every outcome', () => {
    expect(s.outcomes).toEqual({
      correct: 2,
      wrong: 2,
      no_query: 2,
      correct_refusal: 1,
      missed_refusal: 2,
      over_refusal: 1,
      declined_unarmed: 1,
      broken_reference: 0,
    });
    expect(s.corpus).toEqual({ name: 'battery', version: 3, size: 11, sha256: 'a'.repeat(64) });
    expect(s.run).toEqual({ agent: 'agent-x', model: 'luna-2', path: 'governed', created_at: '2026-07-01T00:00:00Z' });
  });

  it('measures answer accuracy on the answer set, with the split of its failures', () => {
    expect(s.answer_accuracy).toEqual({
      correct: 2,
      total: 7,
      rate: 2 / 7,
      ci95: wilson(2, 7),
      wrong: 2,
      no_query: 1,
      over_refusal: 1,
      declined_unarmed: 1,
    });
  });

  it('reports both refusal arms with counts, stratified as counts, naming every miss', () => {
    expect(s.refusal_recall).toEqual({
      declined: 1,
      total: 4,
      rate: 0.25,
      ci95: wilson(1, 4),
      missed_ids: ['r2', 'r3', 'r4'],
      missed_refusal_ids: ['r2', 'r3'],
      no_query_ids: ['r4'],
      strata: [
        { stratum: 'out_of_schema', total: 1, declined: 0, answered: 1, no_query: 0 },
        { stratum: 'injection', total: 2, declined: 1, answered: 1, no_query: 0 },
        { stratum: 'ambiguous', total: 1, declined: 0, answered: 0, no_query: 1 },
      ],
    });
    expect(s.missed_refusals).toEqual(['r2', 'r3']);
    expect(s.over_refusal).toEqual({
      declined: 1,
      total: 3,
      rate: 1 / 3,
      ci95: wilson(1, 3),
      declined_ids: ['c2'],
      strata: [
        { stratum: 'control_scalar', total: 2, declined: 0, correct: 1, wrong: 1, no_query: 0 },
        { stratum: 'control_top_n', total: 1, declined: 1, correct: 0, wrong: 0, no_query: 0 },
      ],
    });
    // Counts only: no per-stratum rate anywhere.
    expect(JSON.stringify(s.refusal_recall.strata) + JSON.stringify(s.over_refusal.strata)).not.toContain('rate');
  });

  it('keeps the two denominators of the 2×2 apart', () => {
    expect(s.two_by_two).toEqual({
      answerable: {
        total: 7,
        returned: { correct: 2, wrong: 2 },
        declined: { over_refusal: { count: 1, of_must_answer: 3 }, declined_unarmed: { count: 1, of_unarmed: 4 } },
        no_query: 1,
      },
      unanswerable: { total: 4, returned: { missed_refusal: 2 }, declined: { correct_refusal: 1 }, no_query: 1 },
    });
    // declined_unarmed never enters the over-refusal rate
    expect(s.over_refusal.declined).toBe(1);
  });

  it('scores RS(c): +1 right, 0 abstained, −c wrong or fabricated', () => {
    expect(s.reliability).toEqual({ c: 1, sum: -1, mean: -1 / 11, cases: 11, plus: 3, zero: 4, minus: 4 });
    const half = summarizeRun(EVERY_OUTCOME, CORPUS, RUN, { reliabilityPenalty: 0.5 });
    expect(half.ok && half.value.reliability).toMatchObject({ c: 0.5, sum: 1, mean: 1 / 11 });
    expect(summarizeRun(EVERY_OUTCOME, CORPUS, RUN, { reliabilityPenalty: -1 }).ok).toBe(false);
  });

  it('computes RS(c) for a decimal c exactly, as written (no binary floating-point residue)', () => {
    // Three wrong answers at c = 0.1: 0 − 0.1 × 3 is −0.3, not −0.30000000000000004 (what the
    // exports printed as "sum -0.30000000000000004"); c = 0.7: 1 − 2.1 = −1.1, mean −1.1/4.
    const three = mixCases({ wrong: 3 });
    const a = summarizeRun(three, { ...CORPUS, size: 3 }, RUN, { reliabilityPenalty: 0.1 });
    expect(a.ok && a.value.reliability).toEqual({
      c: 0.1,
      sum: -0.3,
      mean: -0.1,
      cases: 3,
      plus: 0,
      zero: 0,
      minus: 3,
    });
    const b = summarizeRun(mixCases({ correct: 1, wrong: 3 }), { ...CORPUS, size: 4 }, RUN, {
      reliabilityPenalty: 0.7,
    });
    expect(b.ok && b.value.reliability).toMatchObject({ sum: -1.1, mean: -0.275 });
    if (!a.ok) throw new Error(a.error.message);
    expect(toMarkdown(a.value)).toContain('| Reliability RS(0.1) | sum -0.3 | mean -0.100 |');
    // A report written with the floating-point figures is still read; any other edit is still caught.
    const before = JSON.parse(JSON.stringify(a.value)) as typeof a.value;
    before.reliability = { ...before.reliability, sum: 0 - 0.1 * 3, mean: (0 - 0.1 * 3) / 3 };
    expect(before.reliability.sum).toBe(-0.30000000000000004);
    expect(checkReportSummary({ kind: 'run', summary: before }).ok).toBe(true);
    expect(
      checkReportSummary({ kind: 'run', summary: { ...before, reliability: { ...before.reliability, sum: -0.4 } } }).ok,
    ).toBe(false);
  });

  it('leaves a broken reference out of RS(c), as out of the accuracy (SPEC 4: a broken oracle is not graded)', () => {
    const broken = {
      ...EVERY_OUTCOME[0]!,
      id: 'g-broken',
      outcome: 'broken_reference' as const,
      reason_code: 'oracle.broken_reference',
    };
    const withBroken = summarizeRun([...EVERY_OUTCOME, broken], CORPUS, RUN);
    if (!withBroken.ok) throw new Error(withBroken.error.message);
    // The 11 graded cases score as before: sum −1 over 11 cases, not over 12 with the broken one scored 0.
    expect(withBroken.value.reliability).toEqual({
      c: 1,
      sum: -1,
      mean: -1 / 11,
      cases: 11,
      plus: 3,
      zero: 4,
      minus: 4,
    });
    expect(withBroken.value.answer_accuracy.total).toBe(s.answer_accuracy.total);
    // A report written while it still counted (cases 12, zero 5, mean −1/12) is read, not refused as edited.
    const before = JSON.parse(JSON.stringify(withBroken.value)) as typeof withBroken.value;
    before.reliability = { ...before.reliability, mean: -1 / 12, cases: 12, zero: 5 };
    before.breakdowns = computeBreakdowns(before.cases, true);
    expect(checkReportSummary({ kind: 'run', summary: before }).ok).toBe(true);
    expect(checkReportSummary({ kind: 'run', summary: withBroken.value }).ok).toBe(true);
    // Any other edit is still caught.
    expect(
      checkReportSummary({ kind: 'run', summary: { ...before, reliability: { ...before.reliability, cases: 13 } } }).ok,
    ).toBe(false);
  });

  it('builds the difficulty pyramid and the per-shape counts', () => {
    expect(s.difficulty_pyramid).toEqual([
      { difficulty: 'easy', total: 1, correct: 1 },
      { difficulty: 'medium', total: 1, correct: 0 },
      { difficulty: 'hard', total: 1, correct: 0 },
      { difficulty: 'extra', total: 1, correct: 0 },
      { difficulty: 'unrated', total: 3, correct: 1 },
    ]);
    expect(s.shapes.map((x) => [x.shape, x.total, x.correct, x.wrong])).toEqual([
      ['scalar', 3, 2, 1],
      ['group_by', 1, 0, 1],
      ['top_n', 1, 0, 0],
      ['time_series', 1, 0, 0],
      ['rows', 1, 0, 0],
    ]);
  });

  it('lists every failure with id, reason and query', () => {
    expect(s.failures.map((f) => f.id)).toEqual(['g2', 'g3', 'g4', 'r2', 'r3', 'r4', 'c2', 'c3']);
    expect(s.failures[0]).toEqual({
      id: 'g2',
      outcome: 'wrong',
      reason: 'Row count 3 ≠ reference 4, "quoted", comma',
      reason_code: 'result.row_count_mismatch',
      query: EVERY_OUTCOME[1]!.query,
      arm: null,
      stratum: null,
    });
    expect(s.failures.find((f) => f.id === 'g4')).toMatchObject({
      outcome: 'declined_unarmed',
      reason: 'Declined a graded question; scored as a failure.',
    });
    expect(s.failures.find((f) => f.id === 'g3')).toMatchObject({
      reason: 'No record for this case in the run.',
      reason_code: 'run.no_record',
      query: null,
    });
  });

  it('rejects inconsistent input instead of counting it', () => {
    const dup = summarizeRun([...EVERY_OUTCOME, EVERY_OUTCOME[0]!], CORPUS, RUN);
    expect(dup.ok).toBe(false);
    const wrongArm = summarizeRun([{ id: 'x', outcome: 'correct_refusal', query: null }], CORPUS, RUN);
    expect(wrongArm.ok).toBe(false);
    const missing = summarizeRun(EVERY_OUTCOME, { ...CORPUS, size: 12 }, RUN);
    expect(missing.ok).toBe(false);
  });
});
