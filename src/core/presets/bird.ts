/**
 * The `bird` policy preset: BIRD's execution accuracy (EX), reimplemented
 * from its evaluation script's behaviour: both queries run, and the
 * prediction is right when the *sets* of result rows are equal (row order and
 * duplicates ignored, column order significant), with Python's value equality
 * (1 = 1.0, '1' ≠ 1). A query that fails or times out scores 0.
 */
import type { ResultTable } from '../value/kind.ts';
import { pyRows, rowKey } from './python-values.ts';

export interface BirdMatch {
  equal: boolean;
  code: string;
  message: string;
}

export function birdResultEq(gold: ResultTable, pred: ResultTable): BirdMatch {
  const g = new Set(pyRows(gold).map(rowKey));
  const p = new Set(pyRows(pred).map(rowKey));
  if (g.size === 0 && p.size === 0) return { equal: true, code: 'empty_results', message: 'Both results are empty.' };
  let missing = 0;
  for (const k of g) if (!p.has(k)) missing++;
  let extra = 0;
  for (const k of p) if (!g.has(k)) extra++;
  if (missing === 0 && extra === 0) return { equal: true, code: 'equal', message: 'The sets of rows are equal.' };
  return {
    equal: false,
    code: 'row_set',
    message: `As sets of rows: ${missing} gold row(s) missing from the prediction, ${extra} row(s) not in the gold.`,
  };
}

/**
 * BIRD mini-dev's Soft-F1: both results deduplicated, rows paired by
 * position, each pair scored by the share of the gold row's cells the
 * predicted row holds (column order ignored); unpaired rows count fully
 * against. Two empty results score 1; a failing query 0. (BIRD pairs rows in
 * Python's set order, which depends on hashing; here each result keeps its
 * own first-occurrence order, so a run is reproducible.)
 */
export function birdSoftF1(gold: ResultTable, pred: ResultTable): number {
  const dedup = (t: ResultTable) => {
    const seen = new Set<string>();
    return pyRows(t).filter((r) => {
      const k = rowKey(r);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  };
  const g = dedup(gold);
  const p = dedup(pred);
  if (g.length === 0 && p.length === 0) return 1;
  let tp = 0;
  let fp = 0;
  let fn = 0;
  g.forEach((gr, i) => {
    const pr = p[i];
    if (!pr) {
      fn += 1;
      return;
    }
    const gKeys = new Set(gr.map((v) => v.key));
    const pKeys = new Set(pr.map((v) => v.key));
    const n = gr.length || 1;
    tp += pr.filter((v) => gKeys.has(v.key)).length / n;
    fp += pr.filter((v) => !gKeys.has(v.key)).length / n;
    fn += gr.filter((v) => !pKeys.has(v.key)).length / n;
  });
  fp += Math.max(0, p.length - g.length);
  const precision = tp + fp > 0 ? tp / (tp + fp) : 0;
  const recall = tp + fn > 0 ? tp / (tp + fn) : 0;
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
}

/** BIRD's clean_abnormal: keep the ratios strictly within mean ± 3 standard deviations (all of them when none is). */
export function cleanAbnormal(values: number[]): number[] {
  if (values.length === 0) return [];
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const std = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length);
  const kept = values.filter((x) => x < mean + 3 * std && x > mean - 3 * std);
  // With identical ratios (std 0) BIRD's strict bounds keep nothing and it divides by zero; keep them all.
  return kept.length ? kept : values;
}

/** R-VES reward of a correct prediction from its time ratio (gold time / prediction time); 0 when wrong. */
export function rvesReward(timeRatio: number): number {
  if (timeRatio === 0) return 0;
  if (timeRatio >= 2) return 1.25;
  if (timeRatio >= 1) return 1;
  if (timeRatio >= 0.5) return 0.75;
  if (timeRatio >= 0.25) return 0.5;
  return 0.25;
}
