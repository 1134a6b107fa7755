/**
 * The evaluation pipeline for one request, in the order of the seed's Metric
 * Processing Pipeline: validation (parse, execute) → structural comparison →
 * result comparison → diagnostic attribution (with counterfactual
 * executions) → optional performance metrics → optional AI judge → final
 * synthesis under the failure-state precedence rules. Deterministic first:
 * the judge only annotates.
 */
import { diagnose, type CounterfactualResult, type Diagnosis } from './diagnose/attribute.ts';
import { planTransplants } from './diagnose/transplant.ts';
import { canonicalCell } from './digest/canonical-dump.ts';
import { sha256Text } from './digest/sha256.ts';
import type { CancelSignal, Engine, ExecuteOutcome, QueryResult } from './engine.ts';
import type { ErrorCategory } from './errors.ts';
import type { EvaluationRequest } from './evaluation/request.ts';
import { judgeCase, skipReason, type JudgeInput, type JudgeOptions, type JudgeProvider, type VerifyFix } from './judge/index.ts';
import { orderReport, REPORT_VERSION, TOOL_VERSION, type CounterfactualEvidence, type EvaluationReport, type Validity, type Warning } from './report/report.ts';
import { compareResults } from './result/compare.ts';
import type { ComparisonConfig } from './result/config.ts';
import { resultVerdict, type ResultComparison } from './result/types.ts';
import { failureSeverity, overallScore, resultScore, type Severity } from './score/scoring.ts';
import type { ClauseMatch } from './structure/compare.ts';
import { clauseWeightedDistance, structureScore } from './structure/distance.ts';
import { clauseFeatures, type ClauseFeatures } from './structure/features.ts';
import type { Dialect } from './structure/grammar.ts';
import { parseSql } from './structure/parse.ts';
import { compareStructure, type StructuralComparison } from './structure/structure.ts';
import { formatCell } from './value/format.ts';
import { encodeResultTable } from './value/json-codec.ts';
import type { ResultTable } from './value/kind.ts';

export interface EvaluateOptions {
  /** Parser dialect; defaults to the engine's. */
  dialect?: Dialect;
  /** A configured judge provider (used when config.enable_ai_judge). */
  judge?: { provider: JudgeProvider | null; options?: JudgeOptions };
  /** Rows kept in the report's result samples. */
  sampleRows?: number;
  clock?: () => number;
  /** Aborts the judge's request (the deterministic part has its own per-query timeouts). */
  signal?: CancelSignal;
}

/**
 * The deterministic report, and the judge step still to run (null when the
 * judge is off or the case was blocked). A corpus run grades the next case
 * while earlier judge requests are in flight.
 */
export interface StagedEvaluation {
  report: EvaluationReport;
  judge: (() => Promise<EvaluationReport>) | null;
  /** The judge step will send a request (not skipped by threshold, policy or a missing provider). */
  asksJudge: boolean;
}

const SYNTAX_CATEGORIES: (ErrorCategory | undefined)[] = ['syntax_error'];

function isParseFailure(outcome: ExecuteOutcome): boolean {
  return !outcome.ok && (SYNTAX_CATEGORIES.includes(outcome.error.category) || outcome.error.code === 'validation.empty_sql');
}

function sample(table: ResultTable | null, rows: number) {
  if (!table) return null;
  return { ...encodeResultTable({ columns: table.columns, rows: table.rows.slice(0, rows) }), total_rows: table.rows.length };
}

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

/** Rows that repeat an earlier row (counted on at most 200,000 rows). */
function duplicateRows(table: ResultTable): number {
  const seen = new Set<string>();
  let repeats = 0;
  for (const row of table.rows.slice(0, 200_000)) {
    const key = row.map((cell, i) => canonicalCell(table.columns[i]!, cell)).join('\t');
    if (seen.has(key)) repeats++;
    else seen.add(key);
  }
  return repeats;
}

function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  return `{${Object.keys(value as object)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
    .join(',')}}`;
}

/** ORDER BY keys of the reference as indices into its result columns, or null when unknown. */
export function orderKeyIndices(features: ClauseFeatures | null, expected: ResultTable): number[] | null {
  if (!features) return null;
  const keys: number[] = [];
  for (const key of features.orderBy) {
    let index = features.projections.findIndex((p) => p.expr === key.expr || (p.alias !== null && p.alias === key.expr));
    if (index < 0) index = expected.columns.findIndex((c) => c.name === key.expr);
    if (index < 0 || index >= expected.columns.length) return null;
    keys.push(index);
  }
  return keys;
}

function withoutEdits(m: ClauseMatch, clause: keyof ClauseMatch['clauses']): ClauseMatch {
  const c = m.clauses[clause];
  const clauses = { ...m.clauses, [clause]: { ...c, match: true, divergence: 0, edits: c.edits.filter((e) => e.op === 'keep') } };
  const edits = m.edits.filter((e) => e.clause !== clause);
  return { match: Object.values(clauses).every((x) => x.match), clauses, edits };
}

export async function evaluate(request: EvaluationRequest, engine: Engine, options: EvaluateOptions = {}): Promise<EvaluationReport> {
  const staged = await evaluateStaged(request, engine, options);
  return staged.judge ? staged.judge() : staged.report;
}

/** `evaluate` in two steps: everything deterministic, then the optional judge. */
export async function evaluateStaged(request: EvaluationRequest, engine: Engine, options: EvaluateOptions = {}): Promise<StagedEvaluation> {
  const now = options.clock ?? (() => Date.now());
  const started = now();
  const config = request.config;
  const dialect: Dialect = options.dialect ?? (engine.name === 'sqlite' ? 'sqlite' : 'duckdb');
  const warnings: Warning[] = [];
  const timings = { parse: 0, execute: 0, compare: 0, diagnose: 0, judge: 0, total: 0 };
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
    warnings.push({ code: 'order_matters', message: 'The case declares order_matters: rows are compared in order (ties in the ORDER BY keys may come in any order).' });
  }
  const actualSql = request.actual_sql?.trim() ? request.actual_sql : null;
  const configHash = (await sha256Text(stableJson(config))).slice(0, 16);

  // 1. Validation: parse (structural parser) and execute (the engine decides validity).
  let t = now();
  const structure: StructuralComparison | null = actualSql ? compareStructure(request.expected_sql, actualSql, dialect) : null;
  const expectedParsed = parseSql(request.expected_sql, dialect);
  const expectedFeatures = expectedParsed.ok ? clauseFeatures(expectedParsed.value.query, dialect) : null;
  const actualParsed = actualSql ? parseSql(actualSql, dialect) : null;
  const actualFeatures = actualParsed?.ok ? clauseFeatures(actualParsed.value.query, dialect) : null;
  timings.parse = now() - t;

  t = now();
  const execOptions = { timeoutMs: config.query_timeout_ms, maxRows: config.max_rows };
  const expectedRun: ExecuteOutcome | null = request.expected_result ? null : await engine.execute(request.expected_sql, execOptions);
  const actualRun: ExecuteOutcome | null = request.actual_result || !actualSql ? null : await engine.execute(actualSql, execOptions);
  timings.execute = now() - t;

  const expectedTable: QueryResult | ResultTable | null = request.expected_result ?? (expectedRun?.ok ? expectedRun.value : null);
  const actualTable: QueryResult | ResultTable | null = request.actual_result ?? (actualRun?.ok ? actualRun.value : null);
  const parserOk = { expected: expectedParsed.ok, actual: actualParsed?.ok ?? false };
  const validity: Validity = {
    parse_success_expected: expectedRun ? !isParseFailure(expectedRun) : parserOk.expected,
    parse_success_actual: actualSql ? (actualRun ? !isParseFailure(actualRun) : parserOk.actual) : false,
    parser_unsupported_expected: false,
    parser_unsupported_actual: false,
    execution_success_expected: expectedTable !== null,
    execution_success_actual: actualTable !== null,
    execution_error_expected: expectedRun && !expectedRun.ok ? expectedRun.error : null,
    execution_error_actual: actualRun && !actualRun.ok ? actualRun.error : null,
    execution_time_expected_ms: expectedRun?.ok ? Math.round(expectedRun.value.elapsedMs * 1000) / 1000 : null,
    execution_time_actual_ms: actualRun?.ok ? Math.round(actualRun.value.elapsedMs * 1000) / 1000 : null,
    normalized_sql_expected: structure?.normalized_sql_expected ?? null,
    normalized_sql_actual: structure?.normalized_sql_actual ?? null,
    expected_source: request.expected_result ? 'frozen' : 'executed',
    actual_source: request.actual_result ? 'frozen' : actualSql ? 'executed' : 'none',
  };
  validity.parser_unsupported_expected = validity.parse_success_expected && !parserOk.expected;
  validity.parser_unsupported_actual = !!actualSql && validity.parse_success_actual && !parserOk.actual;
  for (const side of ['expected', 'actual'] as const) {
    if (!validity[`parser_unsupported_${side}`]) continue;
    const failure = side === 'expected' ? (expectedParsed.ok ? null : expectedParsed.error) : actualParsed && !actualParsed.ok ? actualParsed.error : null;
    const construct = failure?.constructs[0];
    warnings.push({
      code: 'parser_unsupported',
      message: `The engine runs the ${side} SQL but the structural parser cannot parse it${construct ? ` (${construct})` : ''}: the structural comparison is blocked for this case; results are still compared.`,
    });
  }

  const errorTypes = [validity.execution_error_expected?.category, validity.execution_error_actual?.category].filter(
    (c): c is ErrorCategory => c !== undefined,
  );
  const base = {
    report_version: REPORT_VERSION,
    ...(request.context.case_id ? { id: request.context.case_id } : {}),
    ai_advisory_verdict: null,
    verdict_consistency_flag: null,
    error_types: [...new Set(errorTypes)],
    validity,
    judge: null,
  };
  const metadata = async () => ({
    engine: engine.name,
    engine_version: await engine.version(),
    dialect,
    fixture: request.context.fixture ?? null,
    config_hash: configHash,
    config: { ...config } as Record<string, unknown>,
    timings_ms: { ...timings, total: now() - started },
    tool_version: TOOL_VERSION,
  });
  const evidenceBase = {
    user_query: request.user_query,
    actual_sql: request.actual_sql,
    expected_sql: request.expected_sql,
    structure,
    findings: [],
    counterfactuals: [],
    expected_sample: sample(expectedTable, options.sampleRows ?? 20),
    actual_sample: sample(actualTable, options.sampleRows ?? 20),
  };

  // 2. Precedence: no query, then parse failure, then execution failure.
  const blocked = (reason: 'no_query' | 'parse_failure' | 'execution_failure', explanation: string): Promise<StagedEvaluation> =>
    metadata().then((run_metadata) => ({ judge: null, asksJudge: false, report: orderReport({
      ...base,
      deterministic_verdict: 'fail' as const,
      overall_score: 0,
      structure_score: structure?.structure_score ?? null,
      result_score: null,
      diagnostic_scores: null,
      performance_scores: null,
      severity: 'critical failure' as Severity,
      explanations: [explanation],
      mismatch_map: [],
      blocked_reason: reason,
      warnings,
      evidence: { ...evidenceBase, result: null },
      run_metadata,
    }) }));
  if (!actualSql) return blocked('no_query', 'No query was produced: a graded failure.');
  if (!validity.parse_success_expected || !validity.parse_success_actual) {
    const side = !validity.parse_success_actual ? 'candidate' : 'reference';
    const error = !validity.parse_success_actual ? validity.execution_error_actual : validity.execution_error_expected;
    return blocked('parse_failure', `The ${side} SQL does not parse: ${error?.message ?? 'syntax error'}.`);
  }
  if (!validity.execution_success_expected || !validity.execution_success_actual) {
    const side = !validity.execution_success_actual ? 'candidate' : 'reference';
    const error = !validity.execution_success_actual ? validity.execution_error_actual : validity.execution_error_expected;
    return blocked(
      'execution_failure',
      `The ${side} query failed to execute${error?.category ? ` (${error.category})` : ''}: ${error?.message ?? 'unknown error'}.`,
    );
  }

  // 3. Result comparison.
  t = now();
  const keys = orderKeyIndices(expectedFeatures, expectedTable!);
  const result: ResultComparison = compareResults(expectedTable!, actualTable!, comparison, {
    ...(request.context.shape ? { shape: request.context.shape } : {}),
    orderKeys: keys,
  });
  timings.compare = now() - t;
  const pass = result.result_equality_family.mode_pass;

  // Production tolerances (STEF rules 3 and 4) on the structural score.
  let structureScoreValue = structure?.structure_score ?? null;
  let clauseMatch = structure?.clause_match ?? null;
  if (structure && clauseMatch && expectedFeatures && actualFeatures) {
    const aLimit = actualFeatures.limit;
    if (expectedFeatures.limit === null && typeof aLimit === 'number' && aLimit >= config.safety_limit_threshold && actualTable!.rows.length < aLimit) {
      clauseMatch = withoutEdits(clauseMatch, 'limit_offset');
      warnings.push({ code: 'safety_limit_tolerated', message: `LIMIT ${aLimit} is a safety guard (≥ ${config.safety_limit_threshold}, the result is not cut), not a top-k: not counted as a difference.` });
    }
    const orderFree = comparison.comparison_mode === 'order-insensitive';
    if (orderFree && expectedFeatures.orderBy.length === 0 && actualFeatures.orderBy.length > 0) {
      clauseMatch = withoutEdits(clauseMatch, 'order_by');
      warnings.push({ code: 'default_order_by_tolerated', message: 'The candidate adds an ORDER BY the question did not ask for: tolerated (row order is not part of this answer).' });
    }
    if (clauseMatch !== structure.clause_match) {
      structureScoreValue = structureScore(clauseMatch, structure.normalized_sql_match);
      structure.clause_match = clauseMatch;
      const distance = clauseWeightedDistance(clauseMatch);
      structure.clause_distance = distance;
      structure.clause_weighted_distance = distance.clause_weighted_distance;
      structure.structure_score = structureScoreValue;
    }
  }

  // 4. Diagnostics, confirmed by counterfactual executions.
  t = now();
  const counterfactuals: CounterfactualResult[] = [];
  if (!pass && config.enable_counterfactuals && expectedParsed.ok && actualParsed?.ok && config.max_counterfactuals > 0) {
    for (const transplant of planTransplants(expectedParsed.value.query, actualParsed.value.query, dialect, config.max_counterfactuals)) {
      const run = await engine.execute(transplant.sql, execOptions);
      if (!run.ok) {
        counterfactuals.push({ transplant, executed: false, agrees: false, error: run.error.message });
        continue;
      }
      const target = transplant.direction === 'candidate_with_reference_clause' ? expectedTable! : actualTable!;
      const agrees = compareResults(target, run.value, comparison, { orderKeys: keys }).result_equality_family.mode_pass;
      counterfactuals.push({ transplant, executed: true, agrees });
    }
  }
  const diagnosis: Diagnosis = diagnose({
    result,
    clauseMatch,
    expectedFeatures,
    actualFeatures,
    counterfactuals,
    orderMatters,
    expectedSql: request.expected_sql,
    actualSql,
    expectedQuery: expectedParsed.ok ? expectedParsed.value.query : null,
    actualQuery: actualParsed?.ok ? actualParsed.value.query : null,
    actualDuplicateRows: pass ? 0 : duplicateRows(actualTable!),
  });
  timings.diagnose = now() - t;

  const rScore = resultScore(result);
  const severity: Severity = pass ? 'pass' : failureSeverity(result, diagnosis.diagnostic_scores);
  const explanations: string[] = [];
  if (pass) {
    explanations.push(
      `The candidate's result matches the reference under ${comparison.comparison_mode}${comparison.set_semantics ? ' (set semantics)' : ''} comparison (${result.cardinality_match.expected_rows} row${result.cardinality_match.expected_rows === 1 ? '' : 's'}).`,
    );
    if (structure && clauseMatch && !clauseMatch.match) explanations.push(`It is written differently: ${clauseMatch.edits.slice(0, 3).map((e) => e.text).join('; ')}.`);
  } else {
    for (const reason of result.reasons.slice(0, 4)) explanations.push(reason.message);
    for (const finding of diagnosis.findings.slice(0, 2)) explanations.push(finding.explanation);
  }
  for (const w of result.warnings) warnings.push(w);

  let performance: EvaluationReport['performance_scores'] = null;
  if (config.enable_performance_metrics) {
    const e = validity.execution_time_expected_ms;
    const a = validity.execution_time_actual_ms;
    const [planActual, planExpected] = await Promise.all([engine.explain(actualSql), engine.explain(request.expected_sql)]);
    performance = {
      execution_time_ratio: e && a ? Math.round((a / e) * 1000) / 1000 : null,
      plan_complexity_score: planActual.ok ? planComplexity(planActual.value.operators) : null,
      plan_complexity_expected: planExpected.ok ? planComplexity(planExpected.value.operators) : null,
      plan_operators_actual: planActual.ok ? planActual.value.operators : [],
    };
    if (!planActual.ok) warnings.push({ code: 'plan_unavailable', message: `No query plan for the candidate: ${planActual.error.message}` });
    if (e === null || a === null || e < 5 || a < 5)
      warnings.push({ code: 'performance_noisy', message: 'Execution times under 5 ms (or frozen results) are too noisy to compare: treat execution_time_ratio as indicative only.' });
  }

  const report: EvaluationReport = {
    ...base,
    deterministic_verdict: resultVerdict(result),
    overall_score: overallScore(pass, rScore, structureScoreValue, diagnosis.diagnostic_scores),
    structure_score: structureScoreValue,
    result_score: rScore,
    diagnostic_scores: diagnosis.diagnostic_scores,
    performance_scores: performance,
    severity,
    explanations,
    mismatch_map: diagnosis.per_column_mismatch_map,
    blocked_reason: null,
    warnings,
    evidence: {
      ...evidenceBase,
      result,
      findings: diagnosis.findings,
      counterfactuals: counterfactuals.map(
        (c): CounterfactualEvidence => ({ clause: c.transplant.clause, direction: c.transplant.direction, sql: c.transplant.sql, executed: c.executed, agrees: c.agrees, ...(c.error ? { error: c.error } : {}) }),
      ),
    },
    run_metadata: await metadata(),
  };

  // 5. Optional AI judge: advisory, never flips the verdict.
  const judgeOptions = options.judge;
  if (!config.enable_ai_judge || !judgeOptions) return { report: orderReport(report), judge: null, asksJudge: false };
  const input = judgeInput(report, request, expectedTable!, actualTable!, dialect);
  const judgeStep = async (): Promise<EvaluationReport> => {
    const t = now();
    // A suggested fix is executed in the sandbox and graded like any candidate before it is shown as a fix.
    const verifyFix: VerifyFix = async (sql) => {
      const run = await engine.execute(sql, execOptions);
      if (!run.ok) return { passes: false, deterministic_verdict: 'fail', detail: `the suggested SQL does not run: ${run.error.message}`, error: run.error };
      const fixed = compareResults(expectedTable!, run.value, comparison, { ...(request.context.shape ? { shape: request.context.shape } : {}), orderKeys: keys });
      const passes = fixed.result_equality_family.mode_pass;
      return { passes, deterministic_verdict: passes ? 'pass' : 'fail', detail: passes ? 'matches the reference' : (fixed.reasons[0]?.message ?? 'does not match') };
    };
    const judgment = await judgeCase(judgeOptions.provider, input, { verifyFix, ...judgeOptions.options }, options.signal);
    const judgeMs = now() - t;
    // A new report: the deterministic one already handed out stays as it was.
    return orderReport({
      ...report,
      judge: judgment,
      ai_advisory_verdict: judgment.ai_advisory_verdict ?? null,
      verdict_consistency_flag: judgment.verdict_consistency_flag ?? null,
      warnings: [...report.warnings, ...judgment.warnings.map((message) => ({ code: 'judge', message }))],
      run_metadata: {
        ...report.run_metadata,
        timings_ms: { ...report.run_metadata.timings_ms, judge: judgeMs, total: report.run_metadata.timings_ms.total + judgeMs },
      },
    });
  };
  return { report: orderReport(report), judge: judgeStep, asksJudge: skipReason(input, judgeOptions.provider, judgeOptions.options) === null };
}

function textSample(table: ResultTable) {
  return {
    columns: table.columns.map((c) => c.name),
    rows: table.rows.slice(0, 10).map((r) => r.map((cell, i) => formatCell(table.columns[i]!, cell))),
    totalRows: table.rows.length,
  };
}

function judgeInput(report: EvaluationReport, request: EvaluationRequest, expected: ResultTable, actual: ResultTable, dialect: Dialect): JudgeInput {
  return {
    caseId: report.id ?? 'case',
    question: request.user_query,
    expectedSql: request.expected_sql,
    actualSql: request.actual_sql ?? '',
    dialect,
    evidence: {
      deterministic_verdict: report.deterministic_verdict,
      deterministic_score: report.overall_score,
      severity: report.severity,
      comparison_mode: report.evidence.result?.result_equality_family.comparison_mode ?? request.config.comparison_mode,
      reason_codes: report.evidence.result?.reasons.map((r) => `${r.code}: ${r.message}`) ?? [],
      witnesses: report.evidence.result?.reasons.slice(0, 3).map((r) => r.message) ?? [],
      clause_diffs: report.evidence.structure?.clause_match?.edits.slice(0, 10).map((e) => e.text) ?? [],
      explanations: report.explanations,
      row_count_expected: expected.rows.length,
      row_count_actual: actual.rows.length,
    },
    expectedSample: textSample(expected),
    actualSample: textSample(actual),
    context: { schemaDescription: request.context.schema_description ?? '', businessRules: request.context.business_rules ?? [] },
  };
}
