/**
 * What a demanding user does to the app (production build, Chromium) besides the happy path:
 * links cut or edited by hand, a comparison the worker refuses, emptied editors, a phone-width
 * home page with runs kept, keyboard round trips. Each test is a defect once found by hand.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { launchChromium, openPage, serveBuiltApp, type ServedApp, BROWSER_TEST_MS } from './harness.ts';

vi.setConfig({ testTimeout: BROWSER_TEST_MS });

let app: ServedApp;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  app = await serveBuiltApp();
  browser = await launchChromium();
  ({ page } = await openPage(browser, app.origin, { viewport: { width: 1280, height: 800 } }, { pageErrors }));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('the app against what users do to it', () => {
  test('a link with a malformed %-escape (cut or edited by hand) opens a view, not a blank page', async () => {
    for (const hash of ['#/runs/%E0%A4%A', '#/%', '#/runs/x/cases/%']) {
      const before = pageErrors.length;
      await page.goto('about:blank');
      await page.goto(`${app.origin}/${hash}`);
      await expect.poll(() => page.locator('main').count(), { timeout: 30_000 }).toBeGreaterThan(0);
      expect(pageErrors.slice(before), hash).toEqual([]);
    }
    // The run view names what it was asked for.
    await page.goto('about:blank');
    await page.goto(`${app.origin}/#/runs/%E0%A4%A`);
    await expect.poll(() => page.locator('main').innerText()).toContain('No run %E0%A4%A in this browser');
    // A malformed hash set later (hashchange) is followed too: the view changes.
    await page.evaluate(() => (location.hash = '#/playground'));
    await page.getByTestId('playground').waitFor();
    await page.evaluate(() => (location.hash = '#/corpus/%'));
    await page.getByTestId('corpus-view').waitFor();
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
