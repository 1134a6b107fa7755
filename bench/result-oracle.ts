/**
 * Result matching against the brute-force oracle (tests/result/oracle.ts):
 * ≥ 20,000 generated pairs (tests/result/pair-gen.ts; `npm test` runs a
 * fixed-seed slice of 1,500) must show 0 disagreements; then the large
 * adversarial shapes, timed: identical-multiset columns renamed and
 * permuted, a 7-column Latin square, float chains that need one augmenting
 * path through every row.
 */
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { compareResults, resultVerdict, type ComparisonConfig } from '../src/core/result/index.ts';
import type { ResultTable } from '../src/core/value/kind.ts';
import { disagreement } from '../tests/result/oracle.ts';
import {
  describePair,
  floatChain,
  identicalMultisetTable,
  pairArb,
  permuteColumns,
  shuffleRows,
} from '../tests/result/pair-gen.ts';
import type { Figure } from './harness.ts';

export interface OracleBenchResult {
  pairs: number;
  disagreements: number;
  firstDisagreement: string | null;
  oracleMs: number;
  productMs: number;
  /** CPU time of the product's comparisons (wall time is noisy on a shared machine). */
  productCpuMs: number;
  adversarial: { name: string; verdict: string; expected: string; ms: number }[];
}

const SEED = 424_242;

function timed<T>(fn: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = fn();
  return { value, ms: performance.now() - start };
}

function adversarialCases(): {
  name: string;
  expected: ResultTable;
  actual: ResultTable;
  config?: Partial<ComparisonConfig>;
  verdict: 'pass' | 'fail';
}[] {
  const identical = identicalMultisetTable(8, 2000);
  const permuted = shuffleRows(permuteColumns(identical, [5, 2, 7, 0, 3, 6, 1, 4]), 99);
  const swapped = { columns: permuted.columns, rows: permuted.rows.map((r) => r.slice()) };
  const k = swapped.rows.findIndex((r, i) => i > 0 && r[2] !== swapped.rows[0]![2]);
  [swapped.rows[0]![2], swapped.rows[k]![2]] = [swapped.rows[k]![2]!, swapped.rows[0]![2]!];
  const floats = identicalMultisetTable(8, 2000, 'float');
  const latin = {
    columns: Array.from({ length: 7 }, (_, c) => ({ name: `c${c}`, kind: 'integer' as const, engineType: 'INTEGER' })),
    rows: Array.from({ length: 7 }, (_, r) => Array.from({ length: 7 }, (_, c) => (r + c) % 7)),
  };
  const chain = floatChain(2000);
  const longPath = floatChain(2000, true);
  return [
    { name: 'identical_multiset_8x2000_permuted', expected: identical, actual: permuted, verdict: 'pass' },
    {
      name: 'identical_multiset_8x2000_permuted_order_sensitive',
      expected: identical,
      actual: permuteColumns(identical, [5, 2, 7, 0, 3, 6, 1, 4]),
      config: { comparison_mode: 'order-sensitive' },
      verdict: 'pass',
    },
    { name: 'identical_multiset_8x2000_two_cells_swapped', expected: identical, actual: swapped, verdict: 'fail' },
    {
      name: 'identical_multiset_8x2000_float_permuted',
      expected: floats,
      actual: shuffleRows(permuteColumns(floats, [7, 6, 5, 4, 3, 2, 1, 0]), 7),
      verdict: 'pass',
    },
    {
      name: 'latin_square_7x7_permuted',
      expected: latin,
      actual: permuteColumns(latin, [6, 4, 2, 0, 5, 3, 1]),
      verdict: 'pass',
    },
    { name: 'float_chain_2000', expected: chain.expected, actual: chain.actual, verdict: 'pass' },
    {
      name: 'float_chain_2000_one_augmenting_path',
      expected: longPath.expected,
      actual: longPath.actual,
      verdict: 'pass',
    },
  ];
}

export function runOracleBench(options: { pairs?: number; log?: (line: string) => void } = {}): OracleBenchResult {
  const log = options.log ?? ((line: string) => console.log(line));
  const pairs = options.pairs ?? 20_000;
  let disagreements = 0;
  let firstDisagreement: string | null = null;
  let oracleMs = 0;
  let productMs = 0;
  let productCpuMs = 0;
  // In batches of 1,000 pairs, each from its own seed (fc.sample holds the batch in memory).
  for (let done = 0, batch = 0; done < pairs; batch++) {
    const size = Math.min(1000, pairs - done);
    for (const p of fc.sample(pairArb(), { seed: SEED + batch, numRuns: size })) {
      const d = disagreement(p, (e, a, c, o) => {
        const cpu = process.cpuUsage();
        const run = timed(() => compareResults(e, a, c, o));
        const used = process.cpuUsage(cpu);
        productCpuMs += (used.user + used.system) / 1000;
        productMs += run.ms;
        return run.value;
      });
      if (d) {
        disagreements++;
        firstDisagreement ??= `${d}\n${describePair(p)}`;
      }
    }
    done += size;
  }
  // The oracle's own time: the whole loop minus the product's share is not separable per pair, so time it apart on one batch.
  const probe = fc.sample(pairArb(), { seed: SEED, numRuns: 1000 });
  const oracleRun = timed(() =>
    probe.forEach((p) =>
      disagreement(p, () => ({ result_equality_family: { mode_pass: false }, reasons: [{ code: 'x' }] })),
    ),
  );
  oracleMs = (oracleRun.ms * pairs) / 1000;
  log(
    `oracle: ${pairs} generated pairs, ${disagreements} disagreements; product ${productMs.toFixed(0)} ms wall, ${productCpuMs.toFixed(0)} ms CPU (${((productCpuMs / pairs) * 1000).toFixed(0)} µs CPU/pair), oracle ≈ ${oracleMs.toFixed(0)} ms`,
  );
  if (firstDisagreement) log(`first disagreement: ${firstDisagreement.slice(0, 4000)}`);

  const adversarial: OracleBenchResult['adversarial'] = [];
  for (const c of adversarialCases()) {
    compareResults(c.expected, c.actual, c.config ?? {}); // warm-up
    const runs = Array.from({ length: 3 }, () =>
      timed(() => resultVerdict(compareResults(c.expected, c.actual, c.config ?? {}))),
    );
    const ms = runs.map((r) => r.ms).sort((a, b) => a - b)[1]!;
    adversarial.push({ name: c.name, verdict: runs[0]!.value, expected: c.verdict, ms });
    log(`${c.name.padEnd(52)} ${runs[0]!.value.padEnd(9)} (right: ${c.verdict}) ${ms.toFixed(1).padStart(8)} ms`);
  }
  return { pairs, disagreements, firstDisagreement, oracleMs, productMs, productCpuMs, adversarial };
}

export function oracleFigures(r: OracleBenchResult): Figure[] {
  return [
    { name: 'result_oracle.pairs', value: r.pairs, unit: 'pairs', lowerIsBetter: false },
    { name: 'result_oracle.disagreements', value: r.disagreements, unit: 'pairs' },
    { name: 'result_oracle.product_cpu_us_per_pair', value: (r.productCpuMs / r.pairs) * 1000, unit: 'µs' },
    ...r.adversarial.flatMap((a) => [
      { name: `result_adversarial.${a.name}.ms`, value: a.ms, unit: 'ms' },
      { name: `result_adversarial.${a.name}.wrong_verdict`, value: a.verdict === a.expected ? 0 : 1, unit: '' },
    ]),
  ];
}

// `node --import tsx bench/result-oracle.ts [pairs]` runs this benchmark alone.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const pairs = Number(process.argv[2] ?? 20_000);
  const result = runOracleBench({ pairs });
  process.exit(result.disagreements === 0 && result.adversarial.every((a) => a.verdict === a.expected) ? 0 : 1);
}
