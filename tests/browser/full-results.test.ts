/**
 * "Show full results" against the production build in Chromium: a
 * comparison over a cross join of the retail fixture (38,370 rows) with one
 * differing cell deep in the result, two missing rows and one extra row. The
 * page re-runs both queries in the app worker and shows both whole results
 * virtualized (the DOM holds a few dozen rows), with the marks the core's
 * row alignment gives; a result over the cap is cut and says so.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { launchChromium, openPage, serveBuiltApp, type ServedApp, BROWSER_TEST_MS } from './harness.ts';

// Each test starts the production app in Chromium beside the engine tests' workers: minutes, not seconds, on a busy
// CI machine (the suite's 60 s default is for the unit tests).
vi.setConfig({ testTimeout: BROWSER_TEST_MS });

// orders 1001..2279 (1,279) × products 1..30: row (o, p) of the ordered result is (o − 1001) · 30 + (p − 1).
const ROWS = 1279 * 30;
const EXPECTED = 'SELECT o.order_id, p.product_id, p.sku FROM orders o CROSS JOIN products p ORDER BY 1, 2';
const ACTUAL = `SELECT o.order_id, p.product_id, CASE WHEN o.order_id = 2001 AND p.product_id = 17 THEN 'CHANGED' ELSE p.sku END AS sku
FROM orders o CROSS JOIN products p
WHERE NOT (o.order_id = 1500 AND p.product_id IN (3, 4))
UNION ALL SELECT 99999, 99999, 'EXTRA'
ORDER BY 1, 2`;
const CHANGED_E = (2001 - 1001) * 30 + 16; // 30016
const CHANGED_A = CHANGED_E - 2; // two rows before it are missing from the candidate
const MISSING = [(1500 - 1001) * 30 + 2, (1500 - 1001) * 30 + 3];
const ROW_PX = 28;

let app: ServedApp;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const foreign: string[] = [];

beforeAll(async () => {
  app = await serveBuiltApp();
  browser = await launchChromium();
  ({ page } = await openPage(browser, app.origin, { viewport: { width: 1280, height: 900 } }, { foreign, pageErrors }));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const text = async (l: Locator) => ((await l.first().textContent()) ?? '').trim();

/** Grade one comparison in the playground and open its full results. */
async function showFull(expectedSql: string, actualSql: string): Promise<void> {
  await page.goto(`${app.origin}/#/playground`);
  await page.getByTestId('playground').waitFor();
  await page.getByTestId('pg-expected').fill(expectedSql);
  await page.getByTestId('pg-actual').fill(actualSql);
  await expect.poll(() => text(page.getByTestId('verdict')), { timeout: 90_000 }).toBe('fail');
  await expect.poll(() => text(page.getByTestId('pg-status')), { timeout: 30_000 }).not.toBe('Grading…');
  await page.getByTestId('show-full-results').click();
  await page.getByTestId('full-expected-scroll').waitFor({ timeout: 90_000 });
}

async function scrollTo(side: 'expected' | 'actual', row: number): Promise<void> {
  await page.getByTestId(`full-${side}-scroll`).evaluate(
    (el, top) => {
      el.scrollTop = top;
    },
    Math.max(0, (row - 3) * ROW_PX),
  );
}

const rowsInDom = (side: 'expected' | 'actual') => page.locator(`[data-testid=full-${side}] tbody tr[data-row]`);
const row = (side: 'expected' | 'actual', r: number) =>
  page.locator(`[data-testid=full-${side}] tbody tr[data-row="${r}"]`);

describe('full results in Chromium (production build)', () => {
  test('both whole results, virtualized, with the differing cell and the missing and extra rows marked', async () => {
    const started = Date.now();
    await showFull(EXPECTED, ACTUAL);
    console.log(`graded and re-run in full in ${Date.now() - started} ms`);
    expect(await text(page.getByTestId('full-expected-count'))).toMatch(
      new RegExp(`^${ROWS.toLocaleString('en-US')} rows · 3 columns · 3 marked`),
    );
    expect(await text(page.getByTestId('full-actual-count'))).toMatch(
      new RegExp(`^${(ROWS - 1).toLocaleString('en-US')} rows · 3 columns · 2 marked`),
    );
    expect(await text(page.getByTestId('full-summary'))).toMatch(
      /^1 differing row pairs · 2 reference rows missing from the candidate · 1 extra candidate rows/,
    );

    // Virtualized: a few dozen rows in the DOM out of 38,370, and the deep row is not one of them yet.
    for (const side of ['expected', 'actual'] as const) {
      const n = await rowsInDom(side).count();
      expect(n).toBeGreaterThan(5);
      expect(n).toBeLessThan(80);
    }
    expect(await row('expected', CHANGED_E).count()).toBe(0);
    // The header stays in place while scrolling (sticky).
    const header = page.locator('[data-testid=full-expected] thead th').nth(1);
    const headerTop = (await header.boundingBox())!.y;

    // Scrolled to the differing row: its cell (and only that one) is highlighted on both sides.
    await scrollTo('expected', CHANGED_E);
    await scrollTo('actual', CHANGED_A);
    await expect.poll(() => row('expected', CHANGED_E).count()).toBe(1);
    expect(Math.abs((await header.boundingBox())!.y - headerTop)).toBeLessThan(2);
    expect(await rowsInDom('expected').count()).toBeLessThan(80);
    const cellE = row('expected', CHANGED_E).locator('td[data-differs]');
    const cellA = row('actual', CHANGED_A).locator('td[data-differs]');
    expect(await cellE.count()).toBe(1);
    expect(await cellA.count()).toBe(1);
    expect(await text(cellA)).toBe('CHANGED');
    expect(await text(cellE)).not.toBe('CHANGED');
    expect(await row('expected', CHANGED_E).getAttribute('data-status')).toBe('changed');
    expect(await row('expected', CHANGED_E).locator('td').nth(1).textContent()).toBe('2001');
    expect(await cellE.evaluate((el) => getComputedStyle(el).outlineStyle)).toBe('solid');
    expect(await page.locator('[data-testid=full-results] td[data-differs]').count()).toBe(2);

    // The missing rows, reached with the Next difference button.
    await page.getByTestId('full-expected-next').click();
    await expect.poll(() => row('expected', MISSING[0]!).getAttribute('data-status')).toBe('unmatched');
    expect(await row('expected', MISSING[1]!).getAttribute('data-status')).toBe('unmatched');
    expect(await row('expected', MISSING[0]!).locator('td').nth(1).textContent()).toBe('1500');
    expect(await row('expected', MISSING[0]! - 1).getAttribute('data-status')).toBeNull();

    // The extra row (the candidate's last, ROWS − 2 + 1 rows), reached from the keyboard: focus the table and press End.
    await page.getByTestId('full-actual-scroll').focus();
    await page.keyboard.press('End');
    await expect.poll(() => row('actual', ROWS - 2).count()).toBe(1);
    expect(await row('actual', ROWS - 2).getAttribute('data-status')).toBe('unmatched');
    expect(
      await row('actual', ROWS - 2)
        .locator('td')
        .nth(3)
        .textContent(),
    ).toBe('EXTRA');
    expect(await rowsInDom('actual').count()).toBeLessThan(80);
    expect(await page.getByTestId('full-capped').count()).toBe(0);
  }, 150_000);

  test('a result over 100,000 rows is cut to the cap, and the page says so', async () => {
    // orders × customers: 204,640 rows on both sides; the candidate drops one order.
    await showFull(
      'SELECT o.order_id, c.customer_id FROM orders o CROSS JOIN customers c',
      'SELECT o.order_id, c.customer_id FROM orders o CROSS JOIN customers c WHERE o.order_id <> 1001',
    );
    expect(await text(page.getByTestId('full-capped'))).toMatch(
      /the reference and the candidate returned more than 100,000 rows; only the first 100,000/,
    );
    expect(await text(page.getByTestId('full-expected-count'))).toMatch(/^100,000 rows/);
    expect(await rowsInDom('expected').count()).toBeLessThan(80);
  }, 150_000);

  test('no request left the origin and the page raised no error', () => {
    expect(foreign).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
