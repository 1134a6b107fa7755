/**
 * Cross-engine agreement in the app (docs/postgres.md): the playground's "Other engines" runs both queries on
 * DuckDB, SQLite and PGlite in the app worker, and the case view shows the verdict per engine with the
 * engine-dependent flag; a share link keeps the setting.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { launchChromium, openPage, serveBuiltApp, type ServedApp, BROWSER_TEST_MS } from './harness.ts';

vi.setConfig({ testTimeout: BROWSER_TEST_MS });

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

const text = async (p: Page, testId: string) =>
  ((await p.getByTestId(testId).first().textContent()) ?? '').trim().replace(/\s+/g, ' ');

/** engine → verdict, as the cross-engine table shows them. */
async function legs(p: Page): Promise<Record<string, string>> {
  const rows = p.getByTestId('cross-engine-leg');
  const out: Record<string, string> = {};
  for (let i = 0; i < (await rows.count()); i++) {
    const row = rows.nth(i);
    out[(await row.getAttribute('data-engine'))!] = (
      (await row.getByTestId('cross-engine-verdict').textContent()) ?? ''
    ).trim();
  }
  return out;
}

describe('cross-engine agreement in the playground (Chromium, production build)', () => {
  test('7 / 2 fails on DuckDB and passes on SQLite and PostgreSQL: flagged engine-dependent; the link keeps it', async () => {
    await page.goto(`${app.origin}/#/playground`);
    await page.getByTestId('playground').waitFor();
    await page.getByTestId('pg-cross-engine').check();
    await page.getByTestId('pg-expected').fill('SELECT 3 AS x');
    await page.getByTestId('pg-actual').fill('SELECT 7 / 2 AS x');
    // DuckDB, SQLite and PGlite (initdb) start cold in the app worker: slow on a busy CI machine.
    await expect.poll(() => text(page, 'cross-engine-summary'), { timeout: 200_000 }).toMatch(/^Engine-dependent\./);
    expect(await text(page, 'verdict')).toBe('fail');
    expect(await legs(page)).toEqual({ duckdb: 'fail', sqlite: 'pass', pglite: 'pass' });
    expect(await text(page, 'cross-engine')).toMatch(/DuckDB \(graded\)/);

    await page.getByTestId('share').click();
    await expect.poll(() => text(page, 'pg-status')).toMatch(/^Link (copied|ready)/);
    const link = (await page.getByTestId('share-link').getAttribute('href'))!;
    const fresh = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const other = await fresh.newPage();
      await other.goto(link);
      await other.getByTestId('playground').waitFor({ timeout: 30_000 });
      expect(await other.getByTestId('pg-cross-engine').isChecked()).toBe(true);
      await expect.poll(() => text(other, 'cross-engine-summary'), { timeout: 200_000 }).toMatch(/^Engine-dependent\./);
      expect(await legs(other)).toEqual({ duckdb: 'fail', sqlite: 'pass', pglite: 'pass' });
    } finally {
      await fresh.close();
    }
    expect(pageErrors).toEqual([]);
    expect(foreign).toEqual([]);
  }, 400_000);

  test('off again: no other engine runs and no cross-engine panel is shown', async () => {
    await page.getByTestId('pg-cross-engine').uncheck();
    await page.getByTestId('pg-actual').fill('SELECT 6 / 2 AS x');
    await expect.poll(() => text(page, 'verdict'), { timeout: 60_000 }).toBe('pass');
    expect(await page.getByTestId('cross-engine').count()).toBe(0);
  });
});
