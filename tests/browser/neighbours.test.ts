/**
 * Neighbour databases in the browser (production build, Chromium): the
 * playground with "Neighbours 8" generates them in the app worker from the
 * loaded retail fixture (DuckDB-WASM), loads each into a scratch engine
 * worker, and the case view shows the counterexample of a coincidental
 * match: its seed, what changed, the rows that differ.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium, openPage, serveBuiltApp, type ServedApp } from './harness.ts';

let app: ServedApp;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const foreign: string[] = [];

beforeAll(async () => {
  app = await serveBuiltApp();
  browser = await launchChromium();
  ({ page } = await openPage(browser, app.origin, { viewport: { width: 1280, height: 900 } }, { foreign, pageErrors }));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const text = async (l: Locator) => ((await l.first().textContent()) ?? '').trim();

describe('neighbour databases in the app', () => {
  test('a coincidental match shows its counterexample; a correct rewrite says the neighbours agree', async () => {
    await page.goto(`${app.origin}/#/playground`);
    await page.getByTestId('playground').waitFor();
    await page.getByTestId('pg-neighbours').fill('8');
    await page.getByTestId('pg-expected').fill("SELECT customer_name FROM customers WHERE loyalty_tier = 'gold'");
    await page.getByTestId('pg-actual').fill("SELECT customer_name FROM customers WHERE loyalty_tier = 'gold' AND city IS NOT NULL");
    await expect.poll(() => text(page.getByTestId('verdict')), { timeout: 180_000 }).toBe('fail');
    await page.getByTestId('counterexample').waitFor({ timeout: 60_000 });
    expect(await text(page.getByTestId('counterexample'))).toMatch(/Coincidental match/);
    expect(Number(await text(page.getByTestId('counterexample-seed')))).toBeGreaterThan(0);
    expect(await text(page.getByTestId('counterexample-rows'))).toMatch(/Only in the reference's result/);

    await page.getByTestId('pg-actual').fill("SELECT customer_name FROM customers WHERE 'gold' = loyalty_tier");
    await expect.poll(() => text(page.getByTestId('verdict')), { timeout: 180_000 }).toBe('pass');
    await page.getByTestId('neighbours-agree').waitFor({ timeout: 60_000 });
    expect(await text(page.getByTestId('neighbours-agree'))).toMatch(/agree on \d+ of \d+ neighbour/);
    expect(pageErrors).toEqual([]);
    expect(foreign).toEqual([]);
  }, 420_000);
});
