/**
 * The PWA offline right after the FIRST visit (no second online load to warm the cache): the
 * service worker installs, the network goes off, a reload loads the app from the cache, the demo
 * corpus runs, the lazily loaded Monitor view opens with its CSS, and the web manifest and its
 * icons are served. Production build in Chromium.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium, openPage, serveBuiltApp, type ServedApp } from './harness.ts';

let app: ServedApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];
const failed: string[] = [];

beforeAll(async () => {
  app = await serveBuiltApp();
  browser = await launchChromium();
  ({ context, page } = await openPage(browser, app.origin, { viewport: { width: 1280, height: 800 } }, { pageErrors }));
  page.on('requestfailed', (r) => failed.push(`${r.url()} ${r.failure()?.errorText ?? ''}`));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('offline after the first visit', () => {
  test('first visit, network off, reload: the app loads, the demo runs, Monitor opens', async () => {
    await page.goto(`${app.origin}/`);
    await page.getByTestId('home').waitFor({ timeout: 60_000 });
    // The service worker has installed (precached everything) and controls this page.
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
      if (!navigator.serviceWorker.controller) await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
    });
    await context.setOffline(true);
    try {
      await page.reload();
      await page.getByTestId('home').waitFor({ timeout: 30_000 });
      await page.getByTestId('run-demo').click();
      await page.getByTestId('progress').waitFor({ timeout: 60_000 });
      await expect.poll(async () => Number((await page.getByTestId('progress-case').textContent()) ?? 0), { timeout: 180_000 }).toBeGreaterThan(2);

      await page.goto(`${app.origin}/#/monitor`);
      await page.getByTestId('monitor').waitFor({ timeout: 30_000 });
      // The Monitor's own stylesheet came from the cache.
      const sheets = await page.evaluate(() => [...document.styleSheets].map((s) => s.href ?? '').filter((h) => /MonitorView-.*\.css$/.test(h)));
      expect(sheets.length).toBe(1);

      const manifest = await page.evaluate(async () => {
        const href = document.querySelector('link[rel="manifest"]')?.getAttribute('href');
        if (!href) return null;
        const m = (await (await fetch(href)).json()) as { name: string; display: string; start_url: string; icons: { src: string; sizes: string }[] };
        const icons = await Promise.all(m.icons.map(async (i) => ({ sizes: i.sizes, ok: (await fetch(new URL(i.src, new URL(href, location.href)))).ok })));
        return { name: m.name, display: m.display, start_url: m.start_url, icons };
      });
      expect(manifest).toMatchObject({ name: 'SQL Verdict', display: 'standalone', start_url: './' });
      expect(manifest!.icons.map((i) => i.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
      expect(manifest!.icons.every((i) => i.ok)).toBe(true);
    } finally {
      await context.setOffline(false);
    }
    expect(failed.filter((f) => !/ERR_ABORTED/.test(f))).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 400_000);
});
