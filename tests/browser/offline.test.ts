/**
 * The PWA offline right after the FIRST visit (no second online load to warm the cache): the
 * service worker installs, the network goes off, a reload loads the app from the cache, the demo
 * corpus runs, the lazily loaded Monitor view opens with its CSS, and the web manifest and its
 * icons are served. Production build in Chromium.
 *
 * The first visit opens the query page, which starts DuckDB at once, while the service worker is
 * still installing: the 34 MB wasm must still cross the network once (it used to twice, DuckDB's
 * fetch and the precache), counted by the server and by the request events of the page, its
 * workers and the service worker.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { repoRoot } from '../helpers/paths.ts';
import { launchChromium, openPage, serveBuiltApp, type ServedApp, BROWSER_TEST_MS } from './harness.ts';

// Each test starts the production app in Chromium beside the engine tests' workers: minutes, not seconds, on a busy
// CI machine (the suite's 60 s default is for the unit tests).
vi.setConfig({ testTimeout: BROWSER_TEST_MS });

// Playwright reports the service worker's own requests only with this set (read when the browser starts).
process.env.PW_EXPERIMENTAL_SERVICE_WORKER_NETWORK_EVENTS = '1';
const DUCKDB_WASM = /\/assets\/duckdb-eh-[^/]*\.wasm$/;

let app: ServedApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];
const failed: string[] = [];
/** The DuckDB wasm as the server sent it, and as the browser's request events saw it. */
const served: string[] = [];
const wasmRequests: { by: 'service worker' | 'page'; fromServiceWorker?: boolean }[] = [];

beforeAll(async () => {
  app = await serveBuiltApp('dist', (p) => {
    if (DUCKDB_WASM.test(p.replace(/\?.*$/, ''))) served.push(p);
  });
  browser = await launchChromium();
  ({ context, page } = await openPage(browser, app.origin, { viewport: { width: 1280, height: 800 } }, { pageErrors }));
  page.on('requestfailed', (r) => failed.push(`${r.url()} ${r.failure()?.errorText ?? ''}`));
  // The context hears the page, its (nested) workers and the service worker.
  context.on('request', (r) => {
    if (!DUCKDB_WASM.test(new URL(r.url()).pathname)) return;
    const seen: (typeof wasmRequests)[number] = { by: r.serviceWorker() ? 'service worker' : 'page' };
    wasmRequests.push(seen);
    void r.response().then(
      (res) => void (seen.fromServiceWorker = res?.fromServiceWorker() ?? false),
      () => undefined,
    );
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('offline after the first visit', () => {
  test('sw.js lists every file of the build (every lazily loaded view and its CSS); the DuckDB wasm apart, fetched once', () => {
    const dist = path.join(repoRoot, 'dist');
    const sw = readFileSync(path.join(dist, 'sw.js'), 'utf8');
    const list = (name: string) => JSON.parse(new RegExp(`const ${name} = (\\[.*?\\]);`).exec(sw)![1]!) as string[];
    const files = readdirSync(dist, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => `./${path.relative(dist, path.join(e.parentPath, e.name)).split(path.sep).join('/')}`)
      // The page is cached as './'; the headers file is for the host; sw.js is the worker itself.
      .filter((f) => !['./index.html', './_headers', './sw.js'].includes(f) && !f.endsWith('.map'));
    expect(list('ONCE')).toEqual([expect.stringMatching(DUCKDB_WASM)]);
    expect([...list('ASSETS'), ...list('ONCE')].sort()).toEqual(files.sort());
    expect(files.some((f) => /MonitorView-.*\.css$/.test(f))).toBe(true);
  });

  test('first visit (DuckDB started at once): the wasm downloads once; network off, reload: DuckDB starts, the demo runs, Monitor opens', async () => {
    await page.goto(`${app.origin}/#/query`);
    await page.getByTestId('wasm-done').waitFor({ timeout: 180_000 });
    // The service worker has installed (precached everything, the wasm included) and controls this page.
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
      if (!navigator.serviceWorker.controller)
        await new Promise((resolve) =>
          navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }),
        );
    });
    const cached = await page.evaluate(async () =>
      (
        await Promise.all(
          (await caches.keys()).map(
            async (k) =>
              (await (await caches.open(k)).keys()).filter((r) => /duckdb-eh-[^/]*\.wasm$/.test(r.url)).length,
          ),
        )
      ).reduce((a, b) => a + b, 0),
    );
    // Downloaded by whichever asked first, DuckDB's worker or the service worker; the other read the cache.
    const network = () => wasmRequests.filter((r) => r.by === 'service worker' || r.fromServiceWorker === false);
    await expect
      .poll(() => wasmRequests.every((r) => r.by === 'service worker' || r.fromServiceWorker !== undefined), {
        timeout: 30_000,
      })
      .toBe(true);
    console.log(
      `first visit: the server sent the DuckDB wasm ${served.length}×; request events ${JSON.stringify(wasmRequests)}; cached copies ${cached}`,
    );
    expect(served.length).toBe(1);
    expect(network().length).toBe(1);
    expect(cached).toBe(1);

    await context.setOffline(true);
    try {
      await page.reload();
      // DuckDB starts again offline, from the cache.
      await page.getByTestId('wasm-done').waitFor({ timeout: 120_000 });
      await page.evaluate(() => void (location.hash = '#/'));
      await page.getByTestId('home').waitFor({ timeout: 30_000 });
      await page.getByTestId('run-demo').click();
      await page.getByTestId('progress').waitFor({ timeout: 60_000 });
      await expect
        .poll(async () => Number((await page.getByTestId('progress-case').textContent()) ?? 0), { timeout: 180_000 })
        .toBeGreaterThan(2);

      await page.goto(`${app.origin}/#/monitor`);
      await page.getByTestId('monitor').waitFor({ timeout: 30_000 });
      // The Monitor's own stylesheet came from the cache.
      const sheets = await page.evaluate(() =>
        [...document.styleSheets].map((s) => s.href ?? '').filter((h) => /MonitorView-.*\.css$/.test(h)),
      );
      expect(sheets.length).toBe(1);

      const manifest = await page.evaluate(async () => {
        const href = document.querySelector('link[rel="manifest"]')?.getAttribute('href');
        if (!href) return null;
        const m = (await (await fetch(href)).json()) as {
          name: string;
          display: string;
          start_url: string;
          icons: { src: string; sizes: string }[];
        };
        const icons = await Promise.all(
          m.icons.map(async (i) => ({
            sizes: i.sizes,
            ok: (await fetch(new URL(i.src, new URL(href, location.href)))).ok,
          })),
        );
        return { name: m.name, display: m.display, start_url: m.start_url, icons };
      });
      expect(manifest).toMatchObject({ name: 'SQL Verdict', display: 'standalone', start_url: './' });
      expect(manifest!.icons.map((i) => i.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
      expect(manifest!.icons.every((i) => i.ok)).toBe(true);
    } finally {
      await context.setOffline(false);
    }
    expect(served.length).toBe(1);
    expect(failed.filter((f) => !/ERR_ABORTED/.test(f))).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 400_000);
});
