/**
 * The self-check's default comparison: the product's comparison policy
 * (src/core/result, SPEC 3) at zero numeric tolerance, with the case's row
 * order and shape. A reference must reproduce its frozen result exactly under
 * the same rules a candidate is graded by.
 */
import { compareResults } from '../result/compare.ts';
import type { ResultCompare } from './compare.ts';

export const zeroTolerancePolicyCompare: ResultCompare = (expected, actual, request) => {
  const comparison = compareResults(
    expected,
    actual,
    {
      comparison_mode: request.orderMatters ? 'order-sensitive' : 'order-insensitive',
      numeric_abs_tolerance: 0,
      numeric_rel_tolerance: 0,
    },
    request.shape ? { shape: request.shape } : {},
  );
  return {
    equal: comparison.result_equality_family.mode_pass,
    reasons: comparison.reasons.map((r) => `${r.code}: ${r.message}`),
  };
};
