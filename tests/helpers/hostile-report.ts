/** A run summary and case detail with script and markup payloads in every untrusted field, rendered as the HTML report. */
import type { CaseResult } from '../../src/core/gate/outcome.ts';
import { summarizeRun } from '../../src/core/gate/summary.ts';
import { toHtml, type HtmlCaseDetail } from '../../src/core/report/html.ts';

/** Script and markup payloads: each one breaks out of text, of a double- or single-quoted attribute, or of a comment. */
export const P = (tag: string) =>
  `<script>window.__xss='${tag}'</script>"><img src=x onerror="window.__xss='${tag}'">'><svg onload=alert('${tag}')><!--`;

export function hostileReport(): string {
  const cases: CaseResult[] = [
    {
      id: P('id'),
      outcome: 'wrong',
      query: P('query'),
      reason: P('reason'),
      reason_code: P('reason_code'),
      difficulty: 'hard',
      shape: P('shape'),
      fixture: P('fixture'),
      tags: [P('tag'), 'plain'],
    },
    { id: 'ok-1', outcome: 'correct', query: 'SELECT 1', fixture: P('fixture'), tags: ['plain'] },
    {
      id: P('refuse-id'),
      outcome: 'missed_refusal',
      query: P('refuse-query'),
      arm: 'must_refuse',
      stratum: P('stratum'),
    },
  ];
  const summary = summarizeRun(
    cases,
    { name: P('corpus'), version: P('version'), sha256: 'a'.repeat(64) },
    { agent: P('agent'), model: P('model'), path: P('path'), created_at: P('created') },
  );
  if (!summary.ok) throw new Error(summary.error.message);
  const detail: HtmlCaseDetail = {
    id: P('id'),
    question: P('question'),
    fixture: P('fixture'),
    expected_sql: P('expected_sql'),
    explanations: [P('explanation')],
    expected_sample: {
      columns: [{ name: P('column'), kind: 'text', engine_type: 'VARCHAR' }],
      rows: [[P('cell')], [null]],
      total_rows: 2,
    },
    actual_sample: {
      columns: [{ name: P('column2'), kind: 'other', engine_type: 'STRUCT' }],
      rows: [[{ k: P('nested') } as never]],
      total_rows: 1,
    },
  };
  return toHtml({ summary: summary.value, details: [detail], generatedAt: P('generated') });
}
