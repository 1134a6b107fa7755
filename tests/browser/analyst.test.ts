/**
 * The analyst's results page in Chromium (production build): the demo run's
 * breakdowns and intervals equal the CLI's; the failures filtered to one
 * reason code and sorted, stepped with j / k, opened with Enter, then Next in
 * the case view follows that filtered, sorted list; the SQL text diff beside
 * the clause diff; the SQL editor (CodeMirror, loaded on demand) completes a
 * column of the loaded fixture on the playground and the query page.
 * UPDATE_SCREENSHOTS=1 writes the screenshots to docs/screenshots.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunReport } from '../../src/core/run/grade-run.ts';
import { repoRoot } from '../helpers/paths.ts';
import { launchChromium, openPage, runCli, serveBuiltApp, type ServedApp } from './harness.ts';

const SHOTS = process.env.UPDATE_SCREENSHOTS ? path.join(repoRoot, 'docs/screenshots') : path.join(repoRoot, 'test-results');
mkdirSync(SHOTS, { recursive: true });

let app: ServedApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let cli: RunReport;
const pageErrors: string[] = [];
const foreign: string[] = [];

beforeAll(async () => {
  // The CLI grades while the server and the browser start. Exit status 1: the run has failures.
  const graded = runCli(['run', '--corpus', 'execution_goldens', '--run', 'src/ui/assets/demo-flawed.run.json', '--json'], { expectExit: [1] });
  [app, browser] = await Promise.all([serveBuiltApp(), launchChromium()]);
  ({ context, page } = await openPage(browser, app.origin, { viewport: { width: 1280, height: 900 } }, { foreign, pageErrors }));
  await page.goto(`${app.origin}/`);
  cli = JSON.parse((await graded).stdout) as RunReport;
}, 300_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.close();
});

const caseIdInView = async () => ((await page.getByTestId('case-view').locator('h2 .mono').first().textContent()) ?? '').trim();

describe('results an analyst can work with', () => {
  test('the demo run shows breakdowns with intervals equal to the CLI', async () => {
    await page.getByTestId('run-demo').click();
    await page.getByTestId('summary-cards').waitFor({ timeout: 600_000 });
    await page.getByTestId('breakdowns').waitFor({ timeout: 30_000 });
    const s = cli.summary;
    for (const key of ['by_fixture', 'by_difficulty'] as const) {
      const rows = await page.getByTestId(`breakdown-${key}`).locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-key'), Number(tr.querySelector('[data-testid="total"]')!.textContent)]));
      expect(rows, key).toEqual(s.breakdowns[key].map((r) => [r.key, r.total]));
    }
    const bar = page.getByTestId('card-accuracy').locator('svg.ci');
    expect(Number(await bar.getAttribute('data-low'))).toBeCloseTo(s.answer_accuracy.ci95![0], 12);
    expect(Number(await bar.getAttribute('data-high'))).toBeCloseTo(s.answer_accuracy.ci95![1], 12);
    expect(await page.getByTestId('accuracy-ci').textContent()).toContain('[75.4%, 92.4%]');
    await page.getByTestId('hist-overall').locator('rect[data-count]').first().waitFor();
    const overall = await page.getByTestId('hist-overall').locator('rect[data-count]').evaluateAll((rs) => rs.reduce((n, r) => n + Number(r.getAttribute('data-count')), 0));
    expect(overall).toBe(cli.cases.filter((k) => k.report).length);
    await page.getByTestId('breakdowns').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, 'breakdowns.png'), fullPage: false });
  }, 600_000);

  test('failures filtered to one reason code, sorted; j / k, Enter, then Next follow that list', async () => {
    // The reason code with the most failures in the CLI's report.
    const counts = new Map<string, number>();
    for (const f of cli.summary.failures) if (f.reason_code) counts.set(f.reason_code, (counts.get(f.reason_code) ?? 0) + 1);
    const [code, n] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    expect(n).toBeGreaterThanOrEqual(2);
    await page.getByTestId('failure-reason').selectOption(code);
    await page.getByTestId('failure-sort').selectOption('id');
    await page.getByTestId('failure-descending').check();
    const expected = cli.summary.failures.filter((f) => f.reason_code === code).map((f) => f.id).sort().reverse();
    const shown = () => page.getByTestId('failures').locator('tbody tr[data-case]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-case')));
    await expect.poll(shown).toEqual(expected);
    expect(await page.getByTestId('failure-shown').textContent()).toBe(`${expected.length} of ${cli.summary.failures.length}`);
    await page.getByTestId('failures-keys').focus();
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    expect(await page.locator('[data-testid="failures"] tr[data-cursor="true"]').getAttribute('data-case')).toBe(expected[0]);
    await page.keyboard.press('j');
    expect(await page.locator('[data-testid="failures"] tr[data-cursor="true"]').getAttribute('data-case')).toBe(expected[1]);
    await page.screenshot({ path: path.join(SHOTS, 'failure-filters.png'), fullPage: false });
    await page.keyboard.press('Enter');
    await page.getByTestId('case-view').waitFor();
    expect(await caseIdInView()).toBe(expected[1]);
    expect(await page.getByTestId('case-position').textContent()).toContain(`2 of ${expected.length}`);
    // Previous goes back to the first of the sorted list; Next (the link) to the third when there is one.
    await page.getByTestId('case-prev').click();
    await expect.poll(caseIdInView).toBe(expected[0]);
    await page.getByTestId('case-next').click();
    await expect.poll(caseIdInView).toBe(expected[1]);
    if (expected.length > 2) {
      await page.keyboard.press('j');
      await expect.poll(caseIdInView).toBe(expected[2]);
      await page.keyboard.press('k');
      await expect.poll(caseIdInView).toBe(expected[1]);
    }
    // Esc: back to the list, filters as they were.
    await page.keyboard.press('Escape');
    await page.getByTestId('summary-cards').waitFor();
    await expect.poll(shown).toEqual(expected);
  });

  test('the case view shows the SQL text diff beside the clause diff, and a fix can be tried', async () => {
    const id = 'retail-top-customers-2024';
    const run = page.url().split('#/runs/')[1]!.split('/')[0]!;
    await page.goto(`${app.origin}/#/runs/${run}/cases/${id}`);
    await page.getByTestId('sql-text-diff').waitFor();
    // The seeded mistake: LIMIT 3 instead of LIMIT 5.
    const del = (await page.getByTestId('sql-text-diff').locator('del').allTextContents()).map((t) => t.trim());
    const ins = (await page.getByTestId('sql-text-diff').locator('ins').allTextContents()).map((t) => t.trim());
    expect(del).toContain('5');
    expect(ins).toContain('3');
    await page.getByTestId('try-fix').locator('summary').click();
    const editor = page.locator('.cm-content[data-testid="fix-sql"]');
    await editor.waitFor({ timeout: 30_000 });
    const reference = cli.cases.find((k) => k.id === id)!.report!.evidence.expected_sql;
    await editor.fill(reference);
    await page.getByTestId('fix-grade').click();
    await expect.poll(async () => (await page.getByTestId('fix-verdict').textContent()) ?? '', { timeout: 60_000 }).toBe('pass');
    await page.getByTestId('sql-text-diff').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, 'case-text-diff.png'), fullPage: false });
  });

  test('the SQL editor completes a column of the loaded fixture (playground and query page)', async () => {
    await page.goto(`${app.origin}/#/playground`);
    const editor = page.locator('.cm-content[data-testid="pg-actual"]');
    await editor.waitFor({ timeout: 30_000 });
    await editor.fill('');
    await editor.click();
    await page.keyboard.type('SELECT customers.');
    const options = page.locator('.cm-tooltip-autocomplete li');
    await expect.poll(() => options.allTextContents(), { timeout: 15_000 }).toContain('customer_name');
    await page.screenshot({ path: path.join(SHOTS, 'editor-completion.png'), fullPage: false });
    await page.locator('.cm-tooltip-autocomplete li', { hasText: /^customer_name/ }).first().click();
    // innerText of the editor's lines: spaces may come back as no-break spaces, and widget buffers as zero-width spaces.
    await expect.poll(async () => (await editor.innerText()).replace(/[\s\u200b]+/g, ' ').trim()).toBe('SELECT customers.customer_name');
    // Highlighted: keywords in their own token spans.
    expect(await editor.locator('span').count()).toBeGreaterThan(0);

    await page.goto(`${app.origin}/#/query`);
    await page.getByTestId('fixture-summary').waitFor({ timeout: 60_000 });
    const query = page.locator('.cm-content[data-testid="sql"]');
    await query.waitFor({ timeout: 30_000 });
    await query.fill('');
    await query.click();
    await page.keyboard.type('SELECT orders.');
    // The query page's demo fixture has its own orders table (id, customer_id, amount, ...).
    await expect.poll(() => options.allTextContents(), { timeout: 15_000 }).toContain('customer_id');
    await page.keyboard.press('Escape');
    expect(pageErrors).toEqual([]);
    expect(foreign).toEqual([]);
  });
});
