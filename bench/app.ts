/**
 * App figures for `npm run bench` (issue #8): the demo corpus as a user
 * meets it in headless Chromium, on a production build served by `vite
 * preview`, each sample in a fresh browser context (cold HTTP cache, no
 * service worker yet, empty IndexedDB — a first visit, whose service worker
 * install also precaches the build meanwhile).
 *
 * - first graded case: navigation start (performance.timeOrigin) until the
 *   first case report reaches the page (`window.__verdict.firstCaseAt`), the
 *   demo button clicked as soon as it is enabled; also from the click. It
 *   includes app worker and engine start, both fixture loads and the oracle
 *   self-check of all 64 references, which run before the first case.
 * - demo run: the click until the results page shows (the run is done).
 * - JavaScript payload, gzip level 9 per file (as a server would send each
 *   request), wasm excluded: the page's JS (the scripts and module preloads
 *   the document loads before its load event, i.e. at first paint) and the
 *   workers' JS (the app worker, the engine host and DuckDB's worker, as
 *   requested during the demo run), separately. The service worker script is
 *   listed apart and in neither.
 *
 * - demo run after the warm-up: one more fresh visit whose click waits until
 *   the home page's warm-up is ready (`window.__verdict.warmedUp`), as for a
 *   user who reads the page first: the click until the results page shows,
 *   and when the warm-up was ready (from navigation start). Not in the cold
 *   figures above.
 *
 * Run alone: `node --import tsx bench/app.ts [--runs N] [--no-warm] [--record]`
 * (--record merges only these figures into bench/baseline.json).
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { build } from 'vite';
import { launchChromium, serveBuiltApp } from '../tests/browser/harness.ts';
import { repoRoot } from '../tests/helpers/paths.ts';
import { loadBaseline, median, mergeBaselineFigures, printFigures, type Figure } from './harness.ts';

const APP_DIST = '.bench/app-dist';

export interface AppSample {
  /** Navigation start → first graded case on the page. */
  firstCaseFromNavigationMs: number;
  /** Demo button click → first graded case. */
  firstCaseFromClickMs: number;
  /** Demo button click → results shown (only for the samples that ran to the end). */
  runMs: number | null;
  /** Navigation start → the home page's warm-up ready, for the sample that waited for it before the click. */
  warmedUpMs: number | null;
  /** Same-origin .js URL paths the document loaded before its load event. */
  pageScripts: string[];
  /** Same-origin .js URL paths the document loaded after its load event (until the sample ended). */
  lateScripts: string[];
  /** .js URL paths requested by dedicated workers (not the page, not the service worker). */
  workerScripts: string[];
}

export interface AppBenchResult {
  chromium: string;
  samples: AppSample[];
  payload: { page: FileSize[]; late: FileSize[]; worker: FileSize[]; serviceWorker: FileSize[] };
}

export interface FileSize {
  file: string;
  bytes: number;
  gzipBytes: number;
}

const gz = (file: string): FileSize => {
  const bytes = readFileSync(path.join(repoRoot, APP_DIST, file));
  return { file, bytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length };
};

/**
 * One fresh-context visit. `full`: the demo runs to the end. `afterWarmUp`: the click waits for the home page's
 * warm-up (docs/app.md, "The demo, warmed up") to be ready, as for a user who reads the page first; the cold
 * samples click as soon as the button is enabled, so the warm-up has no head start.
 */
async function sample(browser: Browser, origin: string, full: boolean, afterWarmUp = false): Promise<AppSample> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const requested = new Set<string>();
  // Requests the page's document makes are attributed via the page's own resource timing below; here: everything but the service worker's precache.
  context.on('request', (r) => {
    if (r.serviceWorker() === null && r.url().startsWith(origin)) requested.add(new URL(r.url()).pathname);
  });
  try {
    const page = await context.newPage();
    await page.addInitScript(() => {
      addEventListener('click', () => ((window as unknown as { __clickAt: number }).__clickAt ??= performance.now()), {
        capture: true,
      });
    });
    await page.goto(`${origin}/`, { waitUntil: 'load' });
    // The document's script graph (module scripts and preloads); a Worker's script, fetched by the page too, has initiatorType "other".
    const pageScripts = await page.evaluate(documentScripts);
    const button = page.getByTestId('run-demo');
    await button.waitFor();
    await page.waitForFunction(
      () => !(document.querySelector('[data-testid=run-demo]') as HTMLButtonElement | null)?.disabled,
      null,
      { timeout: 60_000 },
    );
    let warmedUpMs: number | null = null;
    if (afterWarmUp) {
      const warm = (await (
        await page.waitForFunction(
          () => {
            const state = (window as unknown as { __verdict?: { warmedUp: string } }).__verdict?.warmedUp;
            return state === 'ready' || state === 'failed' ? { state, at: performance.now() } : null;
          },
          null,
          { timeout: 300_000, polling: 50 },
        )
      ).jsonValue()) as { state: string; at: number };
      if (warm.state !== 'ready') throw new Error(`the home page's warm-up ended ${warm.state}`);
      warmedUpMs = warm.at;
    }
    await button.click();
    const firstCaseAt = (await (
      await page.waitForFunction(
        () => (window as unknown as { __verdict?: { firstCaseAt: number | null } }).__verdict?.firstCaseAt ?? null,
        null,
        { timeout: 600_000, polling: 100 },
      )
    ).jsonValue()) as number;
    const clickAt = await page.evaluate(() => (window as unknown as { __clickAt: number }).__clickAt);
    let runMs: number | null = null;
    if (full) {
      // Polled every frame: the figure is at most one frame late.
      const doneAt = (await (
        await page.waitForFunction(
          () => (document.querySelector('[data-testid=summary-cards]') ? performance.now() : null),
          null,
          { timeout: 900_000, polling: 'raf' },
        )
      ).jsonValue()) as number;
      const status = await page.getByTestId('run-status').textContent();
      if (status?.trim() !== 'done') throw new Error(`the demo run ended ${status}`);
      runMs = doneAt - clickAt;
    }
    // What the document loaded after its load event (lazy views).
    const pageSet = new Set(await page.evaluate(documentScripts));
    const lateScripts = [...pageSet].filter((p) => !pageScripts.includes(p));
    const workerScripts = [...requested].filter((p) => p.endsWith('.js') && !pageSet.has(p) && !p.endsWith('/sw.js'));
    return {
      firstCaseFromNavigationMs: firstCaseAt,
      firstCaseFromClickMs: firstCaseAt - clickAt,
      runMs,
      warmedUpMs,
      pageScripts,
      lateScripts,
      workerScripts,
    };
  } finally {
    await context.close();
  }
}

/** The same-origin .js files the document has loaded as scripts or module preloads so far (a Worker's script, fetched by the page too, has initiatorType "other"). */
function documentScripts(): string[] {
  return (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
    .filter((e) => e.initiatorType === 'script' || e.initiatorType === 'link')
    .map((e) => new URL(e.name))
    .filter((u) => u.origin === location.origin && u.pathname.endsWith('.js'))
    .map((u) => u.pathname);
}

export async function benchApp(options: { runs?: number; warm?: boolean } = {}): Promise<AppBenchResult> {
  const runs = Math.max(1, options.runs ?? 3);
  // The app exactly as `npm run build` makes it, in its own directory so dist/ is left alone.
  await build({
    root: repoRoot,
    logLevel: 'error',
    build: { outDir: path.join(repoRoot, APP_DIST), emptyOutDir: true },
  });
  const app = await serveBuiltApp(APP_DIST);
  const browser = await launchChromium();
  try {
    const samples: AppSample[] = [];
    // The first sample runs the demo to the end; the others stop at the first case.
    for (let i = 0; i < runs; i++) samples.push(await sample(browser, app.origin, i === 0));
    if (options.warm) samples.push(await sample(browser, app.origin, true, true));
    const rel = (p: string) => p.replace(/^\//, '');
    const page = [...new Set(samples.flatMap((s) => s.pageScripts))].sort().map((p) => gz(rel(p)));
    const pageSet = new Set(samples.flatMap((s) => s.pageScripts));
    const late = [...new Set(samples.flatMap((s) => s.lateScripts))]
      .filter((p) => !pageSet.has(p))
      .sort()
      .map((p) => gz(rel(p)));
    const worker = [...new Set(samples.flatMap((s) => s.workerScripts))].sort().map((p) => gz(rel(p)));
    return { chromium: browser.version(), samples, payload: { page, late, worker, serviceWorker: [gz('sw.js')] } };
  } finally {
    await browser.close();
    await app.close();
  }
}

const kb = (bytes: number) => bytes / 1024;
const sum = (files: FileSize[], key: 'bytes' | 'gzipBytes') => files.reduce((a, f) => a + f[key], 0);

export function appFigures(result: AppBenchResult): Figure[] {
  const cold = result.samples.filter((s) => s.warmedUpMs === null);
  const warm = result.samples.find((s) => s.warmedUpMs !== null);
  const full = cold.find((s) => s.runMs !== null)!;
  return [
    {
      name: 'app.first_case_from_navigation_ms_median',
      value: median(cold.map((s) => s.firstCaseFromNavigationMs)),
      unit: 'ms',
    },
    {
      name: 'app.first_case_from_click_ms_median',
      value: median(cold.map((s) => s.firstCaseFromClickMs)),
      unit: 'ms',
    },
    { name: 'app.demo_run_ms', value: full.runMs!, unit: 'ms' },
    ...(warm
      ? [
          { name: 'app.warm_up_ready_from_navigation_ms', value: warm.warmedUpMs!, unit: 'ms' },
          { name: 'app.demo_run_after_warm_up_ms', value: warm.runMs!, unit: 'ms' },
        ]
      : []),
    { name: 'app.js_page_gzip9_kib', value: kb(sum(result.payload.page, 'gzipBytes')), unit: 'KiB' },
    { name: 'app.js_page_after_load_gzip9_kib', value: kb(sum(result.payload.late, 'gzipBytes')), unit: 'KiB' },
    { name: 'app.js_workers_gzip9_kib', value: kb(sum(result.payload.worker, 'gzipBytes')), unit: 'KiB' },
  ];
}

export function formatAppBench(result: AppBenchResult): string {
  const line = (f: FileSize) =>
    `    ${f.file.padEnd(48)} ${kb(f.bytes).toFixed(1).padStart(8)} KiB raw ${kb(f.gzipBytes).toFixed(1).padStart(7)} KiB gzip -9`;
  const cold = result.samples.filter((s) => s.warmedUpMs === null).length;
  const out = [
    `Chromium ${result.chromium}; ${cold} cold samples (fresh context each, the demo clicked as soon as it is enabled)` +
      (cold < result.samples.length ? ', then one clicked once the warm-up is ready' : ''),
  ];
  result.samples.forEach((s, i) =>
    out.push(
      `  sample ${i + 1}${s.warmedUpMs !== null ? ` (warm-up ready ${s.warmedUpMs.toFixed(0)} ms after navigation, then the click)` : ''}: navigation → first graded case ${s.firstCaseFromNavigationMs.toFixed(0)} ms, click → first case ${s.firstCaseFromClickMs.toFixed(0)} ms${s.runMs !== null ? `, click → demo run done ${(s.runMs / 1000).toFixed(2)} s` : ''}`,
    ),
  );
  out.push('  page JS at first paint (loaded before the load event):', ...result.payload.page.map(line));
  out.push('  page JS after the load event (the views, lazy parts):', ...result.payload.late.map(line));
  out.push(
    '  worker JS (app worker, engine host, engine workers; requested during the demo run):',
    ...result.payload.worker.map(line),
  );
  out.push('  not counted: the service worker script', ...result.payload.serviceWorker.map(line));
  return out.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const runsAt = process.argv.indexOf('--runs');
  const result = await benchApp({
    runs: runsAt > 0 ? Number(process.argv[runsAt + 1]) : undefined,
    warm: !process.argv.includes('--no-warm'),
  });
  const baselineFile = path.join(path.dirname(fileURLToPath(import.meta.url)), 'baseline.json');
  console.log(formatAppBench(result));
  const figures = appFigures(result);
  printFigures(
    'The app in Chromium (demo corpus, cold first visit; JS gzip -9, wasm excluded)',
    figures,
    loadBaseline(baselineFile),
  );
  if (process.argv.includes('--record')) {
    // Merges: the other figures of the baseline are kept as recorded.
    mergeBaselineFigures(
      baselineFile,
      figures,
      'app.',
      `node kind, 2 cores, Node ${process.versions.node}, Chromium ${result.chromium}, load average ${loadavg()[0]!.toFixed(1)} at the end (shared machine)`,
    );
    console.log(`\nApp figures merged into ${baselineFile}`);
  }
  process.exit(0);
}
