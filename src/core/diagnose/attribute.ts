/**
 * Layer 4, diagnostic attribution: turn structural edits and result evidence
 * (and counterfactual executions) into clause-attributed error scores, a
 * likely source clause with confidence, and plain-language findings. The
 * rules are deterministic and documented in docs/diagnostics.md.
 */
import type { ClauseMatch, EditItem } from '../structure/compare.ts';
import type { Query } from '../structure/ir.ts';
import type { ClauseFeatures } from '../structure/features.ts';
import type { ResultComparison } from '../result/types.ts';
import { gatherEvidence, round, type AttributionEvidence, type Candidate } from './evidence.ts';
import { ATTRIBUTION_RULES } from './rules.ts';
import type { Transplant } from './transplant.ts';

export { aggregateCalls, groupingLevels } from './evidence.ts';

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

function findingOf(ev: AttributionEvidence, c: Candidate, i: number, candidates: Candidate[]): Finding {
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
