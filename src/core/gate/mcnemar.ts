/**
 * McNemar's exact test on paired binary outcomes: under the null hypothesis
 * the discordant pairs split 50/50, so with b and c discordant pairs
 * (n = b + c) the two-sided p-value is min(1, 2 · P[X ≤ min(b, c)]) for
 * X ~ Binomial(n, 1/2). Computed on bigint binomials, so it is exact for any
 * n, and converted to a double only at the end.
 */
import { rat, ratioToNumber } from './rational.ts';

export interface McNemarResult {
  method: 'mcnemar_exact';
  /** Discordant pairs right in A and wrong in B (regressed). */
  b: number;
  /** Discordant pairs wrong in A and right in B (fixed). */
  c: number;
  n: number;
  p_value: number;
  /** The p-value as an exact fraction (decimal strings). */
  p_exact: { numerator: string; denominator: string };
}

export function mcnemarExact(b: number, c: number): McNemarResult {
  if (!Number.isSafeInteger(b) || !Number.isSafeInteger(c) || b < 0 || c < 0)
    throw new RangeError('McNemar counts must be whole numbers ≥ 0');
  const n = b + c;
  const k = Math.min(b, c);
  let term = 1n; // C(n, 0)
  let tail = 1n;
  for (let i = 0; i < k; i++) {
    term = (term * BigInt(n - i)) / BigInt(i + 1);
    tail += term;
  }
  const num = 2n * tail;
  const den = 1n << BigInt(n);
  const p = num >= den ? rat(1) : rat(num, den);
  return {
    method: 'mcnemar_exact',
    b,
    c,
    n,
    p_value: ratioToNumber(p.n, p.d),
    p_exact: { numerator: p.n.toString(), denominator: p.d.toString() },
  };
}
