import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { AppRules } from '../../src/core/stef/index.ts';
import { evaluateStef, FILTER_STATUSES, parseRules, VERDICT_LABELS } from '../../src/core/stef/index.ts';
import { repoRoot } from '../helpers/paths.ts';

interface Case {
  id: string;
  question: string;
  enriched?: string;
  sql: string;
  rules?: string;
  expect: {
    filter_status: string;
    verdict: string;
    phi_band: 'high' | 'mid' | 'low';
    leniency?: number;
    production_rules?: string[];
    drift?: boolean;
  };
}

const corpus = parse(readFileSync(path.join(repoRoot, 'fixtures/stef/cases.yaml'), 'utf8')) as {
  rule_sets: Record<string, unknown>;
  cases: Case[];
};
const band = (phi: number) => (phi >= 80 ? 'high' : phi >= 50 ? 'mid' : 'low');

describe('STEF corpus (fixtures/stef/cases.yaml)', () => {
  it('has at least 40 cases covering every filter status, verdict, production rule, benign extras, drift and R_app', () => {
    expect(corpus.cases.length).toBeGreaterThanOrEqual(40);
    const statuses = new Set(corpus.cases.map((c) => c.expect.filter_status));
    for (const s of FILTER_STATUSES) expect(statuses).toContain(s);
    const verdicts = new Set(corpus.cases.map((c) => c.expect.verdict));
    for (const v of VERDICT_LABELS.filter((l) => l !== 'likely_correct')) expect(verdicts).toContain(v);
    const rules = new Set(corpus.cases.flatMap((c) => c.expect.production_rules ?? []));
    for (const r of ['required_group_by', 'benign_group_by', 'default_order_by', 'safety_limit'])
      expect(rules).toContain(r);
    expect(corpus.cases.some((c) => c.expect.leniency === 1)).toBe(true);
    expect(corpus.cases.some((c) => c.expect.drift === true)).toBe(true);
    expect(corpus.cases.some((c) => c.rules)).toBe(true);
    expect(new Set(corpus.cases.map((c) => c.id)).size).toBe(corpus.cases.length);
  });

  for (const c of corpus.cases) {
    it(c.id, () => {
      let rules: AppRules | undefined;
      if (c.rules) {
        const checked = parseRules(corpus.rule_sets[c.rules]);
        expect(checked.ok).toBe(true);
        rules = checked.ok ? checked.value : undefined;
      }
      const r = evaluateStef({ question: c.question, enriched_question: c.enriched ?? null, sql: c.sql, rules });
      expect(r.ok, JSON.stringify(!r.ok && r.error)).toBe(true);
      if (!r.ok) return;
      const got = {
        filter_status: r.value.filter_alignment.status,
        verdict: r.value.semantic_verdict.label,
        phi_band: band(r.value.phi),
        ...(c.expect.leniency !== undefined ? { leniency: r.value.filter_alignment.leniency } : {}),
        ...(c.expect.production_rules ? { production_rules: r.value.production_rules_applied.map((p) => p.rule) } : {}),
        ...(c.expect.drift !== undefined ? { drift: r.value.drift?.drifted ?? false } : {}),
      };
      expect(
        got,
        `${r.value.phi} ${r.value.semantic_verdict.rationale} | ${r.value.evidence.question_spec.trace.join(' | ')}`,
      ).toEqual(c.expect);
      expect(r.value.semantic_verdict.source).toBe('rules');
    });
  }
});
