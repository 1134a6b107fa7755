/**
 * The case record: what one evaluation knows, built up stage by stage. Each
 * stage of `pipeline.ts` takes the record of the stage before and returns a
 * new, larger one; no stage writes into a value another stage produced.
 *
 *   CaseRecord     request, engine, dialect, comparison policy, clock, warnings so far
 *   Validated      + parsed pair (one parse per text, shared), structure, executions, result tables, validity
 *   Compared       + result comparison, ORDER BY key columns
 *   Tolerated      + structure after the production tolerances (safety LIMIT, default ORDER BY)
 *   Diagnosed      + counterfactual executions, diagnosis
 *   Measured       + performance scores (null unless enabled)
 *
 * See docs/architecture.md ("One evaluation, stage by stage").
 */
import type { CounterfactualResult, Diagnosis } from '../diagnose/types.ts';
import { sha256Text } from '../digest/sha256.ts';
import type { Engine, ExecuteOutcome, QueryResult } from '../engine.ts';
import type { EvaluationReport, Validity, Warning } from '../report/report.ts';
import type { ComparisonConfig } from '../result/config.ts';
import type { ResultComparison } from '../result/types.ts';
import type { NeighbourEvidence } from '../neighbours/types.ts';
import type { CrossEngineEvidence } from '../oracle/cross-engine.ts';
import type { ClauseFeatures } from '../structure/features.ts';
import type { Dialect } from '../structure/grammar.ts';
import type { ParseOutcome } from '../structure/parse.ts';
import type { StructuralComparison } from '../structure/structure.ts';
import type { ResultTable } from '../value/kind.ts';
import type { EvaluationConfig, EvaluationRequest } from './request.ts';

export interface Timings {
  parse: number;
  execute: number;
  compare: number;
  diagnose: number;
  judge: number;
  total: number;
}

export interface CaseRecord {
  request: EvaluationRequest;
  engine: Engine;
  config: EvaluationConfig;
  dialect: Dialect;
  /** The comparison policy of this case (order_matters turns order-insensitive into order-sensitive). */
  comparison: ComparisonConfig;
  orderMatters: boolean;
  /** The candidate SQL, null when there is none (blank counts as none). */
  actualSql: string | null;
  execOptions: { timeoutMs: number; maxRows: number; maxResultBytes?: number };
  configHash: string;
  now: () => number;
  started: number;
  timings: Timings;
  /** Warnings so far, in the order the stages raised them. */
  warnings: readonly Warning[];
  sampleRows: number;
}

/** Both sides as parsed (the cached parse), with their clause features. */
export interface ParsedPair {
  expected: ParseOutcome;
  actual: ParseOutcome | null;
  expectedFeatures: ClauseFeatures | null;
  actualFeatures: ClauseFeatures | null;
}

export interface Validated extends CaseRecord {
  parsed: ParsedPair;
  structure: StructuralComparison | null;
  runs: { expected: ExecuteOutcome | null; actual: ExecuteOutcome | null };
  tables: { expected: QueryResult | ResultTable | null; actual: QueryResult | ResultTable | null };
  validity: Validity;
}

/** A validated case whose two results exist (nothing blocked it). */
export interface Compared extends Validated {
  tables: { expected: QueryResult | ResultTable; actual: QueryResult | ResultTable };
  result: ResultComparison;
  pass: boolean;
  orderKeys: number[] | null;
  /** The neighbour stage's evidence (null or absent when neighbours are off or the case did not pass on the fixture). */
  neighbours?: NeighbourEvidence | null;
  /** Both queries on the other engine (config.cross_engine), when it ran. */
  crossEngine?: CrossEngineEvidence;
}

export interface Tolerated extends Compared {
  /** structure_score after the tolerances (null when the structure is blocked). */
  structureScore: number | null;
  clauseMatch: StructuralComparison['clause_match'];
}

export interface Diagnosed extends Tolerated {
  counterfactuals: CounterfactualResult[];
  diagnosis: Diagnosis;
}

export interface Measured extends Diagnosed {
  performance: EvaluationReport['performance_scores'];
  /** Raised by the performance stage; reported after the result comparison's warnings. */
  performanceWarnings: readonly Warning[];
}

/** `include` only adds report sections; it does not change grading, so it is not part of the hash. */
async function configHashOf(config: EvaluationRequest['config']): Promise<string> {
  const { include: _include, ...gradingConfig } = config;
  const text = stableJson(gradingConfig);
  // A run has one configuration (or a few per-case ones): hash each text once, not per case.
  let hash = CONFIG_HASHES.get(text);
  if (!hash) {
    hash = sha256Text(text).then((h) => h.slice(0, 16));
    if (CONFIG_HASHES.size >= 256) CONFIG_HASHES.clear();
    CONFIG_HASHES.set(text, hash);
  }
  return hash;
}
const CONFIG_HASHES = new Map<string, Promise<string>>();

function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  return `{${Object.keys(value as object)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
    .join(',')}}`;
}

/** The record a case starts with: the request and its policy, nothing evaluated yet. */
export async function openCase(
  request: EvaluationRequest,
  engine: Engine,
  options: { dialect?: Dialect; clock?: () => number; sampleRows?: number },
): Promise<CaseRecord> {
  const now = options.clock ?? (() => Date.now());
  const started = now();
  const config = request.config;
  const warnings: Warning[] = [];
  const orderMatters = request.context.order_matters === true;
  const comparison: ComparisonConfig = {
    comparison_mode: config.comparison_mode,
    set_semantics: config.set_semantics,
    numeric_abs_tolerance: config.numeric_abs_tolerance,
    numeric_rel_tolerance: config.numeric_rel_tolerance,
    null_equality_mode: config.null_equality_mode,
    require_column_name_match: config.require_column_name_match,
    require_column_order_match: config.require_column_order_match,
    max_rows_for_cell_alignment: config.max_rows_for_cell_alignment,
  };
  if (orderMatters && comparison.comparison_mode === 'order-insensitive') {
    comparison.comparison_mode = 'order-sensitive';
    warnings.push({
      code: 'order_matters',
      message:
        'The case declares order_matters: rows are compared in order (ties in the ORDER BY keys may come in any order).',
    });
  }
  return {
    request,
    engine,
    config,
    dialect: options.dialect ?? (engine.name === 'sqlite' ? 'sqlite' : 'duckdb'),
    comparison,
    orderMatters,
    actualSql: request.actual_sql?.trim() ? request.actual_sql : null,
    execOptions: {
      timeoutMs: config.query_timeout_ms,
      maxRows: config.max_rows,
      ...(config.max_result_bytes !== undefined ? { maxResultBytes: config.max_result_bytes } : {}),
    },
    configHash: await configHashOf(config),
    now,
    started,
    timings: { parse: 0, execute: 0, compare: 0, diagnose: 0, judge: 0, total: 0 },
    warnings,
    sampleRows: options.sampleRows ?? 20,
  };
}
