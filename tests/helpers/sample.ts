/**
 * Fixed-seed samples for Spider-wide checks in unit tests: the same items on every run and
 * machine, a few hundred instead of all 8,003 pairs (the whole benchmark is `npm run bench`'s).
 * SQL_VERDICT_SAMPLE_ALL=1 takes every item, for a one-off full check.
 */
import { rngFrom } from '../../src/core/neighbours/prng.ts';

export const SAMPLE_ALL = process.env.SQL_VERDICT_SAMPLE_ALL === '1';

/** Up to n items, chosen by a seeded shuffle, kept in their original order. */
export function seededSample<T>(items: readonly T[], n: number, seed = 20261201): T[] {
  if (SAMPLE_ALL || items.length <= n) return [...items];
  const random = rngFrom(seed).next;
  const index = items.map((_, i) => i);
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(random() * (index.length - i));
    [index[i], index[j]] = [index[j]!, index[i]!];
  }
  return index
    .slice(0, n)
    .sort((a, b) => a - b)
    .map((i) => items[i]!);
}
