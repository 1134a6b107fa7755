/**
 * Numbers in messages: a double difference prints at a sensible precision
 * (1.1 − 3.21 is −2.11, not −2.1099999999999994), while the reason's `delta`
 * field keeps the exact double.
 */
import { describe, expect, test } from 'vitest';
import { compareResults } from '../../src/core/result/index.ts';
import { shownNumber } from '../../src/core/result/evidence.ts';
import { col, table } from './helpers.ts';

describe('rounded numbers in messages', () => {
  test('shownNumber rounds float noise to 12 significant digits and leaves exact values alone', () => {
    expect(shownNumber(1.1 - 3.21)).toBe('-2.11');
    expect(shownNumber(11993.119999999999)).toBe('11993.12');
    expect(shownNumber(0.00006248)).toBe('0.00006248');
    expect(shownNumber(1e-20)).toBe('1e-20');
    expect(shownNumber(60)).toBe('60');
    expect(shownNumber('-8220.84')).toBe('-8220.84');
    expect(shownNumber(null)).toBe('null');
  });

  test('a float value mismatch says "difference -2.11" and records the exact delta', () => {
    const comparison = compareResults(table([col('x', 'float')], [[3.21]]), table([col('x', 'float')], [[1.1]]));
    const reason = comparison.reasons.find((r) => r.code === 'value_mismatch');
    expect(reason?.message).toMatch(/expected 3\.21, got 1\.1 \(difference -2\.11 exceeds the tolerance [0-9.e-]+\)/);
    expect(reason && 'delta' in reason ? reason.delta : null).toBe(1.1 - 3.21);
  });
});
