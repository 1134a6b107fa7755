/**
 * What a demanding user does to the app (production build, Chromium) besides the happy path:
 * links cut or edited by hand, a comparison the worker refuses, emptied editors, a phone-width
 * home page with runs kept, keyboard round trips. Each test is a defect once found by hand.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { RunReport } from '../../src/core/run/run-report.ts';
import { encodeShare, type SharedComparison } from '../../src/ui/state/share.ts';
import { repoRoot } from '../helpers/paths.ts';
import { launchChromium, openPage, runCli, serveBuiltApp, type ServedApp, BROWSER_TEST_MS } from './harness.ts';

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

const text = async (testId: string) => ((await page.getByTestId(testId).first().textContent()) ?? '').trim();

/** A share link written by the app's own encoder (an edited config is still encoded as given). */
async function shareLink(payload: Record<string, unknown>): Promise<string> {
  const encoded = await encodeShare(payload as unknown as SharedComparison);
  if (!encoded.ok) throw new Error(encoded.message);
  return encoded.fragment;
}

const COMPARISON = {
  v: 3,
  engine: 'duckdb',
  fixture: 'retail',
  fixtureDigest: null,
  question: 'How many customers?',
  expectedSql: 'SELECT count(*) FROM customers',
  actualSql: 'SELECT count(customer_id) FROM customers',
  orderMatters: false,
  shape: null,
  config: null,
};

/** How often the playground's status line changes in `ms` (a grading loop changes it thousands of times). */
const statusChanges = (ms: number) =>
  page.evaluate(async (wait) => {
    let changes = 0;
    const observer = new MutationObserver(() => changes++);
    observer.observe(document.querySelector('[data-testid=pg-status]')!, {
      childList: true,
      characterData: true,
      subtree: true,
    });
    await new Promise((resolve) => setTimeout(resolve, wait));
    observer.disconnect();
    return changes;
  }, ms);

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

  test('a shared comparison the worker refuses (invalid config) shows why, once: no grading loop', async () => {
    await page.goto('about:blank');
    await page.goto(`${app.origin}/${await shareLink({ ...COMPARISON, config: { float_tolerance: 'abc' } })}`);
    await page.getByTestId('playground').waitFor();
    await expect
      .poll(() => page.locator('[data-testid=playground] .error').textContent(), { timeout: 60_000 })
      .toContain('unknown option "float_tolerance"');
    // Before: the view graded the same refused comparison again as soon as the last one ended, forever.
    expect(await statusChanges(2000)).toBeLessThan(5);
    expect(await text('pg-status')).not.toBe('Grading…');
    // An edit grades again (and a good one shows its verdict).
    await page.locator('.cm-content[data-testid=pg-actual]').click();
    await page.keyboard.press('End');
    await page.keyboard.type(' ');
    await expect.poll(() => text('pg-status'), { timeout: 60_000 }).not.toBe('Grading…');
    expect(pageErrors).toEqual([]);
  }, 180_000);

  test('emptying the candidate SQL in the playground clears the verdict of the SQL that was there', async () => {
    await page.goto('about:blank');
    await page.goto(`${app.origin}/${await shareLink(COMPARISON)}`);
    await expect.poll(() => text('verdict'), { timeout: 90_000 }).toMatch(/pass|fail/);
    await page.locator('.cm-content[data-testid=pg-actual]').click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await expect
      .poll(() => page.locator('[data-testid=playground] .error').textContent(), { timeout: 30_000 })
      .toBe('Write the candidate SQL to grade this comparison.');
    // Before: the previous SQL's verdict (and its explanation) stayed under the empty editor.
    expect(await page.getByTestId('verdict').count()).toBe(0);
    await page.keyboard.type('SELECT count(*) FROM customers');
    await expect.poll(() => text('verdict'), { timeout: 60_000 }).toBe('pass');
    expect(await page.locator('[data-testid=playground] .error').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  }, 180_000);

  test('a negative Neighbours count in the playground is named, not graded as if it were off', async () => {
    await page.goto('about:blank');
    await page.goto(`${app.origin}/${await shareLink(COMPARISON)}`);
    await expect.poll(() => text('verdict'), { timeout: 90_000 }).toMatch(/pass|fail/);
    await page.getByTestId('pg-neighbours').fill('-3');
    await page.getByTestId('pg-neighbours').dispatchEvent('change');
    // Before: -3 was sent as "no neighbours" and the verdict of the fixture alone showed under it, no word said.
    await expect
      .poll(() => page.locator('[data-testid=playground] .error').allTextContents(), { timeout: 30_000 })
      .toContain('config.neighbours must be a non-negative whole number.');
    expect(await page.getByTestId('verdict').count()).toBe(0);
    await page.getByTestId('pg-neighbours').fill('0');
    await page.getByTestId('pg-neighbours').dispatchEvent('change');
    await expect.poll(() => text('verdict'), { timeout: 60_000 }).toMatch(/pass|fail/);
    expect(pageErrors).toEqual([]);
  }, 180_000);

  test('the home page at phone width with a run kept: the run list scrolls inside itself, the page does not', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${app.origin}/#/`);
      await page.getByTestId('run-demo').click();
      await page.getByTestId('summary-cards').waitFor({ timeout: 600_000 });
      await page.goto(`${app.origin}/#/`);
      await page.getByTestId('run-list').waitFor();
      const width = await page.evaluate(() => [document.scrollingElement!.scrollWidth, innerWidth]);
      // Before: 564 px, the Actions header's visually hidden label sat past the table's scrolled edge.
      expect(width[0]).toBeLessThanOrEqual(width[1]! + 1);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    expect(pageErrors).toEqual([]);
  }, 700_000);

  test('Esc from a case opened from a list gives the keyboard back to that list, its cursor on the case last shown', async () => {
    await page.goto(`${app.origin}/#/`);
    await page.getByTestId('run-list').waitFor();
    // The demo run the test before graded (or a new one).
    const link = page.locator('[data-testid=run-list] tr[data-status=done] a').first();
    if (await link.count()) await link.click();
    else await page.getByTestId('run-demo').click();
    await page.getByTestId('summary-cards').waitFor({ timeout: 600_000 });
    const cursor = (list: string) =>
      page.evaluate(
        (l) => document.querySelector(`[data-testid=${l}] tr[data-cursor=true]`)?.getAttribute('data-case'),
        list,
      );
    const focused = () => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.testid ?? null);
    for (const list of ['failures-keys', 'cases-keys']) {
      if (list === 'cases-keys') await page.locator('details:has([data-testid=cases-keys]) > summary').click();
      await page.getByTestId(list).focus();
      for (const key of ['j', 'j', 'Enter']) await page.keyboard.press(key);
      await page.getByTestId('case-view').waitFor();
      await page.keyboard.press('j');
      await expect.poll(() => text('case-position')).toMatch(/^3 of /);
      const shown = decodeURIComponent(page.url().split('/cases/')[1]!);
      await page.keyboard.press('Escape');
      await page.getByTestId('summary-cards').waitFor();
      // Before: the focus was on the page's body, so j / k / Enter did nothing until the list was clicked again.
      await expect.poll(focused, { message: list }).toBe(list);
      expect(await cursor(list), list).toBe(shown);
      await page.keyboard.press('j');
      await page.keyboard.press('Enter');
      await page.getByTestId('case-view').waitFor();
      expect(await text('case-position'), list).toMatch(/^4 of /);
      await page.keyboard.press('Escape');
      await page.getByTestId('summary-cards').waitFor();
    }
    expect(pageErrors).toEqual([]);
  }, 700_000);

  test('a reload right after a burst of graded cases keeps every case graded before it', async () => {
    await page.goto(`${app.origin}/#/`);
    await page.getByTestId('run-demo').click();
    await page.waitForURL(/#\/runs\//);
    // Cases come in bursts (the ones after a slow case all at once); IndexedDB is written at most once a second.
    const shown = await page.waitForFunction(
      () => {
        const m = document.querySelector('[data-testid=graded-so-far]')?.textContent?.match(/\((\d+) of/);
        return m && Number(m[1]) > 10 ? Number(m[1]) : null;
      },
      null,
      { polling: 'raf', timeout: 600_000 },
    );
    const graded = (await shown.jsonValue()) as number;
    await page.reload();
    await page.getByTestId('summary-cards').waitFor({ timeout: 600_000 });
    // No resume at all: the run had ended (and was saved whole) before the reload.
    const resumed = (await page.getByTestId('kept-on-resume').count()) > 0;
    const kept = resumed ? Number((await text('kept-on-resume')).match(/Resumed: (\d+) case/)?.[1] ?? 0) : graded;
    // Before: the cases of the last second were lost with the page (10 kept of 21, 34, 64 seen graded).
    expect(kept).toBeGreaterThanOrEqual(graded);
    expect(await text('accuracy-counts')).toBe('55 / 64 correct');
    expect(pageErrors).toEqual([]);
  }, 700_000);

  test("a defog-style CSV benchmark dropped with its databases is graded with the CLI's verdicts; a predictions CSV alone is named, not loaded as a fixture", async () => {
    await page.goto(`${app.origin}/#/`);
    await page.getByTestId('run-demo').waitFor();
    const defog = path.join(repoRoot, 'fixtures/benchmarks/defog-sample');
    const shop = path.join(repoRoot, 'fixtures/benchmarks/bird-sample/dev_databases/shop/shop.sqlite');
    const cli = runCli(
      ['run', '--format', 'csv', '--questions', `${defog}/questions.csv`, '--pred', `${defog}/predictions.csv`].concat([
        '--db-dir',
        path.dirname(path.dirname(shop)),
        '--json',
      ]),
      { expectExit: [0, 1] },
    );
    const drop = (files: { name: string; path: string }[]) =>
      page.evaluate(
        (items) => {
          const transfer = new DataTransfer();
          for (const item of items)
            transfer.items.add(new File([Uint8Array.from(atob(item.data), (c) => c.charCodeAt(0))], item.name));
          window.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
          window.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
        },
        files.map((f) => ({ name: f.name, data: readFileSync(f.path).toString('base64') })),
      );
    // A predictions CSV alone: before, it became a fixture named "predictions", and nothing was said.
    await drop([{ name: 'predictions.csv', path: `${defog}/predictions.csv` }]);
    await expect
      .poll(() => page.locator('[data-testid=file-errors] li').allTextContents(), { timeout: 30_000 })
      .toEqual([
        expect.stringMatching(
          /^predictions\.csv: a defog-style benchmark CSV, not a fixture\. Drop it together with the questions CSV/,
        ),
      ]);
    expect(await page.locator('[aria-labelledby=fixtures-heading] li').allTextContents()).not.toContainEqual(
      expect.stringMatching(/^predictions /),
    );
    // The questions and predictions without the databases: the first missing one is named at its line.
    await drop(['questions.csv', 'predictions.csv'].map((name) => ({ name, path: `${defog}/${name}` })));
    await expect
      .poll(() => page.locator('[data-testid=file-errors] li').allTextContents(), { timeout: 30_000 })
      .toContainEqual(
        expect.stringMatching(
          /^questions\.csv:2: error \[unknown_fixture\] case 'q0000' field 'db_name': Unknown db_id 'shop': no shop\.sqlite among the files/,
        ),
      );
    // With them: imported as `run --format csv` imports it, graded with the CLI's verdicts.
    await drop([
      ...['questions.csv', 'predictions.csv'].map((name) => ({ name, path: `${defog}/${name}` })),
      { name: 'shop.sqlite', path: shop },
      { name: 'school.sqlite', path: shop.replace(/shop/g, 'school') },
    ]);
    await expect
      .poll(() => page.getByTestId('chosen-benchmark').getAttribute('data-format'), { timeout: 30_000 })
      .toBe('csv');
    expect(await text('benchmark-databases')).toMatch(/databases \(2\): school, shop/);
    await expect.poll(() => page.getByTestId('chosen-run').getAttribute('data-ok'), { timeout: 30_000 }).toBe('true');
    expect(await page.getByTestId('policy').inputValue()).toBe('sql-verdict');
    await page.getByTestId('start').click();
    await page.getByTestId('summary-cards').waitFor({ timeout: 300_000 });
    const expected = JSON.parse((await cli).stdout) as RunReport;
    const a = expected.summary.answer_accuracy;
    expect(await text('accuracy-counts')).toBe(`${a.correct} / ${a.total} correct`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
    const mine = JSON.parse(readFileSync((await download.path())!, 'utf8')) as RunReport;
    const verdicts = (r: RunReport) =>
      r.cases.map((c) => [c.id, c.outcome, c.reason_code ?? null, c.reference_match?.matched_index ?? null]);
    expect(verdicts(mine)).toEqual(verdicts(expected));
    expect(mine.cases.some((c) => c.reference_match?.matched_index === 1)).toBe(true);
    expect(pageErrors).toEqual([]);
  }, 300_000);

  test('Back from an opened share link goes to the page before it, without opening the link again', async () => {
    await page.goto(`${app.origin}/#/`);
    await page.getByLabel(/refusal_battery\.yaml/).check();
    await page.getByLabel(/refusal_battery\.strong\.json/).check();
    await expect.poll(() => page.getByTestId('start').isEnabled(), { timeout: 30_000 }).toBe(true);
    await page.getByTestId('start').click();
    await page.getByTestId('summary-cards').waitFor({ timeout: 600_000 });
    await page.getByTestId('share-run').click();
    const href = (await page.getByTestId('share-run-link').getAttribute('href'))!;
    const runLink = href.slice(href.indexOf('#'));
    await page.goto(`${app.origin}/#/`);
    const runs = await page.locator('[data-testid=run-list] tbody tr').count();

    await page.goto(`${app.origin}/#/playground`);
    await page.getByTestId('playground').waitFor();
    await page.goto(`${app.origin}/${runLink}`);
    await page.getByTestId('opened-from').waitFor();
    await page.goBack();
    // Before: Back landed on the link, which stored the run once more and went forward again.
    await page.getByTestId('playground').waitFor();
    expect(new URL(page.url()).hash).toBe('#/playground');
    await page.goto(`${app.origin}/#/`);
    await expect.poll(() => page.locator('[data-testid=run-list] tbody tr').count()).toBe(runs + 1);

    // A comparison link the same way: Back leaves the playground it opened.
    await page.goto(`${app.origin}/#/corpus`);
    await page.getByTestId('corpus-view').waitFor();
    await page.goto(`${app.origin}/${await shareLink(COMPARISON)}`);
    await expect.poll(() => new URL(page.url()).hash).toBe('#/playground');
    await page.goBack();
    await page.getByTestId('corpus-view').waitFor();
    expect(new URL(page.url()).hash).toBe('#/corpus');
    expect(pageErrors).toEqual([]);
  }, 700_000);
});
