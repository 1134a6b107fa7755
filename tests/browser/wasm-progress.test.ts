/**
 * The 34 MB DuckDB wasm on a first visit (Chromium, production build): the
 * page shows its download with bytes and percent while it runs, then what
 * the load cost (size and time); the service worker has it cached.
 *
 * Here the first visit opens the home page, which does not start DuckDB: the
 * service worker downloads the wasm for offline use and the page shows that
 * download; DuckDB, started afterwards on the query page, reads the cache, so
 * the server sends the wasm once. (offline.test.ts covers the other order:
 * DuckDB first, while the service worker installs.)
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { launchChromium, openPage, serveBuiltApp, type ServedApp, BROWSER_TEST_MS } from './harness.ts';

// Each test starts the production app in Chromium beside the engine tests' workers: minutes, not seconds, on a busy
// CI machine (the suite's 60 s default is for the unit tests).
vi.setConfig({ testTimeout: BROWSER_TEST_MS });

let app: ServedApp;
let browser: Browser;
const served: string[] = [];

beforeAll(async () => {
  app = await serveBuiltApp('dist', (p) => {
    if (/\/assets\/duckdb-eh-[^/]*\.wasm(\?|$)/.test(p)) served.push(p);
  });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('DuckDB wasm download progress', () => {
  test('a first visit shows the download with bytes and percent (the service worker caching it), then DuckDB loads from the cache with its cost; sent once', async () => {
    const pageErrors: string[] = [];
    const { context, page } = await openPage(
      browser,
      app.origin,
      { viewport: { width: 1280, height: 800 } },
      { pageErrors },
    );
    try {
      const seen: string[] = [];
      // Record what the progress line says as it changes (the download takes well under a second on loopback).
      await page.exposeFunction('__sawProgress', (text: string) => void seen.push(text));
      await page.addInitScript(() => {
        new MutationObserver(() => {
          const el = document.querySelector('[data-testid=wasm-progress]');
          if (el) (window as unknown as { __sawProgress(t: string): void }).__sawProgress(el.textContent ?? '');
        }).observe(document, { subtree: true, childList: true, characterData: true });
      });
      await page.goto(`${app.origin}/`);
      await page.getByTestId('home').waitFor({ timeout: 60_000 });
      // Installed means cached: the service worker waits for the wasm before it activates.
      await page.evaluate(async () => {
        await navigator.serviceWorker.ready;
      });
      expect(seen.some((t) => /Downloading the DuckDB engine: \d+\.\d MB of 3\d\.\d MB · \d+%/.test(t))).toBe(true);
      // Once cached, the progress line goes (DuckDB has not started: nothing to report as loaded).
      await page.getByTestId('wasm-progress').waitFor({ state: 'detached', timeout: 30_000 });
      expect(served.length).toBe(1);
      // The query page starts DuckDB on its demo fixture.
      await page.evaluate(() => void (location.hash = '#/query'));
      const done = page.getByTestId('wasm-done');
      await done.waitFor({ timeout: 180_000 });
      const text = (await done.textContent()) ?? '';
      console.log(
        `${text.trim()}; ${seen.length} progress texts seen, last: ${seen.at(-1)?.replace(/\s+/g, ' ').trim() ?? 'none'}`,
      );
      const mb = Number(/\((\d+\.\d) MB\)/.exec(text)?.[1]);
      expect(mb).toBeGreaterThan(30);
      expect(mb).toBeLessThan(40);
      expect(text).toMatch(/in \d/);
      expect(Number(await done.getAttribute('data-events'))).toBeGreaterThan(0);
      expect(served.length).toBe(1);
      // Cached by the service worker for the next (offline) visit.
      await expect
        .poll(
          () =>
            page.evaluate(
              async () =>
                (await caches.keys()).length &&
                (
                  await Promise.all(
                    (await caches.keys()).map(async (k) =>
                      (await (await caches.open(k)).keys()).some((r) => /duckdb-eh.*\.wasm$/.test(r.url)),
                    ),
                  )
                ).some(Boolean),
            ),
          { timeout: 120_000 },
        )
        .toBe(true);
      expect(pageErrors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 300_000);
});
