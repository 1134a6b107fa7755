/** The per-case figures the results page's histograms show, read from the case reports. */
import type { CaseReport } from '../../../core/run/grade-run.ts';
import { binLinear, binLog2, type Bins } from '../charts/histogram.ts';

export interface Distribution {
  key: 'overall' | 'structure' | 'result' | 'time_ratio';
  title: string;
  values: (c: CaseReport) => number | null;
  bins: (values: number[]) => Bins;
  edgeLabel?: (e: number) => string;
}

/** Candidate over reference execution time: the performance score when measured, else the two timings of the validity section. */
function timeRatio(c: CaseReport): number | null {
  const r = c.report;
  if (!r) return null;
  if (r.performance_scores?.execution_time_ratio != null) return r.performance_scores.execution_time_ratio;
  const a = r.validity.execution_time_actual_ms;
  const e = r.validity.execution_time_expected_ms;
  return a !== null && e !== null && a > 0 && e > 0 && r.validity.expected_source === 'executed' ? a / e : null;
}

const ratioLabel = (e: number) => (e >= 1 ? `${e}×` : `1/${Math.round(1 / e)}×`);

export const DISTRIBUTIONS: Distribution[] = [
  {
    key: 'overall',
    title: 'Overall score',
    values: (c) => c.report?.overall_score ?? null,
    bins: (v) => binLinear(v, 0, 1, 10),
  },
  {
    key: 'structure',
    title: 'Structure score',
    values: (c) => c.report?.structure_score ?? null,
    bins: (v) => binLinear(v, 0, 1, 10),
  },
  {
    key: 'result',
    title: 'Result score',
    values: (c) => c.report?.result_score ?? null,
    bins: (v) => binLinear(v, 0, 1, 10),
  },
  {
    key: 'time_ratio',
    title: 'Execution time ratio (candidate / reference, log scale)',
    values: timeRatio,
    bins: (v) => binLog2(v, -4, 4),
    edgeLabel: ratioLabel,
  },
];

export function valuesOf(cases: readonly CaseReport[], d: Distribution): number[] {
  return cases.flatMap((c) => {
    const v = d.values(c);
    return v === null || !Number.isFinite(v) ? [] : [v];
  });
}
