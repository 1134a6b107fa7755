/**
 * The report from the case record: the blocked report (precedence), the
 * optional performance stage, and the final synthesis (scores, severity,
 * explanations, evidence) in the seed's field order.
 */
import type { Diagnosed, Measured, Validated } from '../evaluation/case-record.ts';
import type { ErrorCategory } from '../errors.ts';
import { neighbourWarnings } from '../neighbours/stage.ts';
import { crossEngineWarnings, type CrossEngineEvidence } from '../oracle/cross-engine.ts';
import { resultVerdict } from '../result/types.ts';
import { queryResourceCost, resourceCost } from '../score/resource-cost.ts';
import { buildIntermediates } from './intermediates.ts';
import { failureSeverity, overallScore, resultScore, type Severity } from '../score/scoring.ts';
import { encodeResultTable } from '../value/json-codec.ts';
import type { ResultTable } from '../value/kind.ts';
import type { Blocked } from '../validation/validate.ts';
import {
  orderReport,
  REPORT_VERSION,
  TOOL_VERSION,
  type CounterfactualEvidence,
  type EvaluationReport,
  type Warning,
} from './report.ts';

/**
 * plan_complexity_score: a weighted count of expensive plan operators (seed:
 * full scans, hash joins, sorts, nested loops) — scans 1, hash joins 2,
 * nested loops and cross products 3, sorts and temp B-trees 1.5, grouping 1,
 * windows 1.5, anything else 0.5.
 */
export function planComplexity(operators: string[]): number {
  let score = 0;
  for (const op of operators) {
    if (/NESTED_LOOP|CROSS_PRODUCT|BLOCKWISE_NL|PIECEWISE_MERGE|CORRELATED/.test(op)) score += 3;
    else if (/HASH_JOIN|MERGE/.test(op)) score += 2;
    else if (/ORDER_BY|TOP_N|TEMP B-TREE|WINDOW/.test(op)) score += 1.5;
    else if (/SCAN/.test(op)) score += 1;
    else if (/GROUP_BY|AGGREGATE/.test(op)) score += 1;
    else score += 0.5;
  }
  return score;
}

/** The optional performance metrics (plans of both sides, time ratio). */
export async function performanceStage(d: Diagnosed): Promise<Measured> {
  if (!d.config.enable_performance_metrics) return { ...d, performance: null, performanceWarnings: [] };
  const warnings: Warning[] = [];
  const e = d.validity.execution_time_expected_ms;
  const a = d.validity.execution_time_actual_ms;
  const [planActual, planExpected] = await Promise.all([
    d.engine.explain(d.actualSql!),
    d.engine.explain(d.request.expected_sql),
  ]);
  // Measured cardinalities (EXPLAIN ANALYZE runs each query once more); the plain plans above keep plan_complexity the optimizer's.
  const [analyzedActual, analyzedExpected] = await Promise.all([
    d.engine.explain(d.actualSql!, { analyze: true }),
    d.engine.explain(d.request.expected_sql, { analyze: true }),
  ]);
  const cost = resourceCost(
    queryResourceCost(
      analyzedActual.ok ? analyzedActual.value : planActual.ok ? planActual.value : null,
      d.tables.actual!,
    ),
    queryResourceCost(
      analyzedExpected.ok ? analyzedExpected.value : planExpected.ok ? planExpected.value : null,
      d.tables.expected!,
    ),
  );
  const performance = {
    execution_time_ratio: e && a ? Math.round((a / e) * 1000) / 1000 : null,
    resource_cost_score: cost.resource_cost_score,
    resource_cost: cost,
    plan_complexity_score: planActual.ok ? planComplexity(planActual.value.operators) : null,
    plan_complexity_expected: planExpected.ok ? planComplexity(planExpected.value.operators) : null,
    plan_operators_actual: planActual.ok ? planActual.value.operators : [],
  };
  if (!planActual.ok)
    warnings.push({
      code: 'plan_unavailable',
      message: `No query plan for the candidate: ${planActual.error.message}`,
    });
  if (cost.basis === 'result_bytes')
    warnings.push({
      code: 'plan_stats_missing',
      message: `The ${d.engine.name} engine gives no operator cardinalities: resource_cost_score compares result bytes only.`,
    });
  if (e === null || a === null || e < 5 || a < 5)
    warnings.push({
      code: 'performance_noisy',
      message:
        'Execution times under 5 ms (or frozen results) are too noisy to compare: treat execution_time_ratio as indicative only.',
    });
  return { ...d, performance, performanceWarnings: warnings };
}

function sample(table: ResultTable | null, rows: number) {
  if (!table) return null;
  return {
    ...encodeResultTable({ columns: table.columns, rows: table.rows.slice(0, rows) }),
    total_rows: table.rows.length,
  };
}

/** Fields every report has, blocked or not. */
function common(v: Validated) {
  const validity = v.validity;
  const errorTypes = [validity.execution_error_expected?.category, validity.execution_error_actual?.category].filter(
    (c): c is ErrorCategory => c !== undefined,
  );
  return {
    report_version: REPORT_VERSION,
    ...(v.request.context.case_id ? { id: v.request.context.case_id } : {}),
    ai_advisory_verdict: null,
    verdict_consistency_flag: null,
    error_types: [...new Set(errorTypes)],
    validity,
    ...(v.config.include?.includes('intermediates')
      ? {
          intermediates: buildIntermediates({
            dialect: v.dialect,
            expectedParsed: v.parsed.expected,
            actualParsed: v.parsed.actual,
            expectedTable: v.tables.expected,
            actualTable: v.tables.actual,
          }),
        }
      : {}),
    judge: null,
  };
}

function evidenceBase(v: Validated) {
  return {
    user_query: v.request.user_query,
    actual_sql: v.request.actual_sql,
    expected_sql: v.request.expected_sql,
    structure: v.structure,
    findings: [],
    counterfactuals: [],
    expected_sample: sample(v.tables.expected, v.sampleRows),
    actual_sample: sample(v.tables.actual, v.sampleRows),
  };
}

async function metadata(v: Validated): Promise<EvaluationReport['run_metadata']> {
  return {
    engine: v.engine.name,
    engine_version: await v.engine.version(),
    dialect: v.dialect,
    fixture: v.request.context.fixture ?? null,
    config_hash: v.configHash,
    config: { ...v.config } as Record<string, unknown>,
    timings_ms: { ...v.timings, total: v.now() - v.started },
    tool_version: TOOL_VERSION,
  };
}

/** A case stopped by the precedence rules: a critical failure with its reason. */
export async function assembleBlocked(
  v: Validated,
  blocked: Blocked,
  /** config.cross_engine: the candidate asked of the other engines all the same (oracle/stage.ts blockedCrossEngine). */
  crossEngine: CrossEngineEvidence | null = null,
): Promise<EvaluationReport> {
  // The evidence samples are taken before the metadata's clock reading, as in the one-piece pipeline.
  const evidence = { ...evidenceBase(v), result: null, ...(crossEngine ? { cross_engine: crossEngine } : {}) };
  return orderReport({
    ...common(v),
    // A broken reference gives no verdict on the candidate.
    deterministic_verdict: blocked.reason === 'broken_reference' ? ('undecided' as const) : ('fail' as const),
    overall_score: 0,
    structure_score: v.structure?.structure_score ?? null,
    result_score: null,
    diagnostic_scores: null,
    performance_scores: null,
    severity: 'critical failure' as Severity,
    explanations: [blocked.explanation],
    per_column_mismatch_map: [],
    mismatch_map: [],
    blocked_reason: blocked.reason,
    warnings: [...v.warnings, ...(crossEngine ? crossEngineWarnings(crossEngine) : [])],
    evidence,
    run_metadata: await metadata(v),
  });
}

function explanationsOf(m: Measured): string[] {
  const { result, comparison, clauseMatch } = m;
  const explanations: string[] = [];
  if (m.pass) {
    const rows = result.cardinality_match.expected_rows;
    const actualRows = result.cardinality_match.actual_rows;
    // Under set semantics the counts may differ (duplicates do not count): name both, so the count
    // is never read as the candidate's.
    const counted =
      actualRows === rows
        ? `${rows} row${rows === 1 ? '' : 's'}`
        : `${rows} row${rows === 1 ? '' : 's'} in the reference, ${actualRows} in the candidate: the same distinct rows`;
    explanations.push(
      `The candidate's result matches the reference under ${comparison.comparison_mode}${comparison.set_semantics ? ' (set semantics)' : ''} comparison (${counted}).`,
    );
    if (m.structure && clauseMatch && !clauseMatch.match)
      explanations.push(
        `It is written differently: ${clauseMatch.edits
          .slice(0, 3)
          .map((e) => e.text)
          .join('; ')}.`,
      );
  } else {
    for (const reason of result.reasons.slice(0, 4)) explanations.push(reason.message);
    for (const finding of m.diagnosis.findings.slice(0, 2)) explanations.push(finding.explanation);
  }
  return explanations;
}

/** The final synthesis of a case nothing blocked. */
export async function assemble(m: Measured): Promise<EvaluationReport> {
  const { result, diagnosis } = m;
  const rScore = resultScore(result);
  const report: EvaluationReport = {
    ...common(m),
    deterministic_verdict: resultVerdict(result),
    overall_score: overallScore(m.pass, rScore, m.structureScore, diagnosis.diagnostic_scores),
    structure_score: m.structureScore,
    result_score: rScore,
    diagnostic_scores: diagnosis.diagnostic_scores,
    performance_scores: m.performance,
    severity: m.pass ? 'pass' : failureSeverity(result, diagnosis.diagnostic_scores),
    explanations: explanationsOf(m),
    per_column_mismatch_map: diagnosis.per_column_mismatch_map,
    mismatch_map: diagnosis.per_column_mismatch_map,
    blocked_reason: null,
    warnings: [...m.warnings, ...result.warnings, ...neighbourWarnings(m.neighbours), ...m.performanceWarnings],
    evidence: {
      ...evidenceBase(m),
      result,
      findings: diagnosis.findings,
      counterfactuals: m.counterfactuals.map((c): CounterfactualEvidence => ({
        clause: c.transplant.clause,
        direction: c.transplant.direction,
        sql: c.transplant.sql,
        executed: c.executed,
        agrees: c.agrees,
        ...(c.error ? { error: c.error } : {}),
      })),
      ...(m.neighbours ? { neighbours: m.neighbours } : {}),
      ...(m.crossEngine ? { cross_engine: m.crossEngine } : {}),
    },
    run_metadata: await metadata(m),
  };
  return orderReport(report);
}
