/**
 * Layer 4, diagnostic attribution: turn structural edits and result evidence
 * (and counterfactual executions) into clause-attributed error scores, a
 * likely source clause with confidence, and plain-language findings. The
 * rules are deterministic and documented in docs/diagnostics.md.
 */
import type { ClauseMatch, EditItem } from '../structure/compare.ts';
import { childQueries, type Query } from '../structure/ir.ts';
import type { ClauseFeatures } from '../structure/features.ts';
import type { ResultComparison } from '../result/types.ts';
import { TRANSPLANT_LABEL, TRANSPLANT_SOURCE, type Transplant } from './transplant.ts';

export const SOURCE_CLAUSES = [
  'projection',
  'selection_predicate',
  'join',
  'aggregation_grain',
  'aggregate_function',
  'ordering',
  'top_k',
] as const;
export type SourceClause = (typeof SOURCE_CLAUSES)[number];

export type EvidenceStrength = 'low' | 'medium' | 'high';

export interface CounterfactualResult {
  transplant: Transplant;
  /** The swapped query ran. */
  executed: boolean;
  /** candidate_with_reference_clause: its result equals the reference's; reverse: equals the candidate's. */
  agrees: boolean;
  error?: string;
}

export interface Finding {
  likely_source_clause: SourceClause;
  score: number;
  confidence: number;
  evidence_strength: EvidenceStrength;
  ambiguous_case: boolean;
  explanation: string;
  evidence: {
    cardinality_delta: number | null;
    shared_attribute_overlap: number | null;
    predicate_diff_summary: string[];
    edits: string[];
    counterfactual: string | null;
  };
}

export interface DiagnosticScores {
  projection_error_score: number;
  filter_error_score: number;
  join_error_score: number;
  grouping_error_score: number;
  aggregate_function_error_score: number;
  limit_topk_error_score: number;
  ordering_error_flag: boolean;
  cardinality_explosion_flag: boolean;
  likely_source_clause: SourceClause | null;
  confidence: number;
  evidence_strength: EvidenceStrength | null;
  ambiguous_case: boolean;
  /** Corroborating signals behind the primary attribution. */
  evidence_count: number;
}

export interface ColumnMismatchEntry {
  column: string;
  status: 'aligned' | 'missing' | 'extra';
  mismatch_rate: number;
  severity: 'none' | 'low' | 'high';
  mismatched: number;
  compared: number;
  null_mismatches: number;
  type_mismatches: number;
}

export interface Diagnosis {
  diagnostic_scores: DiagnosticScores;
  findings: Finding[];
  per_column_mismatch_map: ColumnMismatchEntry[];
}

export interface DiagnoseInput {
  result: ResultComparison;
  clauseMatch: ClauseMatch | null;
  expectedFeatures: ClauseFeatures | null;
  actualFeatures: ClauseFeatures | null;
  counterfactuals: CounterfactualResult[];
  orderMatters: boolean;
  /** Both SQL texts: a parser-free signal when the structural layer is blocked. */
  expectedSql?: string;
  actualSql?: string;
  /** Both trees, for signals inside CTEs and derived tables. */
  expectedQuery?: Query | null;
  actualQuery?: Query | null;
  /** Rows of the actual result that repeat an earlier row (join fan-out duplicates rows; a finer grain does not). */
  actualDuplicateRows?: number;
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

const round = (x: number) => Math.round(x * 1000) / 1000;
const clamp = (x: number) => Math.max(0, Math.min(1, x));

function editsOf(m: ClauseMatch | null, ...clauses: string[]): EditItem[] {
  if (!m) return [];
  return m.edits.filter((e) => clauses.includes(e.clause) && e.op !== 'keep' && e.op !== 'move');
}

function aggregateChanges(e: ClauseFeatures | null, a: ClauseFeatures | null, sameFunctionMeasures = true): string[] {
  if (!e || !a) return [];
  const out: string[] = [];
  const key = (args: string[]) => args.join(', ');
  const call = (x: { func: string; distinct: boolean; args: string[] }) =>
    `${x.func}(${x.distinct ? 'DISTINCT ' : ''}${key(x.args)})`;
  const same = (x: { func: string; distinct: boolean; args: string[] }, y: typeof x) =>
    x.func === y.func && key(x.args) === key(y.args) && x.distinct === y.distinct;
  // Window aggregates (SUM(x) OVER ...) count too: a rolling AVG that became a rolling SUM is an aggregate error.
  const windowCalls = (f: ClauseFeatures) =>
    f.windows.map((w) => ({ func: w.func.toUpperCase(), distinct: false, args: [w.expr] }));
  const exp = [...e.aggregates, ...windowCalls(e)];
  const act = [...a.aggregates, ...windowCalls(a)];
  const unmatched = act.filter((x) => !exp.some((y) => same(x, y)));
  for (const agg of exp) {
    if (act.some((x) => same(x, agg))) continue;
    const sameArgs = unmatched.find((x) => key(x.args) === key(agg.args));
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
      (x) => x.func === agg.func && x.distinct === agg.distinct && shares(x.args, agg.args),
    );
    if (sameFunctionMeasures && sameFunc && e.aggregates.length === a.aggregates.length)
      out.push(`${call(agg)} became ${call(sameFunc)}`);
  }
  return out;
}

export function perColumnMismatchMap(result: ResultComparison): ColumnMismatchEntry[] {
  return result.per_column.map((c) => ({
    column: c.expected_name ?? c.actual_name ?? '?',
    status: c.status,
    mismatch_rate: round(c.mismatch_rate),
    severity: c.mismatch_rate === 0 ? 'none' : c.mismatch_rate < 0.5 ? 'low' : 'high',
    mismatched: c.mismatched,
    compared: c.compared,
    null_mismatches: c.null_mismatches,
    type_mismatches: c.type_mismatches,
  }));
}

/** Attribute a failing comparison. A passing one gets zero scores and no source clause. */
export function diagnose(input: DiagnoseInput): Diagnosis {
  const { result, clauseMatch } = input;
  const map = perColumnMismatchMap(result);
  const card = result.cardinality_match;
  const family = result.result_equality_family;
  const orderingOnly = !family.mode_pass && family.mode_details['order-insensitive'].pass;
  const ratio =
    card.expected_rows === 0 ? (card.actual_rows === 0 ? 1 : Infinity) : card.actual_rows / card.expected_rows;
  const explosion =
    !family.mode_pass && Math.max(card.expected_rows, card.actual_rows) >= 2 && (ratio >= 2 || ratio <= 0.5);
  const scores: DiagnosticScores = {
    projection_error_score: 0,
    filter_error_score: 0,
    join_error_score: 0,
    grouping_error_score: 0,
    aggregate_function_error_score: 0,
    limit_topk_error_score: 0,
    ordering_error_flag: orderingOnly,
    cardinality_explosion_flag: explosion,
    likely_source_clause: null,
    confidence: 0,
    evidence_strength: null,
    ambiguous_case: false,
    evidence_count: 0,
  };
  if (family.mode_pass) return { diagnostic_scores: scores, findings: [], per_column_mismatch_map: map };

  const rows = result.row_overlap;
  const columnCountDiffers = !result.schema_match.column_count.equal;
  const missingCols = result.column_alignment.missing_expected_columns.length;
  const extraCols = result.column_alignment.extra_actual_columns.length;
  const concentrated = map.filter((c) => c.status === 'aligned' && c.mismatch_rate > 0).length;
  const aligned = map.filter((c) => c.status === 'aligned').length;
  const sharedAttr = aligned
    ? round(map.filter((c) => c.status === 'aligned' && c.mismatch_rate === 0).length / Math.max(aligned, 1))
    : null;
  const levels = { expected: groupingLevels(input.expectedQuery), actual: groupingLevels(input.actualQuery) };
  // When one side aggregates in more steps, a changed measure follows from the grain, not from the function.
  const aggChanges = aggregateChanges(input.expectedFeatures, input.actualFeatures, levels.expected === levels.actual);

  interface Candidate {
    clause: SourceClause;
    score: number;
    signals: string[];
    edits: EditItem[];
    predicate: string[];
    counterfactual: string | null;
  }
  const candidates: Candidate[] = [];
  const add = (
    clause: SourceClause,
    score: number,
    signals: string[],
    edits: EditItem[] = [],
    predicate: string[] = [],
  ) => candidates.push({ clause, score: clamp(score), signals, edits, predicate, counterfactual: null });

  // Ordering: the bags agree, only the sequence differs.
  if (orderingOnly)
    add('ordering', 0.95, ['results agree as bags; only the row order differs'], editsOf(clauseMatch, 'order_by'));

  // Projection: missing, extra or transformed attributes with cardinality intact.
  const selectEdits = editsOf(clauseMatch, 'select', 'distinct');
  const nonAggSelectEdits = selectEdits.filter(
    (e) => !aggChanges.some((c) => e.text.includes(c.split(' became ')[0]!)),
  );
  {
    let s = 0;
    const signals: string[] = [];
    if (columnCountDiffers) {
      s += 0.6;
      signals.push(
        `${result.schema_match.column_count.actual} columns instead of ${result.schema_match.column_count.expected}${missingCols ? `, ${missingCols} missing` : ''}${extraCols ? `, ${extraCols} extra` : ''}`,
      );
    }
    if (nonAggSelectEdits.length) {
      s += 0.25;
      signals.push('the SELECT list differs');
    }
    if (!columnCountDiffers && card.delta === 0 && concentrated > 0 && concentrated < aligned) {
      s += 0.25;
      signals.push(`values differ in ${concentrated} of ${aligned} columns while the row count matches`);
    }
    if (s > 0) add('projection', s, signals, nonAggSelectEdits);
  }

  // Rounding: the differing values are one the other rounded (a presentation defect of the SELECT list).
  const rounding = result.reasons.some((r) => {
    if (r.code !== 'value_mismatch') return false;
    const e = Number(r.expected);
    const a = Number(r.actual);
    if (!Number.isFinite(e) || !Number.isFinite(a) || e === a) return false;
    for (let k = 0; k <= 6; k++) {
      const f = 10 ** k;
      if (
        Math.abs(Math.round(a * f) / f - e) < 1e-9 * Math.max(1, Math.abs(e)) ||
        Math.abs(Math.round(e * f) / f - a) < 1e-9 * Math.max(1, Math.abs(a))
      )
        return true;
    }
    return false;
  });
  if (rounding)
    add(
      'projection',
      0.75,
      ['the differing values are the same numbers rounded differently (a missing or extra ROUND in the SELECT list)'],
      selectEdits,
    );

  // Parser-free: the aggregate functions the two texts call differ (e.g. a rolling AVG became a SUM).
  if (!aggChanges.length && input.expectedSql && input.actualSql && !clauseMatch) {
    const e = aggregateCalls(input.expectedSql);
    const a = aggregateCalls(input.actualSql);
    const names = new Set([...e.keys(), ...a.keys()]);
    const lost = [...names].filter((n) => (e.get(n) ?? 0) > (a.get(n) ?? 0));
    const gained = [...names].filter((n) => (a.get(n) ?? 0) > (e.get(n) ?? 0));
    if (lost.length && gained.length)
      aggChanges.push(`${lost.join('/')} became ${gained.join('/')} (from the SQL text)`);
  }

  // Aggregate function: SUM became AVG on the same argument.
  if (aggChanges.length) {
    const s = 0.55 + (card.delta === 0 ? 0.25 : 0) + (concentrated > 0 && concentrated < aligned ? 0.1 : 0);
    add(
      'aggregate_function',
      s,
      aggChanges,
      selectEdits.filter((e) => e.op === 'update'),
    );
  }

  // Filters: WHERE/HAVING edits with one-sided row loss or gain.
  const filterEdits = editsOf(clauseMatch, 'where', 'having');
  if (filterEdits.length) {
    let s = 0.45;
    const signals = ['the WHERE/HAVING predicates differ'];
    if (rows.recall === 1 && rows.precision < 1) {
      s += 0.3;
      signals.push('every reference row is present but extra rows appear (a filter is missing or too loose)');
    } else if (rows.precision === 1 && rows.recall < 1) {
      s += 0.3;
      signals.push('every candidate row is a reference row but some are missing (a filter is extra or too strict)');
    } else if (card.delta !== 0) {
      s += 0.1;
      signals.push(`the row count differs by ${card.delta}`);
    }
    add(
      'selection_predicate',
      s,
      signals,
      filterEdits,
      filterEdits.map((e) => e.text),
    );
  }

  // Joins: topology or predicate changes, fan-out or compression.
  const joinEdits = editsOf(clauseMatch, 'join');
  if (joinEdits.length) {
    let s = 0.45;
    const signals = ['the join graph differs'];
    if (explosion) {
      s += 0.3;
      signals.push(ratio >= 2 ? `cardinality fans out ×${round(ratio)}` : `cardinality compresses to ×${round(ratio)}`);
    } else if (card.delta !== 0) {
      s += 0.15;
      signals.push(`the row count differs by ${card.delta}`);
    }
    add('join', s, signals, joinEdits);
  } else if (explosion && ratio >= 2 && !filterEdits.length && !editsOf(clauseMatch, 'group_by').length) {
    // A join fans out by repeating rows; a finer grain produces new, distinct rows.
    if ((input.actualDuplicateRows ?? 0) > 0)
      add('join', 0.45, [`cardinality fans out ×${round(ratio)} with repeated rows (duplicated by a join?)`]);
    else
      add('aggregation_grain', 0.45, [`×${round(ratio)} as many rows, all distinct: the result is at a finer grain`]);
  }

  // Grain: GROUP BY changes with aggregate drift or cardinality change.
  const groupEdits = editsOf(clauseMatch, 'group_by');
  if (groupEdits.length) {
    let s = 0.5;
    const signals = ['the GROUP BY keys differ'];
    if (card.delta !== 0) {
      s += 0.3;
      signals.push(`${card.actual_rows} groups instead of ${card.expected_rows}`);
    }
    // The extra columns are the added grouping keys: the grain is the root, the projection follows it.
    const addedKeys = groupEdits.filter((e) => e.op === 'insert').length;
    if (addedKeys > 0 && extraCols === addedKeys && missingCols === 0) {
      s += 0.15;
      signals.push('the extra output columns are the added GROUP BY keys');
      const projection = candidates.find((c) => c.clause === 'projection');
      if (projection) projection.score = clamp(projection.score - 0.2);
    }
    add('aggregation_grain', s, signals, groupEdits);
  }

  // Grain hidden in a CTE or derived table: one side aggregates in more steps than the other.
  if (input.expectedQuery && input.actualQuery && levels.expected !== levels.actual && !aggChanges.length) {
    const existing = candidates.find((c) => c.clause === 'aggregation_grain');
    const signal = `the reference aggregates in ${levels.expected} step(s), the candidate in ${levels.actual} (e.g. an average of per-order totals vs of line items)`;
    if (existing) {
      existing.score = clamp(existing.score + 0.2);
      existing.signals.push(signal);
    } else add('aggregation_grain', 0.6, [signal]);
  }

  // Top-k: LIMIT/OFFSET changes, divergence at the truncation boundary.
  const limitEdits = editsOf(clauseMatch, 'limit_offset');
  if (limitEdits.length) {
    let s = 0.5;
    const signals = ['LIMIT/OFFSET differs'];
    const eLimit = typeof input.expectedFeatures?.limit === 'number' ? input.expectedFeatures.limit : null;
    const aLimit = typeof input.actualFeatures?.limit === 'number' ? input.actualFeatures.limit : null;
    if (
      eLimit !== null &&
      aLimit !== null &&
      card.actual_rows === Math.min(aLimit, card.actual_rows) &&
      card.delta === aLimit - eLimit
    ) {
      s += 0.35;
      signals.push(`the row counts differ by exactly the LIMIT difference (${eLimit} → ${aLimit})`);
    } else if (rows.precision === 1 || rows.recall === 1) {
      s += 0.2;
      signals.push('one result is a prefix-like subset of the other');
    }
    // The cut itself: the side with the LIMIT returns exactly LIMIT rows, all of them shared.
    const cutActual = aLimit !== null && card.actual_rows === aLimit && rows.precision === 1 && rows.recall < 1;
    const cutExpected = eLimit !== null && card.expected_rows === eLimit && rows.recall === 1 && rows.precision < 1;
    if (cutActual || cutExpected) {
      s += 0.25;
      signals.push(
        `the divergence sits at the LIMIT ${cutActual ? aLimit : eLimit} boundary (rows past the cut, e.g. ties, are dropped or added)`,
      );
    }
    add('top_k', s, signals, limitEdits);
  }

  // Counterfactuals: a swap that makes the results agree is decisive.
  for (const cf of input.counterfactuals) {
    if (!cf.executed || !cf.agrees) continue;
    let clause = TRANSPLANT_SOURCE[cf.transplant.clause] as SourceClause;
    if (clause === 'projection' && aggChanges.length && !columnCountDiffers) clause = 'aggregate_function';
    // ORDER BY and LIMIT travel together: a swap that fixes them is about the cut only when the LIMITs differ.
    if (cf.transplant.clause === 'order_limit' && limitEdits.length === 0) clause = 'ordering';
    const what =
      cf.transplant.direction === 'candidate_with_reference_clause'
        ? `using the reference's ${TRANSPLANT_LABEL[cf.transplant.clause]} in the candidate makes the results agree`
        : `using the candidate's ${TRANSPLANT_LABEL[cf.transplant.clause]} in the reference reproduces the candidate's result`;
    const existing = candidates.find((c) => c.clause === clause);
    if (existing) {
      existing.score = clamp(Math.max(existing.score, 0.7) + 0.25);
      existing.signals.push(what);
      existing.counterfactual ??= what;
    } else {
      candidates.push({ clause, score: 0.85, signals: [what], edits: [], predicate: [], counterfactual: what });
    }
  }

  // Nothing structural to point at (e.g. a parser-unsupported query): fall back on result shape.
  if (candidates.length === 0) {
    if (columnCountDiffers) add('projection', 0.5, ['the column count differs']);
    else if (rows.recall === 1 && rows.precision < 1)
      add('selection_predicate', 0.35, ['extra rows: a filter may be missing']);
    else if (rows.precision === 1 && rows.recall < 1)
      add('selection_predicate', 0.35, ['missing rows: a filter may be too strict']);
    else if (card.delta === 0 && concentrated > 0)
      add('projection', 0.3, ['same rows, different values in some columns']);
  }

  for (const c of candidates) {
    if (c.clause === 'projection')
      scores.projection_error_score = Math.max(scores.projection_error_score, round(c.score));
    if (c.clause === 'selection_predicate')
      scores.filter_error_score = Math.max(scores.filter_error_score, round(c.score));
    if (c.clause === 'join') scores.join_error_score = Math.max(scores.join_error_score, round(c.score));
    if (c.clause === 'aggregation_grain')
      scores.grouping_error_score = Math.max(scores.grouping_error_score, round(c.score));
    if (c.clause === 'aggregate_function')
      scores.aggregate_function_error_score = Math.max(scores.aggregate_function_error_score, round(c.score));
    if (c.clause === 'top_k') scores.limit_topk_error_score = Math.max(scores.limit_topk_error_score, round(c.score));
  }
  candidates.sort((a, b) => b.score - a.score || SOURCE_CLAUSES.indexOf(a.clause) - SOURCE_CLAUSES.indexOf(b.clause));
  const findings: Finding[] = candidates.map((c, i) => {
    const strength: EvidenceStrength = c.counterfactual ? 'high' : c.signals.length >= 2 ? 'medium' : 'low';
    const ambiguous = i === 0 && candidates.length > 1 && candidates[1]!.score >= c.score - 0.1 && !c.counterfactual;
    return {
      likely_source_clause: c.clause,
      score: round(c.score),
      confidence: round(c.counterfactual ? Math.max(0.9, c.score) : c.score * 0.85),
      evidence_strength: strength,
      ambiguous_case: ambiguous,
      explanation: explain(c.clause, c.signals, c.edits),
      evidence: {
        cardinality_delta: card.delta,
        shared_attribute_overlap: sharedAttr,
        predicate_diff_summary: c.predicate,
        edits: c.edits.map((e) => e.text),
        counterfactual: c.counterfactual,
      },
    };
  });
  const primary = findings[0];
  if (primary) {
    scores.likely_source_clause = primary.likely_source_clause;
    scores.confidence = primary.confidence;
    scores.evidence_strength = primary.evidence_strength;
    scores.ambiguous_case = primary.ambiguous_case;
    scores.evidence_count = candidates[0]!.signals.length;
  }
  return { diagnostic_scores: scores, findings, per_column_mismatch_map: map };
}

const CLAUSE_WORDS: Record<SourceClause, string> = {
  projection: 'The SELECT list (projection)',
  selection_predicate: 'A filter (WHERE/HAVING)',
  join: 'The joins',
  aggregation_grain: 'The grouping (GROUP BY grain)',
  aggregate_function: 'An aggregate function',
  ordering: 'The row order (ORDER BY)',
  top_k: 'The top-k cut (LIMIT/OFFSET)',
};

function explain(clause: SourceClause, signals: string[], edits: EditItem[]): string {
  const editText = edits.slice(0, 3).map((e) => e.text);
  return `${CLAUSE_WORDS[clause]} is the likely cause: ${[...signals, ...editText].join('; ')}.`;
}
