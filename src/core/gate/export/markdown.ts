/**
 * A Markdown summary for a pull-request comment: figures with their counts,
 * the 2×2 as a table, strata as counts, the gate with its arithmetic, and the
 * failure list with each failing query. Every untrusted string is escaped.
 */
import type { GateResult } from '../gate.ts';
import type { RunSummary } from '../summary.ts';
import { BREAKDOWN_KEYS, type BreakdownRow, type Breakdowns } from '../breakdowns.ts';
import { pctText, percent } from '../interval.ts';
import { mdCode, mdFence, mdInline } from './escape.ts';

function pctOf(k: number, n: number): string {
  return n === 0 ? '—' : percent(k / n);
}

function row(cells: (string | number)[]): string {
  return `| ${cells.map(String).join(' | ')} |`;
}

function table(head: string[], rows: (string | number)[][], align?: string[]): string[] {
  return [row(head), `|${(align ?? head.map(() => '---')).join('|')}|`, ...rows.map(row)];
}

const GATE_HEAD: Record<GateResult['status'], string> = {
  pass: '✅ Gate: PASS',
  blocked: '❌ Gate: BLOCKED',
  refused: '⛔ Gate: REFUSED (not compared)',
};

export interface MarkdownOptions {
  gate?: GateResult;
  /** Failures listed in full up to this many (default 50); the rest are counted. */
  maxFailures?: number;
}

function ciText(ci: [number, number] | null | undefined): string {
  // Through percent(): a bound just below 100 % (or above 0 %) never prints as exactly that.
  return ci ? `${percent(ci[0]).slice(0, -1)}–${percent(ci[1])}` : '—';
}

export const BREAKDOWN_TITLES: Record<keyof Breakdowns, string> = {
  by_fixture: 'By fixture',
  by_tag: 'By tag (a case counts once per tag)',
  by_difficulty: 'By difficulty',
  by_shape: 'By shape',
  by_stratum: 'By arm / stratum',
};

function breakdownTables(b: Breakdowns): string[] {
  const out: string[] = ['### Breakdowns', ''];
  const rowOf = (x: BreakdownRow) => [
    mdInline(x.key),
    x.total,
    x.accuracy.total ? `${x.accuracy.count} of ${x.accuracy.total}` : '—',
    pctText(x.accuracy.rate, x.accuracy.ci95),
    `${x.success.count} of ${x.success.total}`,
    pctText(x.success.rate, x.success.ci95),
    x.outcomes.wrong,
    x.outcomes.no_query,
    x.outcomes.missed_refusal,
    x.outcomes.over_refusal + x.outcomes.declined_unarmed,
  ];
  for (const key of BREAKDOWN_KEYS) {
    const rows = b[key];
    if (rows.length < 2 && key !== 'by_fixture') continue;
    out.push(`#### ${BREAKDOWN_TITLES[key]}`, '');
    out.push(
      ...table(
        [
          '',
          'Cases',
          'Correct',
          'Accuracy [95%]',
          'Right',
          'Right rate [95%]',
          'Wrong',
          'No query',
          'Missed refusal',
          'Declined',
        ],
        rows.map(rowOf),
        ['---', '--:', '--:', '--:', '--:', '--:', '--:', '--:', '--:', '--:'],
      ),
      '',
    );
  }
  out.push(
    "Accuracy: correct out of the answerable cases of the row; right: correct answers and correct refusals out of all its cases. An arm's strata are counts only, never rates (two are two cases wide).",
    '',
  );
  return out;
}

export function toMarkdown(summary: RunSummary, options: MarkdownOptions = {}): string {
  const s = summary;
  const out: string[] = [];
  const version = s.corpus.version === null ? '' : ` v${mdInline(String(s.corpus.version))}`;
  out.push(`## SQL Verdict: ${mdInline(s.corpus.name)}${version}`, '');
  out.push(`Corpus ${mdCode(s.corpus.name)}${version}, ${s.corpus.size} cases, SHA-256 ${mdCode(s.corpus.sha256)}  `);
  out.push(
    `Run: agent ${s.run.agent ? mdCode(s.run.agent) : '—'}, model ${s.run.model ? mdCode(s.run.model) : '**none**'}, path ${s.run.path ? mdCode(s.run.path) : '—'}${s.run.created_at ? `, ${mdInline(s.run.created_at)}` : ''}`,
    '',
  );

  if (options.gate) {
    const g = options.gate;
    out.push(`### ${GATE_HEAD[g.status]} (exit ${g.exit_code})`, '');
    if (g.baseline)
      out.push(
        `Baseline: suite ${mdCode(g.baseline.suite)}, model ${mdCode(g.baseline.model)}, path ${g.baseline.path ? mdCode(g.baseline.path) : '—'}, recorded ${mdInline(g.baseline.recorded_at)}`,
        '',
      );
    out.push(mdFence(g.checks.map((c) => c.arithmetic).join('\n'), 'text'), '');
    for (const c of g.checks.filter(
      (k) => k.status === 'blocked' || k.status === 'refused' || k.status === 'warning',
    )) {
      if (c.detail) out.push(`- **${mdInline(c.name)}**: ${mdInline(c.detail)}`);
    }
    out.push('');
  }

  const a = s.answer_accuracy;
  const r = s.refusal_recall;
  const o = s.over_refusal;
  const rs = s.reliability;
  out.push('### Figures', '');
  out.push(
    ...table(
      ['Figure', 'Count', 'Rate', '95% interval', 'Denominator'],
      [
        [
          'Answer accuracy',
          `${a.correct} of ${a.total}`,
          pctOf(a.correct, a.total),
          ciText(a.ci95),
          'answerable cases (no arm, or must-answer)',
        ],
        [
          'Refusal recall',
          `${r.declined} of ${r.total}`,
          pctOf(r.declined, r.total),
          ciText(r.ci95),
          'must-refuse arm',
        ],
        ['Over-refusal', `${o.declined} of ${o.total}`, pctOf(o.declined, o.total), ciText(o.ci95), 'must-answer arm'],
        [
          `Reliability RS(${rs.c})`,
          `sum ${rs.sum}`,
          rs.mean === null ? '—' : `mean ${rs.mean.toFixed(3)}`,
          '—',
          `${rs.cases} cases: +1 × ${rs.plus}, 0 × ${rs.zero}, −${rs.c} × ${rs.minus}`,
        ],
      ],
      ['---', '--:', '--:', '--:', '---'],
    ),
    '',
    'Intervals: Wilson score, 95%.',
    '',
  );

  const t = s.two_by_two;
  out.push('### The 2×2', '');
  out.push(
    ...table(
      ['', 'Returned an answer', 'Declined', 'No query produced'],
      [
        [
          `**Answerable** (${t.answerable.total})`,
          `correct ${t.answerable.returned.correct} · wrong ${t.answerable.returned.wrong}`,
          `over-refusal ${t.answerable.declined.over_refusal.count} of ${t.answerable.declined.over_refusal.of_must_answer} must-answer · declined ${t.answerable.declined.declined_unarmed.count} of ${t.answerable.declined.declined_unarmed.of_unarmed} graded (scored as failure)`,
          t.answerable.no_query,
        ],
        [
          `**Unanswerable** (${t.unanswerable.total})`,
          `missed refusal ${t.unanswerable.returned.missed_refusal}`,
          `correct refusal ${t.unanswerable.declined.correct_refusal}`,
          t.unanswerable.no_query,
        ],
      ],
    ),
    '',
    'The over-refusal cell is measured on the must-answer arm only; a decline on a graded case without an arm is counted apart and scored as a failure. The two denominators are not merged.',
    '',
  );
  if (r.missed_refusal_ids.length) out.push(`Missed refusals: ${r.missed_refusal_ids.map(mdCode).join(', ')}`, '');

  if (r.strata.length || o.strata.length) {
    out.push('### Strata (counts)', '');
    out.push(
      ...table(
        ['Arm', 'Stratum', 'Cases', 'Declined', 'Answered', 'No query'],
        [
          ...r.strata.map((x) => ['must-refuse', mdInline(x.stratum), x.total, x.declined, x.answered, x.no_query]),
          ...o.strata.map((x) => [
            'must-answer',
            mdInline(x.stratum),
            x.total,
            x.declined,
            `${x.correct + x.wrong} (correct ${x.correct})`,
            x.no_query,
          ]),
        ],
        ['---', '---', '--:', '--:', '--:', '--:'],
      ),
      '',
    );
  }

  const pyramid = s.difficulty_pyramid.filter((p) => p.total > 0);
  if (pyramid.length) {
    out.push('### Difficulty', '');
    out.push(
      ...table(
        ['Difficulty', 'Correct', 'Cases'],
        pyramid.map((p) => [p.difficulty, p.correct, p.total]),
        ['---', '--:', '--:'],
      ),
      '',
    );
  }
  if (s.shapes.length) {
    out.push('### Shapes', '');
    out.push(
      ...table(
        ['Shape', 'Cases', 'Correct', 'Wrong', 'No query', 'Declined'],
        s.shapes.map((x) => [
          mdInline(x.shape),
          x.total,
          x.correct,
          x.wrong,
          x.no_query,
          x.over_refusal + x.declined_unarmed + x.correct_refusal,
        ]),
        ['---', '--:', '--:', '--:', '--:', '--:'],
      ),
      '',
    );
  }

  if (s.breakdowns) out.push(...breakdownTables(s.breakdowns));

  const unsupported = s.cases.filter((k) => k.parser_unsupported);
  if (unsupported.length) {
    out.push(`### parser_unsupported (${unsupported.length})`, '');
    out.push(
      'The engine ran this SQL but the structural parser cannot parse it: the structure was not compared (structure_score is null); the results were compared and graded as usual.',
      '',
    );
    out.push(
      ...table(
        ['Case', 'Outcome', 'Structure'],
        unsupported.map((k) => [mdCode(k.id), k.outcome, 'parser_unsupported']),
      ),
      '',
    );
  }

  const max = options.maxFailures ?? 50;
  out.push(`### Failures (${s.failures.length})`, '');
  if (s.failures.length === 0) out.push('None.', '');
  else {
    const shown = s.failures.slice(0, max);
    out.push(
      ...table(
        ['Case', 'Outcome', 'Reason', 'Query'],
        shown.map((f) => [
          mdCode(f.id),
          f.outcome,
          mdInline(f.reason),
          f.query === null ? '—' : mdCode(f.query.length > 200 ? `${f.query.slice(0, 200)}…` : f.query),
        ]),
      ),
      '',
    );
    if (s.failures.length > shown.length)
      out.push(`…and ${s.failures.length - shown.length} more failures (see the JSON report or the CSV).`, '');
  }
  return out.join('\n');
}
