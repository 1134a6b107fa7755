import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { JudgeProvider } from '../../src/core/judge/provider.ts';
import {
  baseScore,
  evaluateStef,
  evaluateStefWithJudge,
  filterScore,
  gammaFactor,
  parseJudgeVerdict,
  parseRules,
  phi,
  VERDICT_SCORE,
} from '../../src/core/stef/index.ts';
import { repoRoot } from '../helpers/paths.ts';

describe('Φ = B/10 × 100 × Γ', () => {
  it('Γ bands at their boundaries', () => {
    expect(gammaFactor(1)).toBe(1.0);
    expect(gammaFactor(0.85)).toBe(1.0);
    expect(gammaFactor(0.8499)).toBe(0.8);
    expect(gammaFactor(0.65)).toBe(0.8);
    expect(gammaFactor(0.6499)).toBe(0.5);
    expect(gammaFactor(0)).toBe(0.5);
  });
  it('Φ at each band boundary', () => {
    expect(phi(10, 0.85)).toBe(100);
    expect(phi(10, 0.84)).toBe(80);
    expect(phi(10, 0.65)).toBe(80);
    expect(phi(10, 0.64)).toBe(50);
    expect(phi(9, 0.9)).toBe(90);
    expect(phi(7, 0.7)).toBe(56);
    expect(phi(0, 1)).toBe(0);
  });
  it('caps at 100 (B = 11 with the leniency boost)', () => {
    expect(baseScore(5, 5, 1)).toBe(11);
    expect(phi(11, 0.95)).toBe(100);
    expect(phi(11, 0.7)).toBe(88);
    expect(phi(11, 0.5)).toBe(55);
  });
  it('scores per category and verdict', () => {
    expect(VERDICT_SCORE).toEqual({ correct: 5, likely_correct: 4, potentially_incorrect: 2, incorrect: 0 });
    expect(filterScore('fully_applied', 1, [])).toEqual({ score: 5, leniency: 0 });
    expect(
      filterScore('fully_applied_with_extras', 1, [{ predicate: 'x', benign: true, kind: 'benign', reason: '' }]),
    ).toEqual({ score: 5, leniency: 1 });
    expect(
      filterScore('fully_applied_with_extras', 1, [{ predicate: 'x', benign: false, kind: 'unasked', reason: '' }]),
    ).toEqual({ score: 4, leniency: 0 });
    expect(filterScore('partially_applied', 0.5, []).score).toBe(3);
    expect(filterScore('partially_applied', 0.34, []).score).toBe(2);
    expect(filterScore('not_applied', 0, []).score).toBe(0);
  });
  it('the report carries phi, filter_alignment, semantic_verdict, confidence, gamma, evidence, drift, production_rules_applied', () => {
    const r = evaluateStef({
      question: 'How many orders were placed in 2025?',
      sql: 'SELECT count(*) FROM orders WHERE year(order_date) = 2025',
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(Object.keys(r.value)).toEqual([
      'phi',
      'base_score',
      'filter_alignment',
      'semantic_verdict',
      'confidence',
      'gamma',
      'evidence',
      'drift',
      'production_rules_applied',
    ]);
    expect(r.value).toMatchObject({
      phi: 100,
      gamma: 1,
      semantic_verdict: { label: 'correct', score: 5, source: 'rules' },
    });
    expect(JSON.parse(JSON.stringify(r.value))).toEqual(r.value);
  });
  it('complex SQL lowers γ to the 0.8 band', () => {
    const r = evaluateStef({
      question: 'How many orders were placed in 2025?',
      sql: 'WITH o AS (SELECT * FROM orders) SELECT count(*) FROM o WHERE year(order_date) = 2025',
    });
    expect(r.ok && [r.value.confidence, r.value.gamma, r.value.phi]).toEqual([0.8, 0.8, 80]);
  });
  it('bad inputs are errors as data', () => {
    const a = evaluateStef({ question: 'How many orders?', sql: 'SELEC x FROM' });
    expect(!a.ok && a.error.location).toBe('sql');
    const b = evaluateStef({ question: '  ', sql: 'SELECT 1' });
    expect(!b.ok && b.error.location).toBe('question');
  });
});

describe('semantic verdict from a judge', () => {
  const provider = (text: string | null): JudgeProvider => ({
    kind: 'openai',
    model: 'fake',
    endpoint: 'http://127.0.0.1/v1',
    complete: async () =>
      text === null
        ? { ok: false, error: { code: 'judge.timeout', message: 'timed out' } }
        : {
            ok: true,
            value: {
              text,
              usage: { input_tokens: 1, output_tokens: 1, usage_reported: true },
              model_id: 'fake',
              attempts: 1,
              latency_ms: 1,
            },
          },
  });
  const input = {
    question: 'How many orders were placed in 2025?',
    sql: 'SELECT count(*) FROM orders WHERE year(order_date) = 2025',
  };
  it('uses the judge answer and says so', async () => {
    const r = await evaluateStefWithJudge(
      input,
      provider('{"verdict": "likely correct", "confidence": 0.7, "rationale": "ok"}'),
    );
    expect(r.ok && r.value.semantic_verdict).toMatchObject({
      label: 'likely_correct',
      score: 4,
      confidence: 0.7,
      source: 'judge',
    });
    expect(r.ok && r.value.phi).toBe(72);
  });
  it('falls back to the rules on an invalid answer or a transport error', async () => {
    for (const p of [
      provider('I think it is fine'),
      provider('{"verdict": "great", "confidence": 2}'),
      provider(null),
    ]) {
      const r = await evaluateStefWithJudge(input, p);
      expect(r.ok && r.value.semantic_verdict.source).toBe('rules');
      expect(r.ok && r.value.semantic_verdict.judge_error).toBeTruthy();
    }
  });
  it('parses only the small JSON answer', () => {
    expect(parseJudgeVerdict('```json\n{"verdict":"incorrect","confidence":0.9,"rationale":"x"}\n```')).toEqual({
      label: 'incorrect',
      confidence: 0.9,
      rationale: 'x',
    });
    expect(parseJudgeVerdict('{"verdict":"incorrect"}')).toBeNull();
  });
});

describe('R_app: parseRules agrees with docs/r_app.schema.json', () => {
  const schema = JSON.parse(readFileSync(path.join(repoRoot, 'docs/r_app.schema.json'), 'utf8'));
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const validate = ajv.compile(schema);
  const sample = JSON.parse(readFileSync(path.join(repoRoot, 'fixtures/stef/r_app.json'), 'utf8'));
  const samples: [unknown, boolean][] = [
    [sample, true],
    [{}, true],
    [{ columns: { region: 'region_name' } }, true],
    [{ columns: { region: 3 } }, false],
    [{ benign_filters: [{ operator: '=' }] }, false],
    [{ benign_filters: [{ column: 'tenant_id', extra: 1 }] }, false],
    [{ safety_limit_threshold: 0 }, false],
    [{ safety_limit_threshold: 1.5 }, false],
    [{ default_order: { direction: 'UP' } }, false],
    [{ reference_date: '2025/06/30' }, false],
    [{ metrics: { revenue: { func: 'MEDIAN' } } }, false],
    [{ values: { cancelled: { column: 'status' } } }, false],
    [{ unknown_field: true }, false],
    [[], false],
  ];
  for (const [raw, valid] of samples)
    it(`${JSON.stringify(raw).slice(0, 60)} is ${valid ? 'valid' : 'invalid'}`, () => {
      expect(validate(raw)).toBe(valid);
      const r = parseRules(raw);
      expect(r.ok).toBe(valid);
      if (!r.ok) expect(r.error.location).toBeTruthy();
    });
});
