/**
 * The home page warms the demo up in the background (issue #14): without a click, once the browser is idle, the
 * app worker starts DuckDB-WASM with both built-in fixtures loaded (the grading pool's engines), quietly (no page
 * error, no console error or warning); a demo run then grades on those engines with the CLI's verdicts. Another
 * page opened first (the playground) does not warm the demo up. A run's references are checked by fixture beside
 * its cases: a broken one on either fixture still refuses the run with the CLI's message and no case shown.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { RunReport } from '../../src/core/run/grade-run.ts';
import { launchChromium, openPage, runCli, serveBuiltApp, type ServedApp, BROWSER_TEST_MS } from './harness.ts';

vi.setConfig({ testTimeout: BROWSER_TEST_MS });

const DEMO_RUN = 'src/ui/assets/demo-flawed.run.json';

let app: ServedApp;
let browser: Browser;
let cli: Promise<RunReport>;

beforeAll(async () => {
  // Exit status 1: the demo run has failures.
  cli = runCli(['run', '--corpus', 'execution_goldens', '--run', DEMO_RUN, '--json'], { expectExit: [1] }).then(
    (r) => JSON.parse(r.stdout) as RunReport,
  );
  [app, browser] = await Promise.all([serveBuiltApp(), launchChromium()]);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const DUMP = /\/retail(_monthly)?-[\w-]+\.sql$/;

/** The page's and its workers' requests for the built-in dumps (not the service worker's precache). */
function dumpRequests(context: BrowserContext): string[] {
  const seen: string[] = [];
  context.on('request', (r) => {
    if (r.serviceWorker() === null && DUMP.test(new URL(r.url()).pathname)) seen.push(r.url());
  });
  return seen;
}

const warmedUp = () => (window as unknown as { __verdict?: { warmedUp: string } }).__verdict?.warmedUp ?? null;

describe('the demo warmed up on the home page (production build, Chromium)', () => {
  test('engines and fixtures come up without a click, quietly; the demo run then gives the CLI verdicts', async () => {
    const pageErrors: string[] = [];
    const requests: string[] = [];
    const { context, page } = await openPage(
      browser,
      app.origin,
      { viewport: { width: 1280, height: 800 } },
      { pageErrors, requests },
    );
    const dumps = dumpRequests(context);
    const noise: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') noise.push(`${m.type()}: ${m.text()}`);
    });
    try {
      await page.goto(`${app.origin}/`);
      await page.getByTestId('home').waitFor();
      await page.waitForFunction(() => {
        const state = (window as unknown as { __verdict?: { warmedUp: string } }).__verdict?.warmedUp;
        return state === 'ready' || state === 'failed';
      });
      expect(await page.evaluate(warmedUp)).toBe('ready');
      // The demo's 64 references ran on the warmed engines (their results answer the click's self-check).
      expect(
        await page.evaluate(
          () => (window as unknown as { __verdict: { warmedReferences: number } }).__verdict.warmedReferences,
        ),
      ).toBe(64);
      // Both built-in dumps were fetched (by the app worker), the DuckDB wasm too; nothing was chosen or stored.
      expect(dumps.length).toBe(2);
      expect(requests.some((u) => /duckdb-eh.*\.wasm$/.test(new URL(u).pathname))).toBe(true);
      expect(await page.getByTestId('run-demo').isDisabled()).toBe(false);
      expect(await page.evaluate(() => document.querySelectorAll('[data-testid=run-status]').length)).toBe(0);
      expect(pageErrors).toEqual([]);
      expect(noise).toEqual([]);

      await page.getByTestId('run-demo').click();
      await page.getByTestId('summary-cards').waitFor({ timeout: 600_000 });
      expect((await page.getByTestId('run-status').textContent())?.trim()).toBe('done');
      // No second fetch of the dumps: the run took the warmed engines.
      expect(dumps.length).toBe(2);
      const report = await cli;
      const a = report.summary.answer_accuracy;
      expect((await page.getByTestId('accuracy-counts').textContent())?.trim()).toBe(
        `${a.correct} / ${a.total} correct`,
      );
      expect(await page.locator('[data-testid=failures] tbody tr').count()).toBe(report.summary.failures.length);
      expect(pageErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('another page opened first does not warm the demo up', async () => {
    const { context, page } = await openPage(browser, app.origin, { viewport: { width: 1280, height: 800 } });
    try {
      await page.goto(`${app.origin}/#/playground`);
      await page.getByTestId('playground').waitFor();
      // Idle callbacks have long run by now (their deadline is 2 s).
      await page.waitForTimeout(3000);
      expect(await page.evaluate(warmedUp)).toBe('idle');
    } finally {
      await context.close();
    }
  });

  test('broken references on both fixtures refuse the run as the CLI does, with no case shown', async () => {
    // Counts on each fixture; the second of each has a frozen count off by one.
    const counts: [string, string, number][] = [
      ['retail', 'customers', 160],
      ['retail', 'orders', 1280],
      ['retail_monthly', 'customers', 240],
      ['retail_monthly', 'orders', 2237],
    ];
    const corpus = {
      corpus: 'broken_oracle',
      version: 1,
      engine: 'duckdb',
      cases: counts.map(([fixture, table, n]) => ({
        id: `${fixture}-${table}`,
        fixture,
        question: `How many ${table}?`,
        reference_sql: `SELECT count(*) AS n FROM ${table}`,
        shape: 'scalar',
        expected: { columns: [{ name: 'n', kind: 'integer', engine_type: 'BIGINT' }], rows: [[n]] },
      })),
    };
    const run = [
      '{"run":{"agent":"t"}}',
      ...counts.map(([fixture, table]) =>
        JSON.stringify({ id: `${fixture}-${table}`, sql: `SELECT count(*) AS n FROM ${table}` }),
      ),
    ].join('\n');
    const dir = mkdtempSync(path.join(tmpdir(), 'broken-oracle-'));
    try {
      writeFileSync(path.join(dir, 'broken_oracle.json'), JSON.stringify(corpus));
      writeFileSync(path.join(dir, 'run.jsonl'), run);
      const cliError = await runCli(
        ['run', '--corpus', path.join(dir, 'broken_oracle.json'), '--run', path.join(dir, 'run.jsonl'), '--json'],
        { expectExit: [1, 2, 3, 4] },
      );
      const pageErrors: string[] = [];
      const { context, page } = await openPage(
        browser,
        app.origin,
        { viewport: { width: 1280, height: 800 } },
        { pageErrors },
      );
      try {
        await page.goto(`${app.origin}/`);
        await page.getByTestId('home').waitFor();
        await page.getByTestId('input-files').setInputFiles([
          { name: 'broken_oracle.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(corpus)) },
          { name: 'run.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(run) },
        ]);
        await expect
          .poll(() => page.getByTestId('chosen-run').getAttribute('data-ok'), { timeout: 30_000 })
          .toBe('true');
        await page.getByTestId('start').click();
        await page.getByTestId('run-error').waitFor({ timeout: 300_000 });
        const message = (await page.getByTestId('run-error').textContent())?.trim() ?? '';
        expect(message).toMatch(
          /^The oracle self-check failed, grading refused: retail-orders \(.+expected 1280, got 1279.+\); retail_monthly-orders \(.+expected 2237, got 2236.+\)$/,
        );
        // The CLI names the same references, in the same order.
        expect(cliError.stderr + cliError.stdout).toMatch(/retail-orders.+retail_monthly-orders/s);
        expect((await page.getByTestId('run-status').textContent())?.trim()).toBe('failed');
        expect(await page.getByTestId('graded-so-far').count()).toBe(0);
        expect(await page.getByTestId('case-table').count()).toBe(0);
        expect(pageErrors).toEqual([]);
      } finally {
        await context.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
