/** What a graded case's record says besides its report: the summary's view of it, and why it is not correct. */
import type { RunRecord } from '../corpus/load-run.ts';
import type { CaseResult } from '../gate/outcome.ts';
import type { EvaluationReport } from '../report/report.ts';
import type { CaseReport } from './run-report.ts';

/** The summary's view of a graded case. */
export function caseResultOf(c: CaseReport, record: RunRecord | undefined, tags?: readonly string[]): CaseResult {
  return {
    id: c.id,
    outcome: c.outcome,
    ...(c.reason !== null && c.reason_code !== null ? { reason: c.reason, reason_code: c.reason_code } : {}),
    query: c.query,
    ...(c.arm ? { arm: c.arm } : {}),
    ...(c.stratum ? { stratum: c.stratum } : {}),
    ...(c.shape ? { shape: c.shape } : {}),
    ...(c.difficulty ? { difficulty: c.difficulty as NonNullable<CaseResult['difficulty']> } : {}),
    fixture: c.fixture,
    ...(tags?.length ? { tags: [...tags] } : {}),
    ...(c.report ? { severity: c.report.severity } : {}),
    ...(record?.declineReason ? { decline_reason: record.declineReason } : {}),
    ...(c.report?.validity.parser_unsupported_actual || c.report?.validity.parser_unsupported_expected
      ? { parser_unsupported: true as const }
      : {}),
  };
}

const DEFAULT_BROKEN = 'The reference query does not run: a broken oracle; excluded from accuracy.';

export function reasonFor(
  outcome: CaseResult['outcome'],
  record: RunRecord | undefined,
  report: EvaluationReport | null,
): { code: string; text: string } | null {
  switch (outcome) {
    case 'correct':
    case 'correct_refusal':
      return null;
    case 'no_query':
      return record
        ? { code: 'run.no_query', text: 'The system produced no query (sql is null and it did not decline).' }
        : { code: 'run.no_record', text: 'The run has no record for this case.' };
    case 'missed_refusal':
      return { code: 'refusal.missed', text: 'The system answered a question it must refuse (a fabricated answer).' };
    case 'over_refusal':
      return {
        code: 'refusal.over',
        text: `The system declined an answerable question${record?.declineReason ? `: "${record.declineReason}"` : ''}.`,
      };
    case 'broken_reference':
      return { code: 'oracle.broken_reference', text: report?.explanations[0] ?? DEFAULT_BROKEN };
    case 'declined_unarmed':
      return {
        code: 'refusal.declined_answerable',
        text: `The system declined an answerable golden question${record?.declineReason ? `: "${record.declineReason}"` : ''} (scored as a failure, recorded distinctly).`,
      };
    case 'wrong': {
      if (!report) return { code: 'result.not_evaluated', text: 'The answer could not be evaluated.' };
      const code = report.blocked_reason
        ? `validation.${report.blocked_reason}`
        : `result.${report.evidence.result?.reasons[0]?.code ?? 'mismatch'}`;
      return { code, text: report.explanations[0] ?? 'The result does not match the reference.' };
    }
  }
  return null;
}
