/**
 * The evaluation report: the seed's Suggested Output Contract. Field names
 * are the seed's; the JSON Schema is `docs/report.schema.json`
 * (REPORT_VERSION), validated by the tests against every report they make.
 */
import type { CaseJudgment } from '../judge/index.ts';
import type { ColumnMismatchEntry, DiagnosticScores, Finding } from '../diagnose/types.ts';
import type { VerdictError, ErrorCategory } from '../errors.ts';
import type { NeighbourEvidence } from '../neighbours/types.ts';
import type { CrossEngineEvidence } from '../oracle/cross-engine.ts';
import type { ResultComparison } from '../result/types.ts';
import type { ResourceCost } from '../score/resource-cost.ts';
import type { Severity } from '../score/scoring.ts';
import type { StructuralComparison } from '../structure/structure.ts';
import type { JsonResultTable } from '../value/json-codec.ts';
import type { Intermediates } from './intermediates.ts';
import type { Warning } from './warning.ts';

export type { Warning } from './warning.ts';

/**
 * 1.1.0: `per_column_mismatch_map` (the seed's glossary name) replaces
 * `mismatch_map`, which stays as an identical alias in 1.1.x only;
 * `intermediates` on request.
 */
export const REPORT_VERSION = '1.1.0';
export const TOOL_VERSION = 'sql-verdict 0.1.0';

export type BlockedReason = 'parse_failure' | 'execution_failure' | 'no_query' | 'broken_reference' | null;

export interface Validity {
  parse_success_actual: boolean;
  parse_success_expected: boolean;
  /** The engine runs the SQL but the structural parser cannot parse it: structure is blocked, results are still compared. */
  parser_unsupported_actual: boolean;
  parser_unsupported_expected: boolean;
  execution_success_actual: boolean;
  execution_success_expected: boolean;
  execution_error_actual: (VerdictError & { category?: ErrorCategory }) | null;
  execution_error_expected: (VerdictError & { category?: ErrorCategory }) | null;
  execution_time_actual_ms: number | null;
  execution_time_expected_ms: number | null;
  normalized_sql_actual: string | null;
  normalized_sql_expected: string | null;
  /** Where results came from: executed now, or frozen in the request/corpus. */
  expected_source: 'executed' | 'frozen';
  actual_source: 'executed' | 'frozen' | 'none';
}

export interface CounterfactualEvidence {
  clause: string;
  direction: string;
  sql: string;
  executed: boolean;
  agrees: boolean;
  error?: string;
}

export interface EvaluationReport {
  report_version: string;
  id?: string;
  /** undecided: the result comparison ran out of a search budget (see result_equality_family.undecided); counted as not passing. */
  deterministic_verdict: 'pass' | 'fail' | 'undecided';
  ai_advisory_verdict: 'pass' | 'fail' | null;
  verdict_consistency_flag: boolean | null;
  overall_score: number;
  structure_score: number | null;
  result_score: number | null;
  diagnostic_scores: DiagnosticScores | null;
  performance_scores: {
    execution_time_ratio: number | null;
    /** Candidate work over reference work (see src/core/score/resource-cost.ts and docs/scoring.md). */
    resource_cost_score: number | null;
    /** The measures behind resource_cost_score, per side, and the basis used. */
    resource_cost?: ResourceCost;
    plan_complexity_score: number | null;
    plan_complexity_expected?: number | null;
    plan_operators_actual?: string[];
  } | null;
  severity: Severity;
  /** Plain-language sentences a reviewer can act on. */
  explanations: string[];
  /** Attribute-level mismatch rates and severity (seed 001, Layer 4). */
  per_column_mismatch_map: ColumnMismatchEntry[];
  /**
   * @deprecated The same array as per_column_mismatch_map, under its pre-1.1
   * name (the seed's output-contract shorthand); kept for report version
   * 1.1.x only.
   */
  mismatch_map: ColumnMismatchEntry[];
  /** Error taxonomy categories triggered during execution. */
  error_types: ErrorCategory[];
  blocked_reason: BlockedReason;
  warnings: Warning[];
  validity: Validity;
  evidence: {
    user_query: string;
    actual_sql: string | null;
    expected_sql: string;
    structure: StructuralComparison | null;
    result: ResultComparison | null;
    findings: Finding[];
    counterfactuals: CounterfactualEvidence[];
    /** Capped samples of both results, for the reader (and the judge). */
    expected_sample: (JsonResultTable & { total_rows: number }) | null;
    actual_sample: (JsonResultTable & { total_rows: number }) | null;
    /** Neighbour databases (config.neighbours): how many ran, and the counterexample of a coincidental match. */
    neighbours?: NeighbourEvidence;
    /** Both queries on the other engine (config.cross_engine). */
    cross_engine?: CrossEngineEvidence;
  };
  /** Only when requested (config.include: ["intermediates"]): trees, full result tables, schemas. */
  intermediates?: Intermediates;
  judge: CaseJudgment | null;
  run_metadata: {
    engine: string;
    engine_version: string;
    dialect: string;
    fixture: string | null;
    config_hash: string;
    config: Record<string, unknown>;
    timings_ms: { parse: number; execute: number; compare: number; diagnose: number; judge: number; total: number };
    tool_version: string;
  };
}

/** The report's fields in the contract's order; the schema requires all but OPTIONAL_REPORT_KEYS. */
export const REPORT_KEY_ORDER: readonly (keyof EvaluationReport)[] = [
  'report_version',
  'id',
  'deterministic_verdict',
  'ai_advisory_verdict',
  'verdict_consistency_flag',
  'overall_score',
  'structure_score',
  'result_score',
  'diagnostic_scores',
  'performance_scores',
  'severity',
  'explanations',
  'per_column_mismatch_map',
  'mismatch_map',
  'error_types',
  'blocked_reason',
  'warnings',
  'validity',
  'evidence',
  'intermediates',
  'judge',
  'run_metadata',
];

/** Fields the schema does not require: the case id (outside a corpus), the intermediates (when asked for), the judge. */
export const OPTIONAL_REPORT_KEYS: ReadonlySet<keyof EvaluationReport> = new Set(['id', 'intermediates', 'judge']);

/** The report with its fields in the contract's order (readable JSON; same content). */
export function orderReport(report: EvaluationReport): EvaluationReport {
  const out: Record<string, unknown> = {};
  for (const key of REPORT_KEY_ORDER) if (report[key] !== undefined) out[key] = report[key];
  return out as unknown as EvaluationReport;
}
