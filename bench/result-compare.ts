/**
 * Result comparison benchmark: for 10k, 100k and 1M-row results (5 columns:
 * BIGINT, DECIMAL, DOUBLE, VARCHAR, DATE) produced by DuckDB, time the
 * comparison and its peak memory in Node, next to the time DuckDB takes to
 * produce the two results. Scenarios: a shuffled equal result (the bag
 * comparison of the budget), one changed cell (a failing verdict), and
 * floats off in the last bits (the tolerance path).
 */
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import type { Engine } from '../src/core/engine.ts';
import { compareResults } from '../src/core/result/index.ts';
import type { ResultTable } from '../src/core/value/kind.ts';
import { openEngine } from '../src/engines/node.ts';
import type { Figure } from './harness.ts';

export interface ResultCompareBenchOptions {
  sizes?: number[];
  /** 1M × 5 bag comparison budget, milliseconds. */
  budgetMs?: number;
  log?: (line: string) => void;
}

export interface ResultCompareBenchRow {
  rows: number;
  scenario: string;
  verdict: boolean;
  compare_ms: number;
  compare_cpu_ms: number;
  peak_rss_delta_mb: number;
  /** Wall time to run the expected and the actual query (results in Node), and DuckDB's own time for them. */
  queries_ms: number;
  engine_ms: number;
  /** compare_ms / queries_ms. */
  ratio: number;
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const FIXTURE = new TextEncoder().encode('CREATE TABLE t(x INTEGER);\n');

const select = (
  n: number,
  ratio = 'i / 7.0',
) => `SELECT i AS id, ((i % 100000) / 100)::DECIMAL(12,2) AS amount, (${ratio})::DOUBLE AS ratio,
  'customer ' || (i % 1000) AS name, DATE '2024-01-01' + (i % 365)::INTEGER AS day FROM range(${n}) t(i)`;

/** A thread that samples the process RSS every few milliseconds (the main thread is busy comparing). */
function startRssSampler(): { stop(): Promise<number> } {
  const shared = new SharedArrayBuffer(16);
  const state = new Float64Array(shared);
  const worker = new Worker(
    `const { workerData } = require('node:worker_threads');
     const state = new Float64Array(workerData);
     const flag = new Int32Array(workerData, 8, 1);
     while (Atomics.load(flag, 0) === 0) {
       const rss = process.memoryUsage.rss();
       if (rss > state[0]) state[0] = rss;
       Atomics.wait(flag, 0, 0, 5);
     }`,
    { eval: true, workerData: shared },
  );
  return {
    async stop() {
      Atomics.store(new Int32Array(shared, 8, 1), 0, 1);
      await worker.terminate();
      return state[0]!;
    },
  };
}

async function run(
  engine: Engine,
  sql: string,
  rows: number,
): Promise<{ table: ResultTable; wallMs: number; engineMs: number }> {
  const started = performance.now();
  const outcome = await engine.execute(sql, { maxRows: rows, timeoutMs: 300_000 });
  if (!outcome.ok) throw new Error(`DuckDB: ${outcome.error.message}`);
  return {
    table: { columns: outcome.value.columns, rows: outcome.value.rows },
    wallMs: performance.now() - started,
    engineMs: outcome.value.elapsedMs,
  };
}

async function measure(
  expected: ResultTable,
  actual: ResultTable,
): Promise<{ ms: number; cpuMs: number; peakMb: number; pass: boolean }> {
  gc();
  const before = process.memoryUsage.rss();
  const sampler = startRssSampler();
  await new Promise((resolve) => setTimeout(resolve, 20));
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = compareResults(expected, actual);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const peak = await sampler.stop();
  return {
    ms,
    cpuMs: (used.user + used.system) / 1000,
    peakMb: Math.max(0, peak - before) / 1e6,
    pass: result.result_equality_family.mode_pass,
  };
}

export async function runResultCompareBench(options: ResultCompareBenchOptions = {}): Promise<ResultCompareBenchRow[]> {
  const sizes = options.sizes ?? [10_000, 100_000, 1_000_000];
  const budget = options.budgetMs ?? 2000;
  const log = options.log ?? ((line: string) => console.log(line));
  const engine = openEngine('duckdb');
  const out: ResultCompareBenchRow[] = [];
  try {
    const loaded = await engine.load({
      name: 'bench',
      files: [{ fileName: 'bench.sql', format: 'sql', bytes: FIXTURE }],
    });
    if (!loaded.ok) throw new Error(loaded.error.message);
    log(
      'result comparison benchmark (DuckDB results, 5 columns; times in ms; memory: peak RSS growth during the comparison)',
    );
    log('rows       scenario            verdict  compare  cpu      peak MB  queries  duckdb   ratio');
    for (const n of sizes) {
      const expected = await run(engine, `${select(n)} ORDER BY i`, n);
      const scenarios: [string, () => Promise<{ table: ResultTable; wallMs: number; engineMs: number }>][] = [
        ['shuffled, equal', () => run(engine, `${select(n)} ORDER BY hash(i)`, n)],
        [
          'one changed cell',
          async () => {
            const r = await run(engine, `${select(n)} ORDER BY hash(i)`, n);
            const row = r.table.rows[Math.floor(n / 2)]!.slice();
            row[1] = '99999.99';
            r.table.rows[Math.floor(n / 2)] = row;
            return r;
          },
        ],
        ['floats off by 1e-12', () => run(engine, `${select(n, 'i / 7.0 * (1 + 1e-12)')} ORDER BY hash(i)`, n)],
      ];
      for (const [scenario, produce] of scenarios) {
        const actual = await produce();
        const m = await measure(expected.table, actual.table);
        const queries = expected.wallMs + actual.wallMs;
        const row: ResultCompareBenchRow = {
          rows: n,
          scenario,
          verdict: m.pass,
          compare_ms: Math.round(m.ms),
          compare_cpu_ms: Math.round(m.cpuMs),
          peak_rss_delta_mb: Math.round(m.peakMb),
          queries_ms: Math.round(queries),
          engine_ms: Math.round(expected.engineMs + actual.engineMs),
          ratio: Number((m.ms / queries).toFixed(3)),
        };
        out.push(row);
        log(
          [
            String(n).padEnd(10),
            scenario.padEnd(19),
            (m.pass ? 'pass' : 'fail').padEnd(8),
            String(row.compare_ms).padStart(7),
            String(row.compare_cpu_ms).padStart(7),
            String(row.peak_rss_delta_mb).padStart(8),
            String(row.queries_ms).padStart(8),
            String(row.engine_ms).padStart(8),
            row.ratio.toFixed(2).padStart(7),
          ].join('  '),
        );
        actual.table.rows.length = 0;
      }
      expected.table.rows.length = 0;
    }
    const bag = out.find((r) => r.rows === 1_000_000 && r.scenario === 'shuffled, equal');
    if (bag)
      log(
        `budget: 1M × 5 bag comparison ${bag.compare_ms} ms (${bag.compare_ms <= budget ? 'within' : 'OVER'} ${budget} ms); ` +
          `comparison / producing both results: ${bag.ratio.toFixed(2)} (${bag.ratio <= 1 ? 'within' : 'OVER'} 1.0)`,
      );
  } finally {
    await engine.close();
  }
  return out;
}

/** The rows as named figures for `bench/run.ts` (harness `printFigures` / baseline). */
export function resultCompareFigures(rows: ResultCompareBenchRow[]): Figure[] {
  return rows.flatMap((r) => {
    const name = `result_compare.${r.rows}.${r.scenario.replace(/[^a-z0-9]+/gi, '_').replace(/_$/, '')}`;
    return [
      { name: `${name}.compare_ms`, value: r.compare_ms, unit: 'ms' },
      { name: `${name}.peak_rss_delta_mb`, value: r.peak_rss_delta_mb, unit: 'MB' },
      { name: `${name}.ratio_to_queries`, value: r.ratio, unit: '×' },
    ];
  });
}

// `node --import tsx bench/result-compare.ts [sizes...]` runs this benchmark alone.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const sizes = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  await runResultCompareBench(sizes.length ? { sizes } : {});
  process.exit(0);
}
