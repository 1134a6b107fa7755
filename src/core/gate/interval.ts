/**
 * 95% intervals for the run summary's rates. Wilson's score interval for one
 * proportion (it stays inside [0, 1] and keeps sensible width at 0 or n
 * successes and small n, where the normal "Wald" interval collapses), and
 * Newcombe's hybrid score interval for the difference of two paired
 * proportions (Newcombe 1998, "Improved confidence intervals for the
 * difference between binomial proportions based on paired data", method 10),
 * used by run versus run beside McNemar's test.
 */

/** z for a two-sided 95% interval: the 0.975 quantile of the standard normal. */
export const Z95 = 1.959963984540054;

/** [low, high]; null when the denominator is 0 (no rate, no interval). */
export type Interval = [number, number];

/**
 * Wilson score interval for k successes out of n:
 * (p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n).
 */
export function wilson(k: number, n: number, z = Z95): Interval | null {
  if (!Number.isInteger(k) || !Number.isInteger(n) || k < 0 || n < 0 || k > n)
    throw new RangeError(`Wilson interval needs whole counts 0 ≤ k ≤ n (got ${k} of ${n})`);
  if (n === 0) return null;
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // Clamp the rounding error at the ends: at k = 0 the low end is exactly 0, at k = n the high end exactly 1.
  return [k === 0 ? 0 : Math.max(0, center - half), k === n ? 1 : Math.min(1, center + half)];
}

export interface PairedDifference {
  method: 'newcombe_paired_wilson';
  /** Rate of success in A and in B (same n). */
  a_rate: number | null;
  b_rate: number | null;
  /** B − A. */
  estimate: number | null;
  ci95: Interval | null;
  /** Both right, A right only (regressed), B right only (fixed), both wrong. */
  counts: { both: number; a_only: number; b_only: number; neither: number };
}

/**
 * Newcombe's method 10 for B − A on paired binary outcomes: the Wilson
 * intervals of both margins combined with the phi correlation of the 2×2
 * (taken as 0 when a margin is empty, as Newcombe does), with Newcombe's
 * correction for positive association: phi* = (AD − BC − N/2)/√(EFGH) when
 * AD − BC > N/2, 0 when 0 ≤ AD − BC ≤ N/2, the plain phi when AD < BC.
 * Without it, runs that agree on every case (no discordant pair, phi = 1)
 * got a zero-width interval [0, 0] whatever n.
 */
export function newcombePaired(both: number, aOnly: number, bOnly: number, neither: number, z = Z95): PairedDifference {
  const n = both + aOnly + bOnly + neither;
  const counts = { both, a_only: aOnly, b_only: bOnly, neither };
  if (n === 0)
    return { method: 'newcombe_paired_wilson', a_rate: null, b_rate: null, estimate: null, ci95: null, counts };
  const kA = both + aOnly;
  const kB = both + bOnly;
  const pA = kA / n;
  const pB = kB / n;
  const [lA, uA] = wilson(kA, n, z)!;
  const [lB, uB] = wilson(kB, n, z)!;
  const marginProduct = (both + aOnly) * (bOnly + neither) * (both + bOnly) * (aOnly + neither);
  const association = both * neither - aOnly * bOnly;
  const corrected = association > n / 2 ? association - n / 2 : association >= 0 ? 0 : association;
  const phi = marginProduct === 0 ? 0 : corrected / Math.sqrt(marginProduct);
  const d = pB - pA;
  const lower = Math.sqrt(Math.max(0, (pB - lB) ** 2 - 2 * phi * (pB - lB) * (uA - pA) + (uA - pA) ** 2));
  const upper = Math.sqrt(Math.max(0, (uB - pB) ** 2 - 2 * phi * (uB - pB) * (pA - lA) + (pA - lA) ** 2));
  return {
    method: 'newcombe_paired_wilson',
    a_rate: pA,
    b_rate: pB,
    estimate: d,
    ci95: [Math.max(-1, d - lower), Math.min(1, d + upper)],
    counts,
  };
}

/**
 * A rate as a percentage with one decimal, or more where one decimal would print 100.0% for a
 * rate below 1 or 0.0% for one above 0 (2146 of 2147 is "99.95%", not "100.0%": one failure
 * must not read as none).
 */
export function percent(x: number): string {
  let digits = 1;
  let text = (100 * x).toFixed(digits);
  while (digits < 10 && ((x < 1 && Number(text) >= 100) || (x > 0 && Number(text) === 0)))
    text = (100 * x).toFixed(++digits);
  return `${text}%`;
}

/** "85.9% [75.4%, 92.4%]"-style text of a rate and its interval (one decimal, see {@link percent}). */
export function pctText(rate: number | null, ci: Interval | null): string {
  if (rate === null) return '—';
  return ci ? `${percent(rate)} [${percent(ci[0])}, ${percent(ci[1])}]` : percent(rate);
}

/**
 * "+6.3 points [−1.2, +13.8]" for a difference of rates. A difference that prints as 0.0 claims no
 * direction: "±0.0", never "−0.0" (a tiny negative, or a float −0) nor "+0.0".
 */
export function pointsText(d: number | null, ci: Interval | null): string {
  if (d === null) return '—';
  const s = (x: number) => {
    const magnitude = Math.abs(100 * x).toFixed(1);
    return `${Number(magnitude) === 0 ? '±' : x > 0 ? '+' : '−'}${magnitude}`;
  };
  return ci ? `${s(d)} points [${s(ci[0])}, ${s(ci[1])}]` : `${s(d)} points`;
}
