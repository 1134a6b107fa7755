/**
 * A standalone HTML run report: one file to attach to a pull request or send
 * to someone without the app. It needs no script (there is none), so it reads
 * the same with JavaScript disabled; its Content-Security-Policy allows no
 * script, no fetch and only its own stylesheet (by hash). Every text that came
 * from a corpus, a run or an engine (ids, questions, SQL, cell values, tags,
 * fixture names, reasons) goes through `esc`.
 */
import { BREAKDOWN_KEYS, type BreakdownRow, type Breakdowns } from '../gate/breakdowns.ts';
import { BREAKDOWN_TITLES } from '../gate/export/markdown.ts';
import { percent, type Interval } from '../gate/interval.ts';
import { CASE_OUTCOMES } from '../gate/outcome.ts';
import type { RunSummary } from '../gate/summary.ts';
import type { JsonResultTable, JsonValue } from '../value/json-codec.ts';

/** What the report shows of a failing case beyond the summary's failure entry. */
export interface HtmlCaseDetail {
  id: string;
  question: string;
  fixture: string;
  expected_sql: string | null;
  expected_sample: (JsonResultTable & { total_rows: number }) | null;
  actual_sample: (JsonResultTable & { total_rows: number }) | null;
  explanations: string[];
}

export interface HtmlReportInput {
  summary: RunSummary;
  /** Details of failing cases by id (from the case reports); a failure without one shows its summary entry only. */
  details?: readonly HtmlCaseDetail[];
  /** Result rows shown per side (default 10). */
  sampleRows?: number;
  /** Failures shown in full (default 500); the rest are counted. */
  maxFailures?: number;
  /** When the report was written (ISO), shown in the footer. */
  generatedAt?: string;
}

/** The case report fields the HTML report reads (a CaseReport fits). */
export interface HtmlCaseSource {
  id: string;
  question: string;
  fixture: string;
  report: {
    explanations: string[];
    evidence: {
      expected_sql: string;
      expected_sample: HtmlCaseDetail['expected_sample'];
      actual_sample: HtmlCaseDetail['actual_sample'];
    };
  } | null;
}

export function htmlCaseDetail(c: HtmlCaseSource): HtmlCaseDetail {
  return {
    id: c.id,
    question: c.question,
    fixture: c.fixture,
    expected_sql: c.report?.evidence.expected_sql ?? null,
    expected_sample: c.report?.evidence.expected_sample ?? null,
    actual_sample: c.report?.evidence.actual_sample ?? null,
    explanations: c.report?.explanations ?? [],
  };
}

/** Text and attribute escaping: the five characters that can end a text or an attribute value. */
export function esc(text: string): string {
  return String(text).replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!,
  );
}

export const HTML_REPORT_CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem auto;max-width:72rem;padding:0 1rem;color:#1b1f24;background:#fff}
h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #d0d7de}h3{font-size:1rem}
table{border-collapse:collapse;margin:.5rem 0 1rem}th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f6f8fa}
pre,code{font-family:ui-monospace,monospace;font-size:12.5px}pre{background:#f6f8fa;padding:.5rem;overflow:auto;white-space:pre-wrap;margin:.25rem 0}
.muted{color:#57606a}.bad{color:#b42318}.good{color:#067647}
details{border:1px solid #d0d7de;border-radius:6px;padding:.4rem .7rem;margin:.5rem 0}summary{cursor:pointer}
.samples{display:flex;flex-wrap:wrap;gap:1rem}.samples>div{flex:1 1 20rem;overflow:auto}
svg.ci{vertical-align:middle}`;

/** SHA-256 of HTML_REPORT_CSS, base64: the CSP allows that stylesheet and nothing else (checked by a test). */
export const HTML_REPORT_CSS_SHA256 = 'sha256-i9Gs8P4lyLu/waanqXM0c24sgE/CiVINLtLSQDA1gPg=';

export const HTML_REPORT_CSP = `default-src 'none'; style-src '${HTML_REPORT_CSS_SHA256}'; img-src 'none'; script-src 'none'; form-action 'none'; base-uri 'none'`;

const pct = percent;

/** A 120 px bar: the interval as a band, the rate as a tick (SVG attributes, no inline style). */
function ciBar(rate: number | null, ci: Interval | null): string {
  if (rate === null || !ci) return '';
  const w = 120;
  const x = (v: number) => (v * w).toFixed(1);
  return `<svg class="ci" width="${w}" height="10" viewBox="0 0 ${w} 10" role="img" aria-label="${esc(`95% interval ${pct(ci[0])} to ${pct(ci[1])}`)}"><rect x="0" y="4" width="${w}" height="2" fill="#d0d7de"/><rect x="${x(ci[0])}" y="2" width="${Math.max(0.5, (ci[1] - ci[0]) * w).toFixed(1)}" height="6" fill="#9ec5fe"/><rect x="${Math.min(w - 2, rate * w - 1).toFixed(1)}" y="0" width="2" height="10" fill="#0a58ca"/></svg>`;
}

function rateCells(
  r: { count: number; total: number; rate: number | null; ci95: Interval | null },
  testid: string,
): string {
  if (r.total === 0) return `<td class="n" data-testid="${testid}-count">—</td><td class="n">—</td><td>—</td>`;
  // A refusal stratum is counts only (seed 003): no rate, no interval.
  if (r.rate === null)
    return `<td class="n" data-testid="${testid}-count">${r.count} / ${r.total}</td><td class="n">—</td><td>—</td>`;
  return `<td class="n" data-testid="${testid}-count">${r.count} / ${r.total}</td><td class="n">${pct(r.rate!)}</td><td>${r.ci95 ? `${pct(r.ci95[0])}–${pct(r.ci95[1])} ` : ''}${ciBar(r.rate, r.ci95)}</td>`;
}

function cellText(v: JsonValue): string {
  if (v === null) return 'NULL';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

function sampleTable(title: string, t: HtmlCaseDetail['expected_sample'], maxRows: number): string {
  if (!t) return `<div><h4>${esc(title)}</h4><p class="muted">No result.</p></div>`;
  const rows = t.rows.slice(0, maxRows);
  const head = t.columns.map((c) => `<th>${esc(c.name)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((v) => `<td>${esc(cellText(v))}</td>`).join('')}</tr>`).join('');
  const more =
    t.total_rows > rows.length
      ? `<p class="muted">${rows.length} of ${t.total_rows} rows shown.</p>`
      : `<p class="muted">${t.total_rows} row${t.total_rows === 1 ? '' : 's'}.</p>`;
  return `<div><h4>${esc(title)}</h4><table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>${more}</div>`;
}

function breakdownTable(key: keyof Breakdowns, rows: BreakdownRow[]): string {
  const head =
    '<tr><th></th><th>Cases</th><th>Correct</th><th>Accuracy</th><th>95% interval</th><th>Right</th><th>Right rate</th><th>95% interval</th><th>Wrong</th><th>No query</th><th>Missed refusal</th><th>Declined</th></tr>';
  const body = rows
    .map(
      (x) =>
        `<tr data-key="${esc(x.key)}"><th scope="row">${esc(x.key)}</th><td class="n" data-testid="total">${x.total}</td>${rateCells(x.accuracy, 'accuracy')}${rateCells(x.success, 'success')}<td class="n">${x.outcomes.wrong}</td><td class="n">${x.outcomes.no_query}</td><td class="n">${x.outcomes.missed_refusal}</td><td class="n">${x.outcomes.over_refusal + x.outcomes.declined_unarmed}</td></tr>`,
    )
    .join('');
  return `<h3>${esc(BREAKDOWN_TITLES[key])}</h3><table data-testid="breakdown-${key}"><thead>${head}</thead><tbody>${body}</tbody></table>`;
}

function figure(
  name: string,
  r: { count: number; total: number; rate: number | null; ci95: Interval | null },
  denominator: string,
  testid: string,
): string {
  return `<tr data-testid="${testid}"><th scope="row">${esc(name)}</th>${rateCells(r, testid)}<td>${esc(denominator)}</td></tr>`;
}

export function toHtml(input: HtmlReportInput): string {
  const s = input.summary;
  const maxRows = input.sampleRows ?? 10;
  const maxFailures = input.maxFailures ?? 500;
  const details = new Map((input.details ?? []).map((d) => [d.id, d]));
  const a = s.answer_accuracy;
  const r = s.refusal_recall;
  const o = s.over_refusal;
  const rs = s.reliability;
  const title = `SQL Verdict: ${s.corpus.name}${s.corpus.version === null ? '' : ` v${s.corpus.version}`}`;
  const out: string[] = [];
  out.push(
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${esc(HTML_REPORT_CSP)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(title)}</title><style>${HTML_REPORT_CSS}</style></head><body>`,
    `<h1>${esc(title)}</h1>`,
    `<p class="muted">Corpus <code>${esc(s.corpus.name)}</code>, <span data-testid="size">${s.corpus.size}</span> cases, SHA-256 <code>${esc(s.corpus.sha256)}</code><br>` +
      `Run: agent <code>${esc(s.run.agent ?? '—')}</code>, model <code>${esc(s.run.model ?? 'none')}</code>, path <code>${esc(s.run.path ?? '—')}</code>${s.run.created_at ? `, ${esc(s.run.created_at)}` : ''}</p>`,
    '<h2>Figures</h2>',
    '<table data-testid="figures"><thead><tr><th>Figure</th><th>Count</th><th>Rate</th><th>95% interval (Wilson score)</th><th>Denominator</th></tr></thead><tbody>',
    figure(
      'Answer accuracy',
      { count: a.correct, total: a.total, rate: a.rate, ci95: a.ci95 },
      'answerable cases (no arm, or must-answer)',
      'answer-accuracy',
    ),
    figure(
      'Refusal recall',
      { count: r.declined, total: r.total, rate: r.rate, ci95: r.ci95 },
      'must-refuse arm',
      'refusal-recall',
    ),
    figure(
      'Over-refusal',
      { count: o.declined, total: o.total, rate: o.rate, ci95: o.ci95 },
      'must-answer arm',
      'over-refusal',
    ),
    `<tr><th scope="row">Reliability RS(${rs.c})</th><td class="n">sum ${rs.sum}</td><td class="n">${rs.mean === null ? '—' : `mean ${rs.mean.toFixed(3)}`}</td><td>—</td><td>${rs.cases} cases: +1 × ${rs.plus}, 0 × ${rs.zero}, −${rs.c} × ${rs.minus}</td></tr>`,
    '</tbody></table>',
    '<h2>Outcomes</h2><table data-testid="outcomes"><thead><tr><th>Outcome</th><th>Cases</th></tr></thead><tbody>',
    ...CASE_OUTCOMES.map(
      (k) => `<tr data-outcome="${k}"><th scope="row">${k}</th><td class="n">${s.outcomes[k]}</td></tr>`,
    ),
    `<tr><th scope="row">total</th><td class="n" data-testid="outcomes-total">${s.cases.length}</td></tr></tbody></table>`,
  );
  if (s.breakdowns) {
    out.push(
      '<h2>Breakdowns</h2>',
      '<p class="muted">Accuracy: correct out of the answerable cases of the row. Right: correct answers and correct refusals out of all its cases. Intervals: Wilson score, 95%.</p>',
    );
    for (const key of BREAKDOWN_KEYS) if (s.breakdowns[key].length) out.push(breakdownTable(key, s.breakdowns[key]));
  }
  out.push(`<h2>Failures (<span data-testid="failure-count">${s.failures.length}</span>)</h2>`);
  if (s.failures.length === 0) out.push('<p>None.</p>');
  else {
    const shown = s.failures.slice(0, maxFailures);
    out.push(
      '<table data-testid="failures"><thead><tr><th>Case</th><th>Outcome</th><th>Reason code</th><th>Reason</th></tr></thead><tbody>',
      ...shown.map(
        (f) =>
          `<tr data-case="${esc(f.id)}"><td><a href="#case-${esc(encodeURIComponent(f.id))}"><code>${esc(f.id)}</code></a></td><td class="bad">${esc(f.outcome)}</td><td><code>${esc(f.reason_code ?? '—')}</code></td><td>${esc(f.reason)}</td></tr>`,
      ),
      '</tbody></table>',
    );
    if (s.failures.length > shown.length)
      out.push(`<p class="muted">…and ${s.failures.length - shown.length} more failures (see the JSON report).</p>`);
    out.push('<h2>Failing cases</h2>');
    for (const f of shown) {
      const d = details.get(f.id);
      const caseResult = s.cases.find((k) => k.id === f.id);
      const labels = [
        (d?.fixture ?? caseResult?.fixture) ? `fixture ${esc(d?.fixture ?? caseResult?.fixture ?? '')}` : '',
        caseResult?.difficulty ? `difficulty ${esc(caseResult.difficulty)}` : '',
        caseResult?.tags?.length ? `tags ${caseResult.tags.map((t) => `<code>${esc(t)}</code>`).join(', ')}` : '',
        f.arm ? `${esc(f.arm)}${f.stratum ? ` / ${esc(f.stratum)}` : ''}` : '',
      ].filter(Boolean);
      out.push(
        `<details id="case-${esc(encodeURIComponent(f.id))}" data-case="${esc(f.id)}"><summary><code>${esc(f.id)}</code> · <span class="bad">${esc(f.outcome)}</span> · ${esc(f.reason)}</summary>`,
        labels.length ? `<p class="muted">${labels.join(' · ')}</p>` : '',
        d ? `<p><strong>Question:</strong> ${esc(d.question)}</p>` : '',
        ...(d?.explanations ?? []).map((e) => `<p>${esc(e)}</p>`),
        d?.expected_sql !== undefined && d?.expected_sql !== null
          ? `<h4>Reference SQL</h4><pre>${esc(d.expected_sql)}</pre>`
          : '',
        `<h4>Candidate SQL</h4><pre>${f.query === null ? '(no query)' : esc(f.query)}</pre>`,
        d && (d.expected_sample || d.actual_sample)
          ? `<div class="samples">${sampleTable('Reference result', d.expected_sample, maxRows)}${sampleTable('Candidate result', d.actual_sample, maxRows)}</div>`
          : '',
        '</details>',
      );
    }
  }
  out.push(
    `<p class="muted">Written by SQL Verdict${input.generatedAt ? ` on ${esc(input.generatedAt)}` : ''}. This file has no scripts.</p>`,
    '</body></html>',
    '',
  );
  return out.filter((l) => l !== '').join('\n');
}
