/** Binning for the small SVG histograms (no chart library). */

export interface Bins {
  /** Bin edges: edges.length = counts.length + 1. */
  edges: number[];
  counts: number[];
  /** Values outside the edges, counted into the first/last bin. */
  clamped: number;
  total: number;
}

/** Equal-width bins over [min, max]; the last bin includes max (a score of 1 lands in 0.9–1). */
export function binLinear(values: readonly number[], min: number, max: number, bins: number): Bins {
  const edges = Array.from({ length: bins + 1 }, (_, i) => min + ((max - min) * i) / bins);
  const counts = new Array<number>(bins).fill(0);
  let clamped = 0;
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    let i = Math.floor(((v - min) / (max - min)) * bins);
    if (i < 0 || i > bins || (i === bins && v > max)) clamped++;
    i = Math.max(0, Math.min(bins - 1, i));
    counts[i]!++;
  }
  return { edges, counts, clamped, total: counts.reduce((a, b) => a + b, 0) };
}

/** Bins on a log2 scale (ratios: ½ and 2 are as far from 1). */
export function binLog2(values: readonly number[], minExp: number, maxExp: number): Bins {
  const logs = values.filter((v) => v > 0 && Number.isFinite(v)).map((v) => Math.log2(v));
  const b = binLinear(logs, minExp, maxExp, maxExp - minExp);
  return { ...b, edges: b.edges.map((e) => 2 ** e) };
}
