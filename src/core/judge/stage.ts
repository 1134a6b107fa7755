/**
 * Layer 5 as a stage: the optional AI judge, advisory. It runs after the
 * deterministic report is final and returns a new report; a suggested fix is
 * executed in the sandbox and graded like any candidate before it is shown.
 */
import type { Measured } from '../evaluation/case-record.ts';
import type { EvaluationRequest } from '../evaluation/request.ts';
import { orderReport, type EvaluationReport } from '../report/report.ts';
import { compareResults } from '../result/compare.ts';
import type { Dialect } from '../structure/grammar.ts';
import { formatCell } from '../value/format.ts';
import type { ResultTable } from '../value/kind.ts';
import {
  judgeCase,
  skipReason,
  type JudgeInput,
  type JudgeOptions,
  type JudgeProvider,
  type VerifyFix,
} from './index.ts';
import type { CancelSignal } from '../engine.ts';

export interface JudgeStep {
  judge: () => Promise<EvaluationReport>;
  /** The step will send a request (not skipped by threshold, policy or a missing provider). */
  asksJudge: boolean;
}

function textSample(table: ResultTable) {
  return {
    columns: table.columns.map((c) => c.name),
    rows: table.rows.slice(0, 10).map((r) => r.map((cell, i) => formatCell(table.columns[i]!, cell))),
    totalRows: table.rows.length,
  };
}

function judgeInput(
  report: EvaluationReport,
  request: EvaluationRequest,
  expected: ResultTable,
  actual: ResultTable,
  dialect: Dialect,
): JudgeInput {
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
    context: {
      schemaDescription: request.context.schema_description ?? '',
      businessRules: request.context.business_rules ?? [],
    },
  };
}

export function judgeStage(
  report: EvaluationReport,
  m: Measured,
  judge: { provider: JudgeProvider | null; options?: JudgeOptions },
  signal?: CancelSignal,
): JudgeStep {
  const { request, now } = m;
  const input = judgeInput(report, request, m.tables.expected, m.tables.actual, m.dialect);
  const verifyFix: VerifyFix = async (sql) => {
    const run = await m.engine.execute(sql, m.execOptions);
    if (!run.ok)
      return {
        passes: false,
        deterministic_verdict: 'fail',
        detail: `the suggested SQL does not run: ${run.error.message}`,
        error: run.error,
      };
    const fixed = compareResults(m.tables.expected, run.value, m.comparison, {
      ...(request.context.shape ? { shape: request.context.shape } : {}),
      orderKeys: m.orderKeys,
    });
    const passes = fixed.result_equality_family.mode_pass;
    return {
      passes,
      deterministic_verdict: passes ? 'pass' : 'fail',
      detail: passes ? 'matches the reference' : (fixed.reasons[0]?.message ?? 'does not match'),
    };
  };
  const step = async (): Promise<EvaluationReport> => {
    const t = now();
    const judgment = await judgeCase(judge.provider, input, { verifyFix, ...judge.options }, signal);
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
        timings_ms: {
          ...report.run_metadata.timings_ms,
          judge: judgeMs,
          total: report.run_metadata.timings_ms.total + judgeMs,
        },
      },
    });
  };
  return { judge: step, asksJudge: skipReason(input, judge.provider, judge.options) === null };
}
