/** Printing exact figures for the gate's arithmetic lines. */
import { isExactAt, mul, rat, toFixed, type Rational } from './rational.ts';

/** "0.925", or "≈0.667" when three places do not hold the value exactly. */
export function dec3(r: Rational): string {
  return (isExactAt(r, 3) ? '' : '≈') + toFixed(r, 3);
}

/** The shortest exact decimal of a rate read from policy (0.85, 0.075). */
export function decText(r: Rational): string {
  for (let digits = 0; digits <= 12; digits++) if (isExactAt(r, digits)) return toFixed(r, digits);
  return `≈${toFixed(r, 12)}`;
}

/** A rate as a percentage: "88.0%", "87.95%", or "≈66.667%" when not exact at two places. */
export function pct(r: Rational): string {
  const p = mul(r, rat(100));
  if (isExactAt(p, 1)) return `${toFixed(p, 1)}%`;
  if (isExactAt(p, 2)) return `${toFixed(p, 2)}%`;
  return `≈${toFixed(p, 3)}%`;
}

/** Percentage points: "2.0", "2.1", "≈1.667". */
export function points(r: Rational): string {
  if (isExactAt(r, 1)) return toFixed(r, 1);
  if (isExactAt(r, 2)) return toFixed(r, 2);
  return `≈${toFixed(r, 3)}`;
}

/** A rate printed from counts: "0.900" (or "—" for an empty arm). */
export function rateText(k: number, n: number): string {
  return n === 0 ? '—' : dec3(rat(k, n));
}

export function quote(s: string | null | undefined): string {
  return s === null || s === undefined ? 'none' : JSON.stringify(s);
}

export function shortDigest(d: string): string {
  return d.length > 16 ? `${d.slice(0, 12)}…` : d;
}
