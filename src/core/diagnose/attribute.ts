/**
 * Layer 4, diagnostic attribution: turn structural edits and result evidence
 * (and counterfactual executions) into clause-attributed error scores, a
 * likely source clause with confidence, and plain-language findings. The
 * rules are deterministic and documented in docs/diagnostics.md.
 */
import type { EditItem } from '../structure/compare.ts';
import type { ResultComparison } from '../result/types.ts';
import { gatherEvidence, round, type AttributionEvidence, type Candidate } from './evidence.ts';
import { ATTRIBUTION_RULES } from './rules.ts';
import {
  SOURCE_CLAUSES,
  type ColumnMismatchEntry,
  type DiagnoseInput,
  type Diagnosis,
  type DiagnosticScores,
  type EvidenceStrength,
  type Finding,
  type SourceClause,
} from './types.ts';

export { aggregateCalls, groupingLevels } from './evidence.ts';

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
  const map = perColumnMismatchMap(input.result);
  const ev = gatherEvidence(input, map);
  const scores: DiagnosticScores = {
    projection_error_score: 0,
    filter_error_score: 0,
    join_error_score: 0,
    grouping_error_score: 0,
    aggregate_function_error_score: 0,
    limit_topk_error_score: 0,
    ordering_error_flag: ev.orderingOnly,
    cardinality_explosion_flag: ev.explosion,
    likely_source_clause: null,
    confidence: 0,
    evidence_strength: null,
    ambiguous_case: false,
    evidence_count: 0,
  };
  if (input.result.result_equality_family.mode_pass)
    return { diagnostic_scores: scores, findings: [], per_column_mismatch_map: map };
  const candidates: Candidate[] = [];
  for (const rule of ATTRIBUTION_RULES) rule(ev, candidates);
  // Strongest first; ties in SOURCE_CLAUSES order.
  candidates.sort((a, b) => b.score - a.score || SOURCE_CLAUSES.indexOf(a.clause) - SOURCE_CLAUSES.indexOf(b.clause));
  const findings = candidates.map((c, i) => findingOf(ev, c, i, candidates));
  return { diagnostic_scores: scoresOf(scores, candidates, findings[0]), findings, per_column_mismatch_map: map };
}

const SCORE_OF: Partial<Record<SourceClause, keyof DiagnosticScores>> = {
  projection: 'projection_error_score',
  selection_predicate: 'filter_error_score',
  join: 'join_error_score',
  aggregation_grain: 'grouping_error_score',
  aggregate_function: 'aggregate_function_error_score',
  top_k: 'limit_topk_error_score',
};

/** Each clause's score is its strongest candidate's; the primary finding sets the rest. */
function scoresOf(base: DiagnosticScores, candidates: Candidate[], primary: Finding | undefined): DiagnosticScores {
  const scores = { ...base };
  const numeric = scores as unknown as Record<string, number>;
  for (const c of candidates) {
    const key = SCORE_OF[c.clause];
    if (key) numeric[key] = Math.max(numeric[key]!, round(c.score));
  }
  if (primary) {
    scores.likely_source_clause = primary.likely_source_clause;
    scores.confidence = primary.confidence;
    scores.evidence_strength = primary.evidence_strength;
    scores.ambiguous_case = primary.ambiguous_case;
    scores.evidence_count = candidates[0]!.signals.length;
  }
  return scores;
}

/**
 * ambiguous_case: the runner-up's score within 0.1 of the top one, the boundary included
 * (0.55 − 0.45 is 0.10000000000000003 in binary floats).
 */
export function withinAmbiguity(top: number, runnerUp: number): boolean {
  return top - runnerUp <= 0.1 + 1e-9;
}

function findingOf(ev: AttributionEvidence, c: Candidate, i: number, candidates: Candidate[]): Finding {
  const strength: EvidenceStrength = c.counterfactual ? 'high' : c.signals.length >= 2 ? 'medium' : 'low';
  const ambiguous =
    i === 0 && candidates.length > 1 && withinAmbiguity(c.score, candidates[1]!.score) && !c.counterfactual;
  return {
    likely_source_clause: c.clause,
    score: round(c.score),
    confidence: round(c.counterfactual ? Math.max(0.9, c.score) : c.score * 0.85),
    evidence_strength: strength,
    ambiguous_case: ambiguous,
    explanation: explain(c.clause, c.signals, c.edits),
    evidence: {
      cardinality_delta: ev.card.delta,
      shared_attribute_overlap: ev.sharedAttr,
      predicate_diff_summary: c.predicate,
      edits: c.edits.map((e) => e.text),
      counterfactual: c.counterfactual,
    },
  };
}

const CLAUSE_WORDS: Record<SourceClause, string> = {
  projection: 'The SELECT list (projection)',
  selection_predicate: 'A filter (WHERE/HAVING)',
  join: 'The join (FROM/JOIN)',
  aggregation_grain: 'The grouping (GROUP BY grain)',
  aggregate_function: 'An aggregate function',
  ordering: 'The row order (ORDER BY)',
  top_k: 'The top-k cut (LIMIT/OFFSET)',
};

function explain(clause: SourceClause, signals: string[], edits: EditItem[]): string {
  // An edit inside a nested query says where ("arm 2: JOIN is missing table `u`"): edits of two arms or
  // subqueries would otherwise read as one clause that both adds and loses the same item.
  const editText = edits.slice(0, 3).map((e) => (e.path?.length ? `${e.path.join(' › ')}: ${e.text}` : e.text));
  return `${CLAUSE_WORDS[clause]} is the likely cause: ${[...signals, ...editText].join('; ')}.`;
}
