/** Φ = B/10 × 100 × Γ (seed 000, section 3), capped at 100. */
import type { VerdictLabel } from './types.ts';

/** Semantic verdict → score (0–5), documented in docs/stef.md. */
export const VERDICT_SCORE: Record<VerdictLabel, number> = {
  correct: 5,
  likely_correct: 4,
  potentially_incorrect: 2,
  incorrect: 0,
};

/** Γ from the confidence γ: ≥ 0.85 → 1.0; 0.65 ≤ γ < 0.85 → 0.8; γ < 0.65 → 0.5. */
export function gammaFactor(confidence: number): number {
  if (confidence >= 0.85) return 1.0;
  if (confidence >= 0.65) return 0.8;
  return 0.5;
}

/** B = filter alignment score (0–5) + semantic verdict score (0–5) + leniency (0 or 1). */
export function baseScore(filterScore: number, verdictScore: number, leniency: 0 | 1): number {
  return filterScore + verdictScore + leniency;
}

/** Φ on 0–100, rounded to one decimal; the cap applies after Γ (B = 11 at Γ = 1 gives 100, not 110). */
export function phi(base: number, confidence: number): number {
  const raw = (base / 10) * 100 * gammaFactor(confidence);
  return Math.round(Math.min(100, raw) * 10) / 10;
}
