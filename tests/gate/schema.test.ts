import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { recordBaseline } from '../../src/core/gate/baseline.ts';
import { applyGate } from '../../src/core/gate/gate.ts';
import { BASELINE_SCHEMA, GATE_RESULT_SCHEMA } from '../../src/core/gate/schema.ts';
import { summary } from './build.ts';
import { EVERY_OUTCOME } from './cases.ts';

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });

describe('JSON Schemas', () => {
  const s = summary(EVERY_OUTCOME);
  const b = recordBaseline(s, { date: '2026-07-01' });
  if (!b.ok) throw new Error(b.error.message);

  it('a recorded baseline validates', () => {
    const validate = ajv.compile(BASELINE_SCHEMA);
    expect(validate(JSON.parse(JSON.stringify(b.value))), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...b.value, model: '' })).toBe(false);
  });

  it('gate results validate: pass, blocked and refused', () => {
    const validate = ajv.compile(GATE_RESULT_SCHEMA);
    for (const g of [
      applyGate(s, b.value),
      applyGate(summary(EVERY_OUTCOME.slice(1)), b.value),
      applyGate(summary(EVERY_OUTCOME, {}, { model: null }), b.value),
      applyGate(s, {}),
    ]) {
      expect(validate(JSON.parse(JSON.stringify(g))), JSON.stringify(validate.errors)).toBe(true);
    }
  });
});
