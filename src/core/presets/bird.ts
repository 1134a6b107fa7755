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
  return { equal: false, code: 'row_set', message: `As sets of rows: ${missing} gold row(s) missing from the prediction, ${extra} row(s) not in the gold.` };
}
