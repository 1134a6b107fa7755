/**
 * The STEF pipeline for one query: extraction (question and SQL,
 * independently) → alignment and filter classification → production rules
 * and semantic verdict → Φ. Pure; plain data in and out (Web Worker safe).
 */
import type { Outcome } from '../errors.ts';
import { fail, ok } from '../errors.ts';
import type { JudgeProvider } from '../judge/provider.ts';
import { alignFilters } from './align.ts';
import { extractSql } from './extract-sql.ts';
import { constraintsOf, extractQuestion, hasSpec } from './extract-question.ts';
import { judgeVerdict } from './judge-verdict.ts';
import { baseScore, gammaFactor, phi } from './score.ts';
import type { Drift, QuestionSpec, SemanticVerdict, StefInput, StefReport } from './types.ts';
import { rulesVerdict } from './verdict.ts';

/** Constraints Q_e added to, or lost from, Q_u. */
export function enrichedDrift(q: QuestionSpec, e: QuestionSpec): Drift {
  const a = constraintsOf(q);
  const b = constraintsOf(e);
  // A time window Q_u leaves unresolved and Q_e states is a refinement, not drift.
  const openTime = [...a.keys()].filter((k) => k.startsWith('time:unresolved'));
  const eTime = [...b.keys()].filter((k) => k.startsWith('time:') && !a.has(k));
  openTime.slice(0, eTime.length).forEach((k, i) => {
    a.delete(k);
    b.delete(eTime[i]!);
  });
  const added = [...b.entries()].filter(([k]) => !a.has(k)).map(([, v]) => v);
  const lost = [...a.entries()].filter(([k]) => !b.has(k)).map(([, v]) => v);
  return { added, lost, drifted: added.length + lost.length > 0 };
}

interface Prepared {
  report: StefReport;
  rulesVerdict: SemanticVerdict;
}

function prepare(input: StefInput): Outcome<Prepared> {
  if (typeof input.question !== 'string' || !input.question.trim())
    return fail('input.invalid', 'The question (Q_u) is empty.', { location: 'question' });
  const rules = input.rules ?? {};
  const sql = extractSql(input.sql ?? '', input.dialect ?? 'duckdb');
  if (!sql.ok) return { ok: false, error: { ...sql.error, location: 'sql' } };
  const q = extractQuestion(input.question, rules);
  const e = input.enriched_question?.trim() ? extractQuestion(input.enriched_question, rules) : null;
  if (!hasSpec(q) && !(e && hasSpec(e)))
    return fail(
      'input.invalid',
      'The question yields no specification the rules can check (no aggregation, filter, grouping, ordering or listing).',
      { location: 'question' },
    );
  const drift = e ? enrichedDrift(q, e) : null;
  const alignment = alignFilters(hasSpec(q) ? q : e!, e, sql.value, sql.text, rules);
  const verdict = rulesVerdict(hasSpec(q) ? q : e!, sql.value, sql.text, alignment, drift, rules);
  const report = assemble(alignment, verdict.verdict, q, e, sql.value, verdict.issues, drift, verdict.productionRules);
  return ok({ report, rulesVerdict: verdict.verdict });
}

function assemble(
  alignment: StefReport['filter_alignment'],
  verdict: SemanticVerdict,
  q: QuestionSpec,
  e: QuestionSpec | null,
  sql: StefReport['evidence']['sql_spec'],
  issues: StefReport['evidence']['issues'],
  drift: Drift | null,
  rules: StefReport['production_rules_applied'],
): StefReport {
  const base = baseScore(alignment.score, verdict.score, alignment.leniency);
  return {
    phi: phi(base, verdict.confidence),
    base_score: base,
    filter_alignment: alignment,
    semantic_verdict: verdict,
    confidence: verdict.confidence,
    gamma: gammaFactor(verdict.confidence),
    evidence: { question_spec: q, enriched_spec: e, sql_spec: sql, issues },
    drift,
    production_rules_applied: rules,
  };
}

/** Grade one query with the deterministic rules only. */
export function evaluateStef(input: StefInput): Outcome<StefReport> {
  const p = prepare(input);
  return p.ok ? ok(p.value.report) : p;
}

/** Grade one query; with a judge, the semantic verdict is the judge's (the rules answer when it fails). */
export async function evaluateStefWithJudge(
  input: StefInput,
  judge?: JudgeProvider | null,
): Promise<Outcome<StefReport>> {
  const p = prepare(input);
  if (!p.ok || !judge) return p.ok ? ok(p.value.report) : p;
  const verdict = await judgeVerdict(judge, input, p.value.rulesVerdict);
  const r = p.value.report;
  return ok(
    assemble(
      r.filter_alignment,
      verdict,
      r.evidence.question_spec,
      r.evidence.enriched_spec,
      r.evidence.sql_spec,
      r.evidence.issues,
      r.drift,
      r.production_rules_applied,
    ),
  );
}
