import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HTML_REPORT_CSP, HTML_REPORT_CSS, HTML_REPORT_CSS_SHA256, esc } from '../../src/core/report/html.ts';
import { P, hostileReport } from '../helpers/hostile-report.ts';

describe('standalone HTML report', () => {
  it('escapes hostile text in every field: no tag, attribute or comment of a payload survives', () => {
    const html = hostileReport();
    // Every literal "<" starts the report's own markup (a payload's is escaped): read each tag and its attributes.
    expect(html).not.toContain('<!--');
    const tags = [...html.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9]*)([^<>]*)>/g)];
    expect(
      tags.map((t) => t[0]).join('').length + html.replace(/<(\/?)([a-zA-Z][a-zA-Z0-9]*)([^<>]*)>/g, '').length,
    ).toBe(html.length);
    // Outside tags (and the report's own stylesheet, fixed and hashed), no "<" or ">" is left.
    expect(html.split(`<style>${HTML_REPORT_CSS}</style>`)).toHaveLength(2);
    const text = html.replace(`<style>${HTML_REPORT_CSS}</style>`, '').replace(/^<!doctype html>/, '');
    expect(text.replace(/<(\/?)([a-zA-Z][a-zA-Z0-9]*)([^<>]*)>/g, '')).not.toMatch(/[<>]/);
    const ELEMENTS = new Set([
      'html',
      'head',
      'meta',
      'title',
      'style',
      'body',
      'h1',
      'h2',
      'h3',
      'h4',
      'p',
      'br',
      'code',
      'span',
      'table',
      'thead',
      'tbody',
      'tr',
      'th',
      'td',
      'a',
      'details',
      'summary',
      'pre',
      'div',
      'strong',
      'svg',
      'rect',
    ]);
    const ATTRIBUTES =
      /^(lang|charset|http-equiv|content|name|class|id|href|scope|width|height|viewBox|role|aria-label|x|y|fill|data-[a-z-]+)$/;
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
    for (const tag of [
      'id',
      'query',
      'reason',
      'reason_code',
      'shape',
      'fixture',
      'tag',
      'refuse-id',
      'refuse-query',
      'stratum',
      'corpus',
      'agent',
      'model',
      'path',
      'created',
      'question',
      'expected_sql',
      'explanation',
      'column',
      'cell',
      'column2',
      'generated',
    ])
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
