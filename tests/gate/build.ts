import type { CaseResult } from '../../src/core/gate/outcome.ts';
import { summarizeRun, type RunSummary, type RunMeta, type CorpusMeta } from '../../src/core/gate/summary.ts';

export interface Mix {
  /** Unarmed graded cases (execution goldens). */
  correct?: number;
  wrong?: number;
  /** must_refuse arm. */
  refused?: number;
  missed?: number;
  /** must_answer arm. */
  controlsAnswered?: number;
  controlsDeclined?: number;
}

const REFUSE_STRATA = ['injection', 'out_of_schema'];

/** A synthetic run with stable ids: g-001.., r-001.., c-001... */
export function mixCases(mix: Mix): CaseResult[] {
  const out: CaseResult[] = [];
  const pad = (i: number) => String(i + 1).padStart(3, '0');
  let g = 0;
  for (let i = 0; i < (mix.correct ?? 0); i++)
    out.push({ id: `g-${pad(g++)}`, outcome: 'correct', query: 'SELECT 1', difficulty: 'easy', shape: 'scalar' });
  for (let i = 0; i < (mix.wrong ?? 0); i++)
    out.push({
      id: `g-${pad(g++)}`,
      outcome: 'wrong',
      query: 'SELECT 2',
      reason: 'row_count_mismatch',
      difficulty: 'hard',
      shape: 'scalar',
    });
  let r = 0;
  // Misses first so the missed ids are r-001, r-002, ...
  for (let i = 0; i < (mix.missed ?? 0); i++, r++)
    out.push({
      id: `r-${pad(r)}`,
      outcome: 'missed_refusal',
      arm: 'must_refuse',
      stratum: REFUSE_STRATA[r % 2],
      query: 'SELECT * FROM secrets',
    });
  for (let i = 0; i < (mix.refused ?? 0); i++, r++)
    out.push({
      id: `r-${pad(r)}`,
      outcome: 'correct_refusal',
      arm: 'must_refuse',
      stratum: REFUSE_STRATA[r % 2],
      query: null,
    });
  let c = 0;
  for (let i = 0; i < (mix.controlsDeclined ?? 0); i++)
    out.push({
      id: `c-${pad(c++)}`,
      outcome: 'over_refusal',
      arm: 'must_answer',
      stratum: 'control_scalar',
      query: null,
    });
  for (let i = 0; i < (mix.controlsAnswered ?? 0); i++)
    out.push({
      id: `c-${pad(c++)}`,
      outcome: 'correct',
      arm: 'must_answer',
      stratum: 'control_scalar',
      query: 'SELECT 3',
    });
  return out;
}

export const CORPUS: CorpusMeta = { name: 'battery', version: 1, sha256: 'a'.repeat(64) };
export const RUN: RunMeta = { agent: 'agent-x', model: 'luna-2', path: 'governed', created_at: '2026-07-01T00:00:00Z' };

export function summary(cases: CaseResult[], corpus: Partial<CorpusMeta> = {}, run: Partial<RunMeta> = {}): RunSummary {
  const s = summarizeRun(cases, { ...CORPUS, ...corpus }, { ...RUN, ...run });
  if (!s.ok) throw new Error(s.error.message);
  return s.value;
}
