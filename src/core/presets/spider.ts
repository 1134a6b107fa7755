/**
 * The `spider` policy preset: the execution match of Spider's official
 * test-suite evaluator (taoyds/test-suite-sql-eval, `exec_eval.py` and its
 * `evaluation.py` driver), reimplemented from its documented behaviour:
 *
 * - the prediction's `value` becomes `1` (the driver's value plug);
 * - `> =`, `< =`, `! =` are closed up, and `YEAR(CURDATE())` becomes 2020;
 * - unless keep-distinct, every bare word DISTINCT is dropped from both
 *   queries (also inside COUNT(DISTINCT x)), and only the first statement
 *   is kept (the official tokenizer reads the first statement only);
 * - rows are in order only when the gold text contains `order by`;
 * - two empty results are equal whatever their columns; otherwise the row
 *   counts and column counts must agree, and some permutation of the
 *   prediction's columns must make the results equal: as lists in order,
 *   else as bags of rows, with Python's value equality (1 = 1.0, '1' ≠ 1);
 * - a failing prediction is wrong; a failing gold is an error of the gold.
 *
 * Not reproduced: the test-suite's extra databases (one database per db_id,
 * as in Spider's own dev evaluation).
 */
import { tokenize } from '../sql/lexer.ts';
import type { ResultTable } from '../value/kind.ts';
import { pyRows, pyStrLess, rowKey, type PyRow } from './python-values.ts';

export interface SpiderOptions {
  /** `--keep_distinct`: compare with DISTINCT left in place. */
  keepDistinct?: boolean;
}

export interface SpiderPrepared {
  gold: string;
  pred: string;
  orderMatters: boolean;
  /** What the official preprocessing changed (for the report). */
  changes: string[];
}

/** Both queries as the official code runs them. */
export function spiderPrepare(gold: string, pred: string, options: SpiderOptions = {}): SpiderPrepared {
  const changes: string[] = [];
  let p = pred.replace(/value/g, '1');
  if (p !== pred) changes.push("the prediction's 'value' became '1'");
  p = postprocess(p);
  let g = postprocess(gold);
  if (!options.keepDistinct) {
    const rp = removeDistinct(p);
    const rg = removeDistinct(g);
    if (rp.removed || rg.removed) changes.push('DISTINCT removed');
    if (rp.truncated) changes.push('only the first statement of the prediction kept');
    p = rp.sql;
    g = rg.sql;
  }
  const yp = replaceCurYear(p);
  const yg = replaceCurYear(g);
  if (yp !== p || yg !== g) changes.push('YEAR(CURDATE()) became 2020');
  return { gold: yg, pred: yp, orderMatters: yg.toLowerCase().includes('order by'), changes };
}

function postprocess(q: string): string {
  return q.replaceAll('> =', '>=').replaceAll('< =', '<=').replaceAll('! =', '!=');
}

function replaceCurYear(q: string): string {
  return q.replace(/YEAR\s*\(\s*CURDATE\s*\(\s*\)\s*\)\s*/gi, '2020');
}

/**
 * Drop every bare word DISTINCT (strings, quoted names and comments are left
 * alone) and cut after the first top-level semicolon, as the official
 * tokenizer's first statement does.
 */
export function removeDistinct(sql: string): { sql: string; removed: number; truncated: boolean } {
  const tokens = tokenize(sql);
  let end = sql.length;
  let truncated = false;
  const semicolon = tokens.find((t) => t.type === 'punct' && t.raw === ';' && t.depth === 0);
  if (semicolon) {
    end = semicolon.end;
    truncated = tokens.some((t) => t.start >= semicolon.end);
  }
  let out = '';
  let at = 0;
  let removed = 0;
  for (const t of tokens) {
    if (t.start >= end) break;
    if (t.type === 'word' && t.upper === 'DISTINCT') {
      out += sql.slice(at, t.start);
      at = t.end;
      removed++;
    }
  }
  out += sql.slice(at, end);
  return { sql: out, removed, truncated };
}

function sortKey(v: { str: string; type: string }): string {
  return `${v.str}<class '${v.type}'>`;
}

/** A row's values sorted as Python's `sorted(row, key=lambda x: str(x) + str(type(x)))`. */
function unorderedRowKey(row: PyRow): string {
  return rowKey([...row].sort((a, b) => pyStrLess(sortKey(a), sortKey(b))));
}

function multisetEqual(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  const counts = new Map<string, number>();
  for (const k of a) counts.set(k, (counts.get(k) ?? 0) + 1);
  for (const k of b) {
    const n = counts.get(k) ?? 0;
    if (n === 0) return false;
    counts.set(k, n - 1);
  }
  return true;
}

function setEqual(a: string[], b: string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  if (sa.size !== sb.size) return false;
  for (const k of sa) if (!sb.has(k)) return false;
  return true;
}

export interface SpiderMatch {
  equal: boolean;
  /** Stable code of why not (or how: `empty_results`, `column_permutation`). */
  code: string;
  message: string;
}

/** result_eq of exec_eval.py: gold `a`, prediction `b`. */
export function spiderResultEq(gold: ResultTable, pred: ResultTable, orderMatters: boolean): SpiderMatch {
  const r1 = pyRows(gold);
  const r2 = pyRows(pred);
  if (r1.length === 0 && r2.length === 0)
    return { equal: true, code: 'empty_results', message: 'Both results are empty (equal whatever their columns).' };
  if (r1.length !== r2.length)
    return {
      equal: false,
      code: 'row_count',
      message: `The gold returns ${r1.length} row(s), the prediction ${r2.length}.`,
    };
  const cols = r1[0]!.length;
  if (r2[0]!.length !== cols)
    return {
      equal: false,
      code: 'column_count',
      message: `The gold returns ${cols} column(s), the prediction ${r2[0]!.length}.`,
    };
  const u1 = r1.map(unorderedRowKey);
  const u2 = r2.map(unorderedRowKey);
  const quick = orderMatters ? u1.every((k, i) => k === u2[i]) : setEqual(u1, u2);
  if (!quick)
    return {
      equal: false,
      code: 'values',
      message: orderMatters ? 'The rows differ (in order: the gold has ORDER BY).' : 'The rows differ.',
    };

  // A permutation of the prediction's columns that makes the results equal. Only
  // permutations whose every column's values all occur in the gold's column can
  // work (the official code prunes with a sample of rows; the survivors are the same).
  const goldSets = Array.from({ length: cols }, (_, i) => new Set(r1.map((row) => row[i]!.key)));
  const allowed = Array.from({ length: cols }, (_, i) => {
    const out: number[] = [];
    for (let j = 0; j < cols; j++) if (r2.every((row) => goldSets[i]!.has(row[j]!.key))) out.push(j);
    return out;
  });
  const k1 = r1.map(rowKey);
  const used = new Array<boolean>(cols).fill(false);
  const perm: number[] = [];
  const permuted = (): string[] => r2.map((row) => rowKey(perm.map((j) => row[j]!)));
  // Many interchangeable columns could make the search exponential (as in the official code): cap it.
  let budget = 20_000;
  const search = (i: number): boolean => {
    if (--budget < 0) return false;
    if (i === cols) {
      const k2 = permuted();
      return orderMatters ? k1.every((k, x) => k === k2[x]) : setEqual(k1, k2) && multisetEqual(k1, k2);
    }
    for (const j of allowed[i]!) {
      if (used[j]) continue;
      used[j] = true;
      perm.push(j);
      if (search(i + 1)) return true;
      perm.pop();
      used[j] = false;
    }
    return false;
  };
  if (search(0)) {
    const identity = perm.every((j, i) => j === i);
    return identity
      ? { equal: true, code: 'equal', message: 'The results are equal.' }
      : {
          equal: true,
          code: 'column_permutation',
          message: `Equal with the prediction's columns permuted (${perm.join(', ')}).`,
        };
  }
  if (budget < 0)
    return {
      equal: false,
      code: 'permutation_search_capped',
      message: 'Too many interchangeable columns: no column order was found within 20,000 tries.',
    };
  return {
    equal: false,
    code: orderMatters ? 'order' : 'values',
    message: orderMatters
      ? 'No column order makes the rows equal in order (the gold has ORDER BY).'
      : 'No column order makes the bags of rows equal.',
  };
}
