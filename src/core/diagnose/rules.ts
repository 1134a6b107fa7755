/**
 * The attribution rules, in the order they run: each reads the evidence of a
 * failing case and adds the clauses it points at (or strengthens one a rule
 * before it found). The order is part of the result — a later rule may read
 * what an earlier one found — and is documented in docs/diagnostics.md.
 */
import type { EditItem } from '../structure/compare.ts';
import type { SourceClause } from './types.ts';
import {
  aggregateCalls,
  clamp,
  editsOf,
  readsSeveralSources,
  round,
  type AttributionEvidence,
  type Candidate,
} from './evidence.ts';
import { TRANSPLANT_LABEL, TRANSPLANT_SOURCE } from './transplant.ts';

type Rule = (ev: AttributionEvidence, candidates: Candidate[]) => void;

function add(
  candidates: Candidate[],
  clause: SourceClause,
  score: number,
  signals: string[],
  edits: EditItem[] = [],
  predicate: string[] = [],
): void {
  candidates.push({ clause, score: clamp(score), signals, edits, predicate, counterfactual: null });
}

/** Ordering: the bags agree, only the sequence differs. */
const ordering: Rule = (ev, candidates) => {
  if (ev.orderingOnly)
    add(
      candidates,
      'ordering',
      0.95,
      ['results agree as bags; only the row order differs'],
      editsOf(ev.clauseMatch, 'order_by'),
    );
};

/** Projection: missing, extra or transformed attributes with cardinality intact. */
const projection: Rule = (ev, candidates) => {
  const selectEdits = editsOf(ev.clauseMatch, 'select', 'distinct');
  const nonAggSelectEdits = selectEdits.filter(
    (e) => !ev.aggChanges.some((c) => e.text.includes(c.split(' became ')[0]!)),
  );
  let s = 0;
  const signals: string[] = [];
  const count = ev.result.schema_match.column_count;
  if (ev.columnCountDiffers) {
    s += 0.6;
    signals.push(
      `${count.actual} columns instead of ${count.expected}${ev.missingCols ? `, ${ev.missingCols} missing` : ''}${ev.extraCols ? `, ${ev.extraCols} extra` : ''}`,
    );
  }
  if (nonAggSelectEdits.length) {
    s += 0.25;
    signals.push('the SELECT list differs');
  }
  if (!ev.columnCountDiffers && ev.card.delta === 0 && ev.concentrated > 0 && ev.concentrated < ev.aligned) {
    s += 0.25;
    signals.push(`values differ in ${ev.concentrated} of ${ev.aligned} columns while the row count matches`);
  }
  if (s > 0) add(candidates, 'projection', s, signals, nonAggSelectEdits);
};

/** Two numbers one of which is the other rounded to 0–6 places. */
function roundedApart(expected: unknown, actual: unknown): boolean {
  const e = Number(expected);
  const a = Number(actual);
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
}

/** A call or cast that rounds: ROUND, TRUNC, FLOOR, CEIL, a formatting call, a cast to a decimal or integer type. */
const ROUNDING_SQL =
  /\b(?:round|trunc|truncate|floor|ceil|ceiling|format|printf|to_char)\s*\(|(?:::|\bas)\s*(?:decimal|numeric|int|integer|bigint|smallint)\b/i;

/**
 * Rounding: the differing values are one the other rounded (a presentation defect of the SELECT list). Every
 * differing pair must be, and one of the two queries must round: 30 against 29.6 from `COUNT(*) - 0.4` is
 * within rounding of each other, but no ROUND is missing.
 */
const rounding: Rule = (ev, candidates) => {
  const differing = ev.result.reasons.flatMap((r) => (r.code === 'value_mismatch' ? [r] : []));
  const { expectedSql, actualSql } = ev.input;
  if (
    differing.length > 0 &&
    differing.every((r) => roundedApart(r.expected, r.actual)) &&
    (ROUNDING_SQL.test(expectedSql ?? '') || ROUNDING_SQL.test(actualSql ?? ''))
  )
    add(
      candidates,
      'projection',
      0.75,
      ['the differing values are the same numbers rounded differently (a missing or extra ROUND in the SELECT list)'],
      editsOf(ev.clauseMatch, 'select', 'distinct'),
    );
};

/** Parser-free: the aggregate functions the two texts call differ (e.g. a rolling AVG became a SUM). */
const textAggregates: Rule = (ev) => {
  const { expectedSql, actualSql } = ev.input;
  if (ev.aggChanges.length || !expectedSql || !actualSql || ev.clauseMatch) return;
  const e = aggregateCalls(expectedSql);
  const a = aggregateCalls(actualSql);
  const names = new Set([...e.keys(), ...a.keys()]);
  const lost = [...names].filter((n) => (e.get(n) ?? 0) > (a.get(n) ?? 0));
  const gained = [...names].filter((n) => (a.get(n) ?? 0) > (e.get(n) ?? 0));
  if (lost.length && gained.length)
    ev.aggChanges.push(`${lost.join('/')} became ${gained.join('/')} (from the SQL text)`);
};

/** Aggregate function: SUM became AVG on the same argument. */
const aggregateFunction: Rule = (ev, candidates) => {
  if (!ev.aggChanges.length) return;
  const s = 0.55 + (ev.card.delta === 0 ? 0.25 : 0) + (ev.concentrated > 0 && ev.concentrated < ev.aligned ? 0.1 : 0);
  add(
    candidates,
    'aggregate_function',
    s,
    ev.aggChanges,
    editsOf(ev.clauseMatch, 'select', 'distinct').filter((e) => e.op === 'update'),
  );
};

/** Filters: WHERE/HAVING edits with one-sided row loss or gain. */
const filters: Rule = (ev, candidates) => {
  const filterEdits = editsOf(ev.clauseMatch, 'where', 'having');
  if (!filterEdits.length) return;
  let s = 0.45;
  const signals = ['the WHERE/HAVING predicates differ'];
  if (ev.rows.recall === 1 && ev.rows.precision < 1) {
    s += 0.3;
    signals.push('every reference row is present but extra rows appear (a filter is missing or too loose)');
  } else if (ev.rows.precision === 1 && ev.rows.recall < 1) {
    s += 0.3;
    signals.push('every candidate row is a reference row but some are missing (a filter is extra or too strict)');
  } else if (ev.card.delta !== 0) {
    s += 0.1;
    signals.push(`the row count differs by ${ev.card.delta}`);
  }
  add(
    candidates,
    'selection_predicate',
    s,
    signals,
    filterEdits,
    filterEdits.map((e) => e.text),
  );
};

/** Joins: topology or predicate changes, fan-out or compression (or a fan-out with no join edit to show for it). */
const joins: Rule = (ev, candidates) => {
  const joinEdits = editsOf(ev.clauseMatch, 'join');
  const { ratio } = ev;
  if (joinEdits.length) {
    let s = 0.45;
    const signals = ['the join graph differs'];
    if (ev.explosion) {
      s += 0.3;
      signals.push(ratio >= 2 ? `cardinality fans out ×${round(ratio)}` : `cardinality compresses to ×${round(ratio)}`);
    } else if (ev.card.delta !== 0) {
      s += 0.15;
      signals.push(`the row count differs by ${ev.card.delta}`);
    }
    add(candidates, 'join', s, signals, joinEdits);
  } else if (
    ev.explosion &&
    ratio >= 2 &&
    !editsOf(ev.clauseMatch, 'where', 'having').length &&
    !editsOf(ev.clauseMatch, 'group_by').length
  ) {
    // A join fans out by repeating rows; a finer grain produces new, distinct rows.
    // Repeated rows where neither query joins anything (e.g. UNION ALL for UNION, a missing DISTINCT) cannot come
    // from a join: they are duplicates the candidate does not remove.
    // Without both trees (parser blocked) a join cannot be ruled out.
    const mayJoin =
      !ev.input.expectedQuery ||
      !ev.input.actualQuery ||
      readsSeveralSources(ev.input.expectedQuery) ||
      readsSeveralSources(ev.input.actualQuery);
    if ((ev.input.actualDuplicateRows ?? 0) > 0 && mayJoin)
      add(candidates, 'join', 0.45, [
        `cardinality fans out ×${round(ratio)} with repeated rows (duplicated by a join?)`,
      ]);
    else if ((ev.input.actualDuplicateRows ?? 0) > 0)
      add(candidates, 'projection', 0.45, [
        `×${round(ratio)} as many rows, repeated, and neither query joins: duplicates are kept (DISTINCT, UNION vs UNION ALL)`,
      ]);
    else
      add(candidates, 'aggregation_grain', 0.45, [
        `×${round(ratio)} as many rows, all distinct: the result is at a finer grain`,
      ]);
  }
};

/** Grain: GROUP BY changes with aggregate drift or cardinality change. */
const grouping: Rule = (ev, candidates) => {
  const groupEdits = editsOf(ev.clauseMatch, 'group_by');
  if (!groupEdits.length) return;
  let s = 0.5;
  const signals = ['the GROUP BY keys differ'];
  if (ev.card.delta !== 0) {
    s += 0.3;
    signals.push(`${ev.card.actual_rows} groups instead of ${ev.card.expected_rows}`);
  }
  // The extra columns are the added grouping keys: the grain is the root, the projection follows it.
  const addedKeys = groupEdits.filter((e) => e.op === 'insert').length;
  if (addedKeys > 0 && ev.extraCols === addedKeys && ev.missingCols === 0) {
    s += 0.15;
    signals.push('the extra output columns are the added GROUP BY keys');
    const projectionCandidate = candidates.find((c) => c.clause === 'projection');
    if (projectionCandidate) projectionCandidate.score = clamp(projectionCandidate.score - 0.2);
  }
  add(candidates, 'aggregation_grain', s, signals, groupEdits);
};

/** Grain hidden in a CTE or derived table: one side aggregates in more steps than the other. */
const hiddenGrain: Rule = (ev, candidates) => {
  const { levels } = ev;
  if (!ev.input.expectedQuery || !ev.input.actualQuery || levels.expected === levels.actual || ev.aggChanges.length)
    return;
  const existing = candidates.find((c) => c.clause === 'aggregation_grain');
  const signal = `the reference aggregates in ${levels.expected} step(s), the candidate in ${levels.actual} (e.g. an average of per-order totals vs of line items)`;
  if (existing) {
    existing.score = clamp(existing.score + 0.2);
    existing.signals.push(signal);
  } else add(candidates, 'aggregation_grain', 0.6, [signal]);
};

/** Top-k: LIMIT/OFFSET changes, divergence at the truncation boundary. */
const topK: Rule = (ev, candidates) => {
  const limitEdits = editsOf(ev.clauseMatch, 'limit_offset');
  if (!limitEdits.length) return;
  const { card, rows } = ev;
  let s = 0.5;
  const signals = ['LIMIT/OFFSET differs'];
  const eLimit = typeof ev.input.expectedFeatures?.limit === 'number' ? ev.input.expectedFeatures.limit : null;
  const aLimit = typeof ev.input.actualFeatures?.limit === 'number' ? ev.input.actualFeatures.limit : null;
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
  add(candidates, 'top_k', s, signals, limitEdits);
};

/** Counterfactuals: a swap that makes the results agree is decisive. */
const counterfactualSwaps: Rule = (ev, candidates) => {
  const limitsDiffer = editsOf(ev.clauseMatch, 'limit_offset').length > 0;
  for (const cf of ev.input.counterfactuals) {
    if (!cf.executed || !cf.agrees) continue;
    let clause = TRANSPLANT_SOURCE[cf.transplant.clause] as SourceClause;
    if (clause === 'projection' && ev.aggChanges.length && !ev.columnCountDiffers) clause = 'aggregate_function';
    // ORDER BY and LIMIT travel together: a swap that fixes them is about the cut only when the LIMITs differ.
    if (cf.transplant.clause === 'order_limit' && !limitsDiffer) clause = 'ordering';
    const what =
      cf.transplant.direction === 'candidate_with_reference_clause'
        ? `using the reference's ${TRANSPLANT_LABEL[cf.transplant.clause]} in the candidate makes the results agree`
        : `using the candidate's ${TRANSPLANT_LABEL[cf.transplant.clause]} in the reference reproduces the candidate's result`;
    const existing = candidates.find((c) => c.clause === clause);
    if (existing) {
      existing.score = clamp(Math.max(existing.score, 0.7) + 0.25);
      existing.signals.push(what);
      existing.counterfactual ??= what;
    } else candidates.push({ clause, score: 0.85, signals: [what], edits: [], predicate: [], counterfactual: what });
  }
};

/** Nothing structural to point at (e.g. a parser-unsupported query): fall back on result shape. */
const resultShape: Rule = (ev, candidates) => {
  if (candidates.length > 0) return;
  const { rows } = ev;
  // Equal as sets, unequal as bags, and the parsed WHERE/HAVING alike: only how often rows repeat differs, which
  // no filter explains (a UNION for a UNION ALL, a DISTINCT added or dropped).
  const setsAgree = ev.result.result_equality_family.mode_details.set.pass;
  const filtersAlike = ev.clauseMatch !== null && !editsOf(ev.clauseMatch, 'where', 'having').length;
  if (ev.columnCountDiffers) add(candidates, 'projection', 0.5, ['the column count differs']);
  else if (setsAgree && filtersAlike)
    add(candidates, 'projection', 0.35, [
      'the results agree as sets; only how often rows repeat differs: duplicates are removed or kept (DISTINCT, UNION vs UNION ALL)',
    ]);
  else if (rows.recall === 1 && rows.precision < 1)
    add(candidates, 'selection_predicate', 0.35, ['extra rows: a filter may be missing']);
  else if (rows.precision === 1 && rows.recall < 1)
    add(candidates, 'selection_predicate', 0.35, ['missing rows: a filter may be too strict']);
  else if (ev.card.delta === 0 && ev.concentrated > 0)
    add(candidates, 'projection', 0.3, ['same rows, different values in some columns']);
};

export const ATTRIBUTION_RULES: readonly Rule[] = [
  ordering,
  projection,
  rounding,
  textAggregates,
  aggregateFunction,
  filters,
  joins,
  grouping,
  hiddenGrain,
  topK,
  counterfactualSwaps,
  resultShape,
];
