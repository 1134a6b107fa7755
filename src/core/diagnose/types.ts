/**
 * The shapes of layer 4's diagnosis: the source clauses a failure is
 * attributed to, the counterfactual results, the scores, findings and
 * per-column map the report carries, and the input the attribution reads.
 */
import type { ResultComparison } from '../result/types.ts';
import type { ClauseMatch } from '../structure/compare.ts';
import type { ClauseFeatures } from '../structure/features.ts';
import type { Query } from '../structure/ir.ts';
import type { Transplant } from './transplant.ts';

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
