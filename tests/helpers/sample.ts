/**
 * Fixed-seed samples for Spider-wide checks in unit tests: the same items on every run and
 * machine, a few hundred instead of all 8,003 pairs (the whole benchmark is `npm run bench`'s).
 * SQL_VERDICT_SAMPLE_ALL=1 takes every item, for a one-off full check.
 */

/** mulberry32: a small seeded PRNG, enough to pick test items reproducibly. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const SAMPLE_ALL = process.env.SQL_VERDICT_SAMPLE_ALL === '1';

/** Up to n items, chosen by a seeded shuffle, kept in their original order. */
export function seededSample<T>(items: readonly T[], n: number, seed = 20261201): T[] {
  if (SAMPLE_ALL || items.length <= n) return [...items];
  const random = prng(seed);
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
