/**
 * STEF validation against ground truth: the execution goldens' reference SQL
 * (correct by construction) and mechanical mutations of it (wrong by
 * construction), scored by the rules only. Prints ROC AUC, agreement at the
 * threshold and the disagreements — the figures in docs/stef.md.
 *   node --import tsx scripts/stef-validate.ts [--conventions] [--held-out] [--doc] [--markdown]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { AppRules, Mutation } from '../src/core/stef/index.ts';
import { evaluateStef, MUTATIONS, mutateSql, rocAuc } from '../src/core/stef/index.ts';

/** Chosen before looking at the goldens: Correct or Likely correct at Γ ≥ 0.8 (Φ ≥ 72) passes, Potentially incorrect at Γ = 1 (Φ = 70) passes. */
export const STEF_THRESHOLD = 70;

/** The fixtures' frozen "today" (stated in each fixture's schema description), given as R_app reference dates. */
const REFERENCE_DATES: Record<string, string> = { retail: '2025-06-30', retail_monthly: '2026-01-01' };

export interface ValidationRow {
  id: string;
  variant: 'reference' | Mutation;
  positive: boolean;
  phi: number | null;
  verdict: string | null;
  why: string;
}

export interface Validation {
  rows: ValidationRow[];
  evaluated: number;
  auc: number | null;
  agreement: number;
  threshold: number;
  positives: number;
  negatives: number;
}

/**
 * The fixtures' documented conventions (retail.schema.yaml: "net revenue" sums lines of orders whose
 * status is not 'cancelled') written as R_app — a business term that implies a predicate.
 */
export const CONVENTION_RULES: AppRules = {
  values: { 'net revenue': { column: 'status', value: 'cancelled', operator: '<>' } },
};

/**
 * The ground truth: the 64 execution goldens, or — held out, never looked at
 * while writing rules — the refusal battery's 20 must-answer controls (their
 * reference SQL is correct by the same self-check).
 */
export type ValidationCorpus = 'execution_goldens' | 'refusal_controls';

export function validateOnGoldens(
  opts: { conventions?: boolean; corpus?: ValidationCorpus } = {},
  root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'),
): Validation {
  const file =
    opts.corpus === 'refusal_controls'
      ? 'fixtures/corpora/refusal_battery.yaml'
      : 'fixtures/corpora/execution_goldens.yaml';
  const all = parse(readFileSync(path.join(root, file), 'utf8')) as {
    cases: { id: string; fixture: string; question: string; reference_sql?: string }[];
  };
  const corpus = {
    cases: all.cases.filter((c): c is typeof c & { reference_sql: string } => typeof c.reference_sql === 'string'),
  };
  const rows: ValidationRow[] = [];
  const score = (id: string, fixture: string, question: string, sql: string, variant: ValidationRow['variant']) => {
    const r = evaluateStef({
      question,
      sql,
      rules: { ...(opts.conventions ? CONVENTION_RULES : {}), reference_date: REFERENCE_DATES[fixture] },
    });
    rows.push({
      id,
      variant,
      positive: variant === 'reference',
      phi: r.ok ? r.value.phi : null,
      verdict: r.ok ? r.value.semantic_verdict.label : null,
      why: r.ok
        ? `${r.value.filter_alignment.status}; ${r.value.semantic_verdict.rationale}`
        : `not evaluated: ${r.error.message}`,
    });
  };
  for (const c of corpus.cases) {
    score(c.id, c.fixture, c.question, c.reference_sql, 'reference');
    for (const m of MUTATIONS) {
      const sql = mutateSql(c.reference_sql, m);
      if (sql) score(c.id, c.fixture, c.question, sql, m);
    }
  }
  const scored = rows.filter((r) => r.phi !== null);
  const auc = rocAuc(scored.map((r) => ({ score: r.phi!, positive: r.positive })));
  const agree = scored.filter((r) => r.phi! >= STEF_THRESHOLD === r.positive).length;
  return {
    rows,
    evaluated: scored.length,
    auc: auc === null ? null : Math.round(auc * 1000) / 1000,
    agreement: Math.round((agree / scored.length) * 1000) / 1000,
    threshold: STEF_THRESHOLD,
    positives: scored.filter((r) => r.positive).length,
    negatives: scored.filter((r) => !r.positive).length,
  };
}

/** The row of docs/stef.md's validation table for one run. */
export function docRow(label: string, v: Validation): string {
  return `| ${label} | ${v.evaluated} (${v.positives} + ${v.negatives}) | ${v.evaluated}/${v.rows.length} | ${v.auc?.toFixed(3)} | ${v.agreement.toFixed(3)} |`;
}

export const DOC_LABELS = {
  plain: 'reference date only',
  conventions: 'plus the fixtures\' "net revenue" convention',
  heldOut: "held out: the refusal battery's 20 controls, reference date only",
} as const;

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const v = validateOnGoldens({
    conventions: process.argv.includes('--conventions'),
    ...(process.argv.includes('--held-out') ? { corpus: 'refusal_controls' as const } : {}),
  });
  console.log(
    `rows ${v.rows.length}, evaluated ${v.evaluated} (${v.positives} references, ${v.negatives} mutants); ROC AUC ${v.auc}; agreement at Φ ≥ ${v.threshold}: ${v.agreement}`,
  );
  const byVariant = new Map<string, ValidationRow[]>();
  for (const r of v.rows) byVariant.set(r.variant, [...(byVariant.get(r.variant) ?? []), r]);
  for (const [k, rs] of byVariant) {
    const ev = rs.filter((r) => r.phi !== null);
    console.log(
      `${k}: n=${rs.length} evaluated=${ev.length} mean Φ=${(ev.reduce((a, r) => a + r.phi!, 0) / (ev.length || 1)).toFixed(1)} ${k === 'reference' ? 'pass' : 'caught'}=${ev.filter((r) => r.phi! >= v.threshold === (k === 'reference')).length}`,
    );
  }
  if (process.argv.includes('--doc')) {
    console.log(docRow(DOC_LABELS.plain, validateOnGoldens()));
    console.log(docRow(DOC_LABELS.conventions, validateOnGoldens({ conventions: true })));
    console.log(docRow(DOC_LABELS.heldOut, validateOnGoldens({ corpus: 'refusal_controls' })));
  }
  if (process.argv.includes('--markdown'))
    for (const r of v.rows.filter((x) => x.phi === null || x.phi >= v.threshold !== x.positive))
      console.log(`| ${r.id} | ${r.variant} | ${r.phi ?? '—'} | ${r.why.replace(/\|/g, '\\|').slice(0, 160)} |`);
}
