/**
 * Browser figures for `npm run bench`: DuckDB, SQLite and PGlite in headless Chromium,
 * through a production build of the app's own workers (page → app worker →
 * engine host worker → engine). A bench page (bench/browser/, built only
 * here) drives the app worker without the UI; the app page itself gives the
 * user's view (navigation to ready, click to answer).
 *
 * - engine start: the app worker spawns the host until the engine answers
 *   (cold: fresh browser context, nothing cached; warm: again in the same
 *   context, scripts and wasm in the HTTP cache);
 * - fixture load: engine-side load time and the app worker's wall time;
 * - per-query overhead: page round trip of `SELECT 1` minus the engine-side
 *   elapsedMs, split into the page ↔ app worker hop and the app worker ↔
 *   engine host hop.
 *
 * Run alone: `node --import tsx bench/browser-engines.ts [--runs N] [--engines duckdb,sqlite,pglite] [--json]`.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import type { EngineName } from '../src/core/engine.ts';
import { repoRoot } from '../tests/helpers/paths.ts';
import { launchChromium, serveBuiltApp, type ServedApp } from '../tests/browser/harness.ts';

export interface Stats {
  median: number;
  p90: number;
  min: number;
  max: number;
}

export interface FixtureFigures {
  fixture: string;
  rows: number;
  /** Engine-side load (set-up, loading, content digest). */
  loadMs: number;
  /** The same load as the app worker saw it. */
  loadWallMs: number;
}

export interface BrowserEngineFigures {
  engine: EngineName;
  version: string;
  /** App worker: spawn the host worker until the engine answers, nothing cached. */
  coldStartMs: number;
  /** The same again in the same browser context (HTTP cache warm). */
  warmStartMs: number;
  /** Page: create the app worker until it answers (cold). */
  appWorkerStartMs: number;
  fixtures: FixtureFigures[];
  query: {
    sql: string;
    runs: number;
    /** Engine-side elapsedMs (the raw engine call inside the host). */
    engineMs: Stats;
    /** Page round trip through app worker, engine host and engine. */
    roundTripMs: Stats;
    /** roundTrip − engine: everything that is not the engine. */
    overheadMs: Stats;
    /** app worker wall − engine: the app worker ↔ engine host hop (and supervision). */
    hostHopMs: Stats;
    /** roundTrip − app worker wall: the page ↔ app worker hop. */
    pageHopMs: Stats;
    /** A no-op call page ↔ app worker: the messaging floor. */
    noopMs: Stats;
  };
  /** The app page as a user meets it. */
  ui: {
    /** Navigation until the demo fixture is loaded and the page says Ready (cold context). */
    pageReadyMs: number;
    /** Run clicked until the answer reached the page (includes waiting for the next frame after input). */
    clickToAnswerMs: Stats;
  };
}

export interface BrowserBenchResult {
  chromium: string;
  engines: BrowserEngineFigures[];
}

export interface BrowserBenchOptions {
  /** Timed runs of the per-query probe (after 5 warm-up runs). Default 40. */
  runs?: number;
  /** Rows of the synthetic SQL dump used for the fixture-load figure. Default 20,000. */
  dumpRows?: number;
  engines?: EngineName[];
}

const PROBE_SQL = 'SELECT 1';
const BENCH_DIST = '.bench/browser-dist';

function stats(values: number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { median: at(0.5), p90: at(0.9), min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

/** A deterministic SQL dump that loads on both engines. */
export function syntheticDump(rows: number): string {
  const lines = [
    'CREATE TABLE sales (id INTEGER PRIMARY KEY, store VARCHAR(20), sold_on DATE, amount DECIMAL(12,2), qty INTEGER);',
  ];
  for (let start = 0; start < rows; start += 1000) {
    const values: string[] = [];
    for (let i = start; i < Math.min(rows, start + 1000); i++) {
      const day = 1 + (i % 28);
      const month = 1 + (Math.floor(i / 28) % 12);
      const cents = (i * 7919) % 100000;
      values.push(
        `(${i}, 'store-${i % 37}', '2025-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}', ${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}, ${i % 13})`,
      );
    }
    lines.push(`INSERT INTO sales VALUES ${values.join(', ')};`);
  }
  return `${lines.join('\n')}\n`;
}

async function numberAttr(page: Page, selector: string, name: string): Promise<number> {
  const value = await page.locator(selector).getAttribute(name);
  const n = Number(value);
  if (value === null || value === '' || !Number.isFinite(n))
    throw new Error(`${selector} has no numeric ${name} (${value})`);
  return n;
}

interface PageRun {
  appWorkerStartMs: number;
  engineStartMs: number;
  version: string;
  loads: { name: string; loadMs: number; wallMs: number }[];
  noopMs: number[];
  probe: { engineMs: number; workerMs: number; roundTripMs: number }[];
}

function runBenchPage(
  page: Page,
  engine: EngineName,
  dump: { name: string; sql: string },
  runs: number,
): Promise<PageRun> {
  return page.evaluate(
    (a) =>
      (
        globalThis as unknown as { sqlVerdictBench: { run: (...args: unknown[]) => Promise<PageRun> } }
      ).sqlVerdictBench.run(a.engine, a.dump, a.runs, a.sql),
    { engine, dump, runs, sql: PROBE_SQL },
  );
}

/** The app page: navigation to ready, and Run clicked to answer shown. */
async function measureUi(
  browser: Browser,
  origin: string,
  engine: EngineName,
  runs: number,
): Promise<BrowserEngineFigures['ui']> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    const navigated = performance.now();
    await page.goto(`${origin}/?engine=${engine}#/query`);
    await page.locator(`[data-testid=fixture-summary][data-engine=${engine}]`).waitFor({ timeout: 180_000 });
    await page.waitForFunction(
      () => document.querySelector('[data-testid=status]')?.textContent?.startsWith('Ready'),
      null,
      { timeout: 180_000 },
    );
    const pageReadyMs = performance.now() - navigated;
    await page.getByTestId('sql').fill(PROBE_SQL);
    const samples: number[] = [];
    for (let seq = 1; seq <= runs + 3; seq++) {
      await page.getByTestId('run').click();
      const selector = `[data-testid=run-result][data-run="${seq}"]`;
      await page.locator(selector).waitFor({ timeout: 30_000 });
      if (seq > 3) samples.push(await numberAttr(page, selector, 'data-round-trip-ms'));
    }
    return { pageReadyMs, clickToAnswerMs: stats(samples) };
  } finally {
    await context.close();
  }
}

async function benchEngine(
  browser: Browser,
  origin: string,
  engine: EngineName,
  runs: number,
  dump: { name: string; sql: string; rows: number },
): Promise<BrowserEngineFigures> {
  const context = await browser.newContext();
  let cold: PageRun;
  let warm: PageRun;
  try {
    const page = await context.newPage();
    await page.goto(`${origin}/bench/browser/index.html`);
    cold = await runBenchPage(page, engine, dump, runs);
    // Let the first run's workers finish terminating before the second start.
    await page.waitForTimeout(2500);
    warm = await runBenchPage(page, engine, dump, 5);
  } finally {
    await context.close();
  }
  const probe = cold.probe;
  return {
    engine,
    version: cold.version,
    coldStartMs: cold.engineStartMs,
    warmStartMs: warm.engineStartMs,
    appWorkerStartMs: cold.appWorkerStartMs,
    fixtures: cold.loads.map((l, i) => ({
      fixture:
        i === 1
          ? `${l.name} (1 table, ${dump.rows.toLocaleString('en-US')} rows, ${(dump.sql.length / 1e6).toFixed(1)} MB of SQL)`
          : `${l.name} (2 tables, 10 rows${i === 0 ? ', first load after start' : ', again'})`,
      rows: i === 1 ? dump.rows : 10,
      loadMs: l.loadMs,
      loadWallMs: l.wallMs,
    })),
    query: {
      sql: PROBE_SQL,
      runs,
      engineMs: stats(probe.map((s) => s.engineMs)),
      roundTripMs: stats(probe.map((s) => s.roundTripMs)),
      overheadMs: stats(probe.map((s) => s.roundTripMs - s.engineMs)),
      hostHopMs: stats(probe.map((s) => s.workerMs - s.engineMs)),
      pageHopMs: stats(probe.map((s) => s.roundTripMs - s.workerMs)),
      noopMs: stats(cold.noopMs),
    },
    ui: await measureUi(browser, origin, engine, Math.min(runs, 20)),
  };
}

/** The production app and the bench page (bench/browser/index.html), built into BENCH_DIST and served on loopback. */
export async function serveBenchApp(): Promise<ServedApp> {
  await build({
    root: repoRoot,
    logLevel: 'error',
    build: {
      outDir: path.join(repoRoot, BENCH_DIST),
      emptyOutDir: true,
      rolldownOptions: {
        input: { app: path.join(repoRoot, 'index.html'), bench: path.join(repoRoot, 'bench/browser/index.html') },
      },
    },
  });
  return serveBuiltApp(BENCH_DIST);
}

export async function benchBrowserEngines(options: BrowserBenchOptions = {}): Promise<BrowserBenchResult> {
  const runs = options.runs ?? 40;
  const rows = options.dumpRows ?? 20_000;
  const app = await serveBenchApp();
  const browser = await launchChromium();
  try {
    const dump = { name: `sales_${rows}`, sql: syntheticDump(rows), rows };
    const engines: BrowserEngineFigures[] = [];
    // One engine at a time: they do not compete for the cores.
    for (const engine of options.engines ?? (['duckdb', 'sqlite', 'pglite'] as const))
      engines.push(await benchEngine(browser, app.origin, engine, runs, dump));
    return { chromium: browser.version(), engines };
  } finally {
    await browser.close();
    await app.close();
  }
}

const ms = (v: number) => (v < 10 ? v.toFixed(2) : v < 1000 ? v.toFixed(1) : `${(v / 1000).toFixed(2)} s`).padStart(8);
const ms0 = (v: number) =>
  v < 10 ? `${v.toFixed(2)} ms` : v < 1000 ? `${v.toFixed(1)} ms` : `${(v / 1000).toFixed(2)} s`;

export function formatBrowserBench(result: BrowserBenchResult): string {
  const out = [
    `Browser: headless Chromium ${result.chromium}, production build; page → app worker → engine host worker → engine`,
  ];
  for (const e of result.engines) {
    out.push('', `  ${e.engine}: ${e.version}`);
    out.push(
      `    engine start          cold ${ms0(e.coldStartMs)}, warm ${ms0(e.warmStartMs)} (app worker itself: ${ms0(e.appWorkerStartMs)})`,
    );
    for (const f of e.fixtures)
      out.push(
        `    fixture load          ${ms0(f.loadMs)} in the engine, ${ms0(f.loadWallMs)} seen by the app worker: ${f.fixture}`,
      );
    const q = e.query;
    out.push(`    per query (${q.sql}, ${q.runs} runs)              median      p90      min      max`);
    const row = (label: string, s: Stats) =>
      out.push(`      ${label.padEnd(34)}${ms(s.median)} ${ms(s.p90)} ${ms(s.min)} ${ms(s.max)}  ms`);
    row('engine (raw call, in the host)', q.engineMs);
    row('page round trip', q.roundTripMs);
    row('overhead (round trip − engine)', q.overheadMs);
    row('  app worker ↔ engine host', q.hostHopMs);
    row('  page ↔ app worker', q.pageHopMs);
    row('no-op call page ↔ app worker', q.noopMs);
    out.push(
      `    app page              ready ${ms0(e.ui.pageReadyMs)} after navigation (cold); Run click → answer: median ${ms0(e.ui.clickToAnswerMs.median)}, p90 ${ms0(e.ui.clickToAnswerMs.p90)}`,
    );
  }
  return out.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const runsAt = args.indexOf('--runs');
  const enginesAt = args.indexOf('--engines');
  const result = await benchBrowserEngines({
    runs: runsAt >= 0 ? Number(args[runsAt + 1]) : undefined,
    ...(enginesAt >= 0 ? { engines: args[enginesAt + 1]!.split(',') as EngineName[] } : {}),
  });
  console.log(args.includes('--json') ? JSON.stringify(result, null, 2) : formatBrowserBench(result));
}
