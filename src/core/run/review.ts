/**
 * Which graded cases deserve a human look before the run goes on (review
 * mode, the seed's human-in-the-loop pause): the diagnosis or the judge calls
 * the case ambiguous, either is not confident, or the judge disagrees with
 * the deterministic verdict, or (cross-engine) another engine decides it the
 * other way. The flags never change a verdict.
 */
import type { EvaluationReport } from '../report/report.ts';

export type ReviewFlagCode = 'ambiguous_case' | 'low_confidence' | 'judge_disagrees' | 'engine_dependent';

export interface ReviewFlag {
  code: ReviewFlagCode;
  message: string;
}

/** Below this confidence a diagnosis or a judge answer is flagged `low_confidence`. */
export const DEFAULT_REVIEW_CONFIDENCE = 0.5;

const pct = (x: number) => `${Math.round(x * 100)}%`;

export function reviewFlags(report: EvaluationReport | null, minConfidence = DEFAULT_REVIEW_CONFIDENCE): ReviewFlag[] {
  if (!report) return [];
  const flags: ReviewFlag[] = [];
  const d = report.diagnostic_scores;
  // A diagnosis exists only for a failing, executed candidate: that is what a reviewer would check.
  if (report.deterministic_verdict === 'fail' && d && d.likely_source_clause) {
    if (d.ambiguous_case)
      flags.push({
        code: 'ambiguous_case',
        message: `The diagnosis cannot tell the likely source clause (${d.likely_source_clause}) from another one.`,
      });
    if (d.confidence < minConfidence)
      flags.push({
        code: 'low_confidence',
        message: `The diagnosis (${d.likely_source_clause}) has low confidence: ${pct(d.confidence)} < ${pct(minConfidence)}.`,
      });
  }
  const j = report.judge;
  if (j?.status === 'judged' && j.judgment) {
    if (j.judgment.ambiguous_case)
      flags.push({ code: 'ambiguous_case', message: 'The AI judge marks the case as ambiguous.' });
    if (j.judgment.confidence < minConfidence)
      flags.push({
        code: 'low_confidence',
        message: `The AI judge has low confidence: ${pct(j.judgment.confidence)} < ${pct(minConfidence)}.`,
      });
  }
  if (report.verdict_consistency_flag === false)
    flags.push({
      code: 'judge_disagrees',
      message: `The AI judge says ${report.ai_advisory_verdict}; the deterministic verdict (${report.deterministic_verdict}) stands.`,
    });
  // config.cross_engine: another engine decides the case the other way (the verdict is the graded engine's).
  const x = report.evidence.cross_engine;
  if (x?.engine_dependent)
    flags.push({
      code: 'engine_dependent',
      message: `The verdict depends on the engine: ${x.engines.map((l) => `${l.verdict} on ${l.engine}`).join(', ')}.`,
    });
  return flags;
}
