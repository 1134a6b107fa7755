/**
 * What the attribution rules read (rules.ts): the result comparison's
 * figures and the structural edits of one failing case, gathered once.
 */
import type { ClauseMatch, EditItem } from '../structure/compare.ts';
import { childQueries, type Query } from '../structure/ir.ts';
import type { ClauseFeatures } from '../structure/features.ts';
import type { ResultComparison } from '../result/types.ts';
import type { ColumnMismatchEntry, DiagnoseInput, SourceClause } from './types.ts';

export const round = (x: number) => Math.round(x * 1000) / 1000;
export const clamp = (x: number) => Math.max(0, Math.min(1, x));

/** A clause the evidence points at, with the signals and edits behind it. */
export interface Candidate {
  clause: SourceClause;
  score: number;
  signals: string[];
  edits: EditItem[];
  predicate: string[];
  counterfactual: string | null;
}

export interface AttributionEvidence {
  input: DiagnoseInput;
  result: ResultComparison;
  clauseMatch: ClauseMatch | null;
  map: ColumnMismatchEntry[];
  card: ResultComparison['cardinality_match'];
  rows: ResultComparison['row_overlap'];
  /** Actual rows per expected row (Infinity when only the expected result is empty). */
  ratio: number;
  explosion: boolean;
  orderingOnly: boolean;
  columnCountDiffers: boolean;
  missingCols: number;
  extraCols: number;
  /** Aligned columns, and those of them with differing values. */
  aligned: number;
  concentrated: number;
  sharedAttr: number | null;
  levels: { expected: number; actual: number };
  /** Aggregate calls that changed (the text-only rule may add one, read by the rules after it). */
  aggChanges: string[];
}

export function gatherEvidence(input: DiagnoseInput, map: ColumnMismatchEntry[]): AttributionEvidence {
  const { result } = input;
  const card = result.cardinality_match;
  const family = result.result_equality_family;
  const ratio =
    card.expected_rows === 0 ? (card.actual_rows === 0 ? 1 : Infinity) : card.actual_rows / card.expected_rows;
  const aligned = map.filter((c) => c.status === 'aligned').length;
  const levels = { expected: groupingLevels(input.expectedQuery), actual: groupingLevels(input.actualQuery) };
  return {
    input,
    result,
    clauseMatch: input.clauseMatch,
    map,
    card,
    rows: result.row_overlap,
    ratio,
    explosion: !family.mode_pass && Math.max(card.expected_rows, card.actual_rows) >= 2 && (ratio >= 2 || ratio <= 0.5),
    // Seed 001: "caused solely by tuple ordering" — the bags agree and row order is the only
    // reason the selected mode failed (exact mode also fails on names and kinds).
    orderingOnly:
      !family.mode_pass &&
      family.mode_details['order-insensitive'].pass &&
      result.reasons.length > 0 &&
      result.reasons.every((r) => r.code === 'order_violation'),
    columnCountDiffers: !result.schema_match.column_count.equal,
    missingCols: result.column_alignment.missing_expected_columns.length,
    extraCols: result.column_alignment.extra_actual_columns.length,
    aligned,
    concentrated: map.filter((c) => c.status === 'aligned' && c.mismatch_rate > 0).length,
    sharedAttr: aligned
      ? round(map.filter((c) => c.status === 'aligned' && c.mismatch_rate === 0).length / Math.max(aligned, 1))
      : null,
    levels,
    // When one side aggregates in more steps, a changed measure follows from the grain, not from the function.
    aggChanges: aggregateChanges(input.expectedFeatures, input.actualFeatures, levels.expected === levels.actual),
  };
}

/** Aggregate function names called in the SQL text, as a multiset (a lexical signal that needs no parser). */
export function aggregateCalls(sql: string): Map<string, number> {
  const out = new Map<string, number>();
  const text = sql.replace(/'(?:[^']|'')*'/g, "''").replace(/--[^\n]*/g, '');
  for (const m of text.matchAll(
    /\b(sum|avg|count|min|max|median|stddev|stddev_samp|stddev_pop|variance|mode|string_agg|group_concat|total)\s*\(/gi,
  )) {
    const name = m[1]!.toUpperCase();
    out.set(name, (out.get(name) ?? 0) + 1);
  }
  return out;
}

/** How many SELECTs group (GROUP BY, or aggregate without GROUP BY), at any depth: CTEs, derived tables, subqueries. */
export function groupingLevels(query: Query | null | undefined): number {
  if (!query) return 0;
  if (query.kind === 'setop')
    return (
      query.arms.reduce((n, q) => n + groupingLevels(q), 0) +
      (query.with?.ctes.reduce((n, c) => n + groupingLevels(c.query), 0) ?? 0)
    );
  let n = query.groupBy.length > 0 ? 1 : 0;
  for (const c of query.with?.ctes ?? []) n += groupingLevels(c.query);
  for (const f of query.from) if (f.source.kind === 'derived') n += groupingLevels(f.source.query);
  const exprs = [
    ...query.columns.map((c) => c.expr),
    ...(query.where ? [query.where] : []),
    ...(query.having ? [query.having] : []),
  ];
  for (const e of exprs) for (const q of childQueries(e)) n += groupingLevels(q);
  return n;
}

/** A query joins: some SELECT, at any depth (CTEs, derived tables, set-operator arms, subqueries), reads several FROM items. */
export function readsSeveralSources(query: Query): boolean {
  const ctes = query.with?.ctes.some((c) => readsSeveralSources(c.query)) ?? false;
  if (query.kind === 'setop') return ctes || query.arms.some(readsSeveralSources);
  if (ctes || query.from.length > 1) return true;
  for (const f of query.from) if (f.source.kind === 'derived' && readsSeveralSources(f.source.query)) return true;
  const exprs = [
    ...query.columns.map((c) => c.expr),
    ...(query.where ? [query.where] : []),
    ...(query.having ? [query.having] : []),
  ];
  return exprs.some((e) => childQueries(e).some(readsSeveralSources));
}

export function editsOf(m: ClauseMatch | null, ...clauses: string[]): EditItem[] {
  if (!m) return [];
  return m.edits.filter((e) => clauses.includes(e.clause) && e.op !== 'keep' && e.op !== 'move');
}

function aggregateChanges(e: ClauseFeatures | null, a: ClauseFeatures | null, sameFunctionMeasures = true): string[] {
  if (!e || !a) return [];
  const out: string[] = [];
  type Call = { func: string; distinct: boolean; args: string[]; over?: string; text?: string };
  const key = (args: string[]) => args.join(', ');
  const call = (x: Call) => x.text ?? `${x.func}(${x.distinct ? 'DISTINCT ' : ''}${key(x.args)})`;
  // The same function over the same argument under the same window (plain aggregates have none).
  const same = (x: Call, y: Call) =>
    x.func === y.func && key(x.args) === key(y.args) && x.distinct === y.distinct && x.over === y.over;
  // Window aggregates (SUM(x) OVER ...) count too: a rolling AVG that became a rolling SUM is an aggregate error.
  // Their argument and OVER clause are read apart from the function name, so that AVG(x) OVER w → SUM(x) OVER w
  // is found as the same argument under another function, and SUM(x) OVER w1 → SUM(x) OVER w2 (only the
  // window changed) is not reported as an aggregate function change.
  const windowCalls = (f: ClauseFeatures): Call[] =>
    f.windows.map((w) => ({ func: w.func, distinct: false, args: w.args, over: w.over, text: w.expr }));
  const exp: Call[] = [...e.aggregates, ...windowCalls(e)];
  const act: Call[] = [...a.aggregates, ...windowCalls(a)];
  const unmatched = act.filter((x) => !exp.some((y) => same(x, y)));
  for (const agg of exp) {
    if (act.some((x) => same(x, agg))) continue;
    const sameArgs = unmatched.find((x) => key(x.args) === key(agg.args) && x.over === agg.over);
    if (sameArgs) {
      out.push(`${call(agg)} became ${call(sameArgs)}`);
      continue;
    }
    // The same function over a different measure (e.g. a COALESCE lost inside SUM).
    // Only when both measures read some of the same columns: a renamed CTE column is not a changed measure.
    const columnsOf = (args: string[]) =>
      new Set(args.join(' ').match(/[A-Za-z_][\w]*\.[A-Za-z_][\w]*|\b[a-z_][a-z0-9_]*\b/g) ?? []);
    const shares = (x: string[], y: string[]) => {
      const a = columnsOf(x);
      return [...columnsOf(y)].some(
        (c) =>
          a.has(c) &&
          !/^(coalesce|ifnull|nullif|round|cast|case|when|then|else|end|and|or|not|null|distinct)$/i.test(c),
      );
    };
    const sameFunc = unmatched.find(
      (x) =>
        x.func === agg.func &&
        x.distinct === agg.distinct &&
        x.over === agg.over &&
        key(x.args) !== key(agg.args) &&
        shares(x.args, agg.args),
    );
    if (sameFunctionMeasures && sameFunc && e.aggregates.length === a.aggregates.length)
      out.push(`${call(agg)} became ${call(sameFunc)}`);
  }
  return out;
}
