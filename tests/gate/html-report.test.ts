import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CaseResult } from '../../src/core/gate/outcome.ts';
import { summarizeRun } from '../../src/core/gate/summary.ts';
import { HTML_REPORT_CSP, HTML_REPORT_CSS, HTML_REPORT_CSS_SHA256, esc, toHtml, type HtmlCaseDetail } from '../../src/core/report/html.ts';

/** Script and markup payloads: each one breaks out of text, of a double- or single-quoted attribute, or of a comment. */
const P = (tag: string) => `<script>window.__xss='${tag}'</script>"><img src=x onerror="window.__xss='${tag}'">'><svg onload=alert('${tag}')><!--`;

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
    { id: P('refuse-id'), outcome: 'missed_refusal', query: P('refuse-query'), arm: 'must_refuse', stratum: P('stratum') },
  ];
  const summary = summarizeRun(cases, { name: P('corpus'), version: P('version'), sha256: 'a'.repeat(64) }, { agent: P('agent'), model: P('model'), path: P('path'), created_at: P('created') });
  if (!summary.ok) throw new Error(summary.error.message);
  const detail: HtmlCaseDetail = {
    id: P('id'),
    question: P('question'),
    fixture: P('fixture'),
    expected_sql: P('expected_sql'),
    explanations: [P('explanation')],
    expected_sample: { columns: [{ name: P('column'), kind: 'text', engine_type: 'VARCHAR' }], rows: [[P('cell')], [null]], total_rows: 2 },
    actual_sample: { columns: [{ name: P('column2'), kind: 'other', engine_type: 'STRUCT' }], rows: [[{ k: P('nested') } as never]], total_rows: 1 },
  };
  return toHtml({ summary: summary.value, details: [detail], generatedAt: P('generated') });
}

describe('standalone HTML report', () => {
  it('escapes hostile text in every field: no tag, attribute or comment of a payload survives', () => {
    const html = hostileReport();
    // Every literal "<" starts the report's own markup (a payload's is escaped): read each tag and its attributes.
    expect(html).not.toContain('<!--');
    const tags = [...html.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9]*)([^<>]*)>/g)];
    expect(tags.map((t) => t[0]).join('').length + html.replace(/<(\/?)([a-zA-Z][a-zA-Z0-9]*)([^<>]*)>/g, '').length).toBe(html.length);
    // Outside tags (and the report's own stylesheet, fixed and hashed), no "<" or ">" is left.
    expect(html.split(`<style>${HTML_REPORT_CSS}</style>`)).toHaveLength(2);
    const text = html.replace(`<style>${HTML_REPORT_CSS}</style>`, '').replace(/^<!doctype html>/, '');
    expect(text.replace(/<(\/?)([a-zA-Z][a-zA-Z0-9]*)([^<>]*)>/g, '')).not.toMatch(/[<>]/);
    const ELEMENTS = new Set(['html', 'head', 'meta', 'title', 'style', 'body', 'h1', 'h2', 'h3', 'h4', 'p', 'br', 'code', 'span', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'a', 'details', 'summary', 'pre', 'div', 'strong', 'svg', 'rect']);
    const ATTRIBUTES = /^(lang|charset|http-equiv|content|name|class|id|href|scope|width|height|viewBox|role|aria-label|x|y|fill|data-[a-z-]+)$/;
    for (const [, , name, attrs] of tags) {
      expect(ELEMENTS.has(name!.toLowerCase()), name).toBe(true);
      const rest = attrs!.replace(/\s([a-zA-Z:-]+)="[^"]*"/g, (_m, attr: string) => {
        expect(attr, `${name} ${attr}`).toMatch(ATTRIBUTES);
        return '';
      });
      expect(rest.trim(), `${name}: unquoted attribute text`).toMatch(/^\/?$/);
    }
    // Links go to anchors of this page only.
    for (const [, href] of html.matchAll(/href="([^"]*)"/g)) expect(href).toMatch(/^#case-[^"\s]*$/);
    // Every payload is there, escaped (so it was rendered, not dropped).
    for (const tag of ['id', 'query', 'reason', 'reason_code', 'shape', 'fixture', 'tag', 'refuse-id', 'refuse-query', 'stratum', 'corpus', 'agent', 'model', 'path', 'created', 'question', 'expected_sql', 'explanation', 'column', 'cell', 'column2', 'generated'])
      expect(html, tag).toContain(esc(P(tag)));
    expect(html).toContain(esc(JSON.stringify({ k: P('nested') })));
  });

  it('carries a strict CSP: no script at all, only its own stylesheet by hash', () => {
    expect(HTML_REPORT_CSS_SHA256).toBe(`sha256-${createHash('sha256').update(HTML_REPORT_CSS).digest('base64')}`);
    expect(HTML_REPORT_CSP).toContain("script-src 'none'");
    expect(HTML_REPORT_CSP).toContain("default-src 'none'");
    expect(hostileReport()).toContain(`<meta http-equiv="Content-Security-Policy" content="${esc(HTML_REPORT_CSP)}">`);
  });
});
