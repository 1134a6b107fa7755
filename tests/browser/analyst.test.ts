/**
 * The analyst's results page in Chromium (production build): the demo run's
 * breakdowns, intervals and histograms (STEF Φ too) equal the CLI's and core's; the failures filtered to one
 * reason code and sorted, stepped with j / k, opened with Enter, then Next in
 * the case view follows that filtered, sorted list; the SQL text diff beside
 * the clause diff; the SQL editor (CodeMirror, loaded on demand) completes a
 * column of the loaded fixture on the playground and the query page; the
 * All cases table's Previous/Next; the Compare page (the demo run against the
 * CLI's strong report, opened from its file): McNemar and the interval of the
 * difference as `sql-verdict diff` prints them, A-beside-B histograms of the
 * scores and of STEF Φ, and its case table filtered, sorted, stepped with
 * j / k, opened with Enter, then Next and Esc back to the same filters.
 * UPDATE_SCREENSHOTS=1 writes the screenshots to docs/screenshots.
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { RunDiff } from '../../src/core/gate/diff.ts';
import { isSuccess } from '../../src/core/gate/outcome.ts';
import type { RunReport } from '../../src/core/run/grade-run.ts';
import { evaluateStef } from '../../src/core/stef/evaluate.ts';
import { binLinear } from '../../src/ui/components/charts/histogram.ts';
import { repoRoot } from '../helpers/paths.ts';
import { launchChromium, openPage, runCli, serveBuiltApp, type ServedApp, BROWSER_TEST_MS } from './harness.ts';

// Each test starts the production app in Chromium beside the engine tests' workers: minutes, not seconds, on a busy
// CI machine (the suite's 60 s default is for the unit tests).
vi.setConfig({ testTimeout: BROWSER_TEST_MS });

const SHOTS = process.env.UPDATE_SCREENSHOTS
  ? path.join(repoRoot, 'docs/screenshots')
  : path.join(repoRoot, 'test-results');
mkdirSync(SHOTS, { recursive: true });

let app: ServedApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let cli: RunReport;
let strongText: string;
let diffJson: RunDiff;
let diffText: string;
let demoRunId = '';
const WORK = mkdtempSync(path.join(tmpdir(), 'verdict-analyst-'));
const pageErrors: string[] = [];
const foreign: string[] = [];

beforeAll(async () => {
  // The CLI grades while the server and the browser start. Exit status 1: the run has failures.
  const demo = path.join(WORK, 'demo.json');
  const strong = path.join(WORK, 'strong.json');
  // The CLI grades (the demo run and the strong sample, for the Compare page) while the server and the browser start. Exit status 1: the run has failures.
  const graded = runCli(
    ['run', '--corpus', 'execution_goldens', '--run', 'src/ui/assets/demo-flawed.run.json', '--json', '--out', demo],
    { expectExit: [1] },
  );
  const gradedStrong = runCli(
    ['run', '--corpus', 'execution_goldens', '--run', 'fixtures/runs/execution_goldens.strong.json', '--out', strong],
    { expectExit: [0, 1] },
  );
  [app, browser] = await Promise.all([serveBuiltApp(), launchChromium()]);
  ({ context, page } = await openPage(
    browser,
    app.origin,
    { viewport: { width: 1280, height: 900 } },
    { foreign, pageErrors },
  ));
  await page.goto(`${app.origin}/`);
  cli = JSON.parse((await graded).stdout) as RunReport;
  await gradedStrong;
  strongText = readFileSync(strong, 'utf8');
  const [printed, json] = await Promise.all([
    runCli(['diff', '--report', demo, '--report', strong]),
    runCli(['diff', '--report', demo, '--report', strong, '--json']),
  ]);
  diffText = printed.stdout;
  diffJson = JSON.parse(json.stdout) as RunDiff;
}, 300_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.close();
});

/** The core's STEF Φ of each case's query, binned as the app's histograms bin it. */
const phiBins = (r: RunReport) =>
  binLinear(
    r.cases.flatMap((k) => {
      if (!k.query) return [];
      const o = evaluateStef({
        question: k.question,
        enriched_question: k.enriched_question,
        sql: k.query,
        dialect: r.corpus.engine === 'sqlite' ? 'sqlite' : 'duckdb',
      });
      return o.ok ? [o.value.phi] : [];
    }),
    0,
    100,
    10,
  ).counts;

const caseIdInView = async () =>
  ((await page.getByTestId('case-view').locator('h2 .mono').first().textContent()) ?? '').trim();

describe('results an analyst can work with', () => {
  test('the demo run shows breakdowns with intervals equal to the CLI, histograms with STEF Φ equal to the core', async () => {
    await page.getByTestId('run-demo').click();
    await page.getByTestId('summary-cards').waitFor({ timeout: 600_000 });
    demoRunId = page.url().split('#/runs/')[1]!.split('/')[0]!;
    await page.getByTestId('breakdowns').waitFor({ timeout: 30_000 });
    const s = cli.summary;
    for (const key of ['by_fixture', 'by_difficulty'] as const) {
      const rows = await page
        .getByTestId(`breakdown-${key}`)
        .locator('tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [
            tr.getAttribute('data-key'),
            Number(tr.querySelector('[data-testid="total"]')!.textContent),
          ]),
        );
      expect(rows, key).toEqual(s.breakdowns[key].map((r) => [r.key, r.total]));
    }
    const bar = page.getByTestId('card-accuracy').locator('svg.ci');
    expect(Number(await bar.getAttribute('data-low'))).toBeCloseTo(s.answer_accuracy.ci95![0], 12);
    expect(Number(await bar.getAttribute('data-high'))).toBeCloseTo(s.answer_accuracy.ci95![1], 12);
    expect(await page.getByTestId('accuracy-ci').textContent()).toContain('[75.4%, 92.4%]');
    await page.getByTestId('hist-overall').locator('rect[data-count]').first().waitFor();
    const overall = await page
      .getByTestId('hist-overall')
      .locator('rect[data-count]')
      .evaluateAll((rs) => rs.reduce((n, r) => n + Number(r.getAttribute('data-count')), 0));
    expect(overall).toBe(cli.cases.filter((k) => k.report).length);
    await page.getByTestId('hist-phi').waitFor({ timeout: 120_000 });
    expect(
      await page
        .getByTestId('hist-phi')
        .locator('rect[data-count]')
        .evaluateAll((rs) => rs.map((r) => Number(r.getAttribute('data-count')))),
    ).toEqual(phiBins(cli));
    await page.getByTestId('breakdowns').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, 'breakdowns.png'), fullPage: false });
  }, 600_000);

  test('failures filtered to one reason code, sorted; j / k, Enter, then Next follow that list', async () => {
    // The reason code with the most failures in the CLI's report.
    const counts = new Map<string, number>();
    for (const f of cli.summary.failures)
      if (f.reason_code) counts.set(f.reason_code, (counts.get(f.reason_code) ?? 0) + 1);
    const [code, n] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    expect(n).toBeGreaterThanOrEqual(2);
    await page.getByTestId('failure-reason').selectOption(code);
    await page.getByTestId('failure-sort').selectOption('id');
    await page.getByTestId('failure-descending').check();
    const expected = cli.summary.failures
      .filter((f) => f.reason_code === code)
      .map((f) => f.id)
      .sort()
      .reverse();
    const shown = () =>
      page
        .getByTestId('failures')
        .locator('tbody tr[data-case]')
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-case')));
    await expect.poll(shown).toEqual(expected);
    expect(await page.getByTestId('failure-shown').textContent()).toBe(
      `${expected.length} of ${cli.summary.failures.length}`,
    );
    await page.getByTestId('failures-keys').focus();
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    expect(await page.locator('[data-testid="failures"] tr[data-cursor="true"]').getAttribute('data-case')).toBe(
      expected[0],
    );
    await page.keyboard.press('j');
    expect(await page.locator('[data-testid="failures"] tr[data-cursor="true"]').getAttribute('data-case')).toBe(
      expected[1],
    );
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

  test('the All cases table: filtered to one difficulty, sorted by id descending; Next follows it', async () => {
    await page.goto(`${app.origin}/#/runs/${demoRunId}`);
    await page.getByTestId('summary-cards').waitFor();
    await page.getByText(/^All \d+ cases$/).click();
    const level = cli.summary.breakdowns.by_difficulty
      .filter((r) => r.key !== 'unrated')
      .sort((a, b) => b.total - a.total)[0]!.key;
    await page.getByTestId('case-difficulty').selectOption(level);
    await page.getByTestId('case-sort').selectOption('id');
    await page.getByTestId('case-descending').check();
    const expected = cli.cases
      .filter((k) => k.difficulty === level)
      .map((k) => k.id)
      .sort()
      .reverse();
    expect(expected.length).toBeGreaterThanOrEqual(3);
    const shown = () =>
      page
        .getByTestId('case-table')
        .locator('tbody tr[data-case]')
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-case')));
    await expect.poll(shown).toEqual(expected);
    await page.getByTestId('case-table').locator(`tr[data-case="${expected[1]}"] a`).click();
    await expect.poll(caseIdInView).toBe(expected[1]);
    expect(await page.getByTestId('case-position').textContent()).toContain(`2 of ${expected.length}`);
    await page.getByTestId('case-next').click();
    await expect.poll(caseIdInView).toBe(expected[2]);
    await page.getByTestId('case-prev').click();
    await expect.poll(caseIdInView).toBe(expected[1]);
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
    await expect
      .poll(async () => (await page.getByTestId('fix-verdict').textContent()) ?? '', { timeout: 60_000 })
      .toBe('pass');
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
    await page
      .locator('.cm-tooltip-autocomplete li', { hasText: /^customer_name/ })
      .first()
      .click();
    // innerText of the editor's lines: spaces may come back as no-break spaces, and widget buffers as zero-width spaces.
    await expect
      .poll(async () => (await editor.innerText()).replace(/[\s\u200b]+/g, ' ').trim())
      .toBe('SELECT customers.customer_name');
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

  test('typing while the SQL editor loads: it takes over the focus and the selection, so nothing typed is misplaced', async () => {
    // A page of its own whose editor chunk is held back until the textarea has the focus and a selection.
    const own = await browser.newContext({ serviceWorkers: 'block', viewport: { width: 1280, height: 900 } });
    try {
      const p = await own.newPage();
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      await p.route(/\/codemirror-[^/]*\.js$/, async (route) => {
        await held;
        await route.continue();
      });
      await p.goto(`${app.origin}/#/playground`);
      const textarea = p.locator('textarea[data-testid="pg-actual"]');
      await textarea.waitFor({ timeout: 30_000 });
      await textarea.click();
      await p.keyboard.press('Control+A');
      release();
      const editor = p.locator('.cm-content[data-testid="pg-actual"]');
      await editor.waitFor({ timeout: 30_000 });
      // Typed into the editor that replaced the textarea: it replaces the selected text, as in the textarea.
      await p.keyboard.type('SELECT 42');
      await expect.poll(async () => (await editor.innerText()).replace(/[\s\u200b]+/g, ' ').trim()).toBe('SELECT 42');
    } finally {
      await own.close();
    }
  });

  test('Compare: McNemar and the interval of the difference as the CLI prints them; A beside B histograms with STEF Φ; the case table filtered, sorted, j / k, Enter, Next, Esc', async () => {
    // B: the CLI's strong report, opened from its file (no second grading in the browser).
    await page.goto(`${app.origin}/#/`);
    await page
      .getByTestId('input-files')
      .setInputFiles({ name: 'strong.json', mimeType: 'application/json', buffer: Buffer.from(strongText) });
    await page.getByTestId('opened-from').waitFor({ timeout: 30_000 });
    const strongRunId = page.url().split('#/runs/')[1]!.split('/')[0]!;
    const strong = JSON.parse(strongText) as RunReport;

    await page.goto(`${app.origin}/#/compare`);
    await page.getByTestId('cmp-a').selectOption(demoRunId);
    await page.getByTestId('cmp-b').selectOption(strongRunId);
    await page.getByTestId('cmp-result').waitFor();
    // The app's demo and the CLI graded the same fixtures at the same instants: nothing to warn of.
    expect(await page.getByTestId('cmp-fixture-differences').count()).toBe(0);
    const d = diffJson;
    expect(d.counts.fixed).toBeGreaterThanOrEqual(3);
    expect(await page.getByTestId('mcnemar-p').textContent()).toBe(
      diffText.match(/McNemar exact test: b=\d+, c=\d+, p=(\S+)/)![1],
    );
    // `Difference B − A in right answers: +20.0 points [−16.8, +50.8] (95% interval, ...)`
    const printedDifference = diffText.match(/Difference B − A in right answers: (.+?) \(95% interval/)![1]!;
    expect(await page.getByTestId('cmp-difference').textContent()).toBe(printedDifference);
    expect(printedDifference).toMatch(/^[+−±]\d+\.\d points \[[+−±]\d+\.\d, [+−±]\d+\.\d\]$/);

    // Histograms: A's bars count A's graded cases, B's count B's; Φ's bins are the core's own Φ of each case's query.
    const sums = (id: string) =>
      page
        .getByTestId(id)
        .locator('rect[data-count]')
        .evaluateAll((rs) => {
          const n: Record<string, number> = {};
          for (const r of rs)
            n[r.getAttribute('data-series')!] =
              (n[r.getAttribute('data-series')!] ?? 0) + Number(r.getAttribute('data-count'));
          return n;
        });
    await page.getByTestId('cmp-hist-overall').locator('rect').first().waitFor({ timeout: 30_000 });
    const scored = (r: RunReport, field: 'overall_score' | 'structure_score' | 'result_score') =>
      r.cases.filter((k) => k.report && k.report[field] != null).length;
    for (const [key, field] of [
      ['overall', 'overall_score'],
      ['structure', 'structure_score'],
      ['result', 'result_score'],
    ] as const) {
      expect(await sums(`cmp-hist-${key}`), key).toEqual({ A: scored(cli, field), B: scored(strong, field) });
    }
    await page.getByTestId('cmp-hist-phi').waitFor({ timeout: 120_000 });
    const phiShown = await page
      .getByTestId('cmp-hist-phi')
      .locator('rect[data-count]')
      .evaluateAll((rs) =>
        rs.map((r) => [r.getAttribute('data-series'), Number(r.getAttribute('data-count'))] as const),
      );
    expect(phiShown.filter(([s]) => s === 'A').map(([, n]) => n)).toEqual(phiBins(cli));
    expect(phiShown.filter(([s]) => s === 'B').map(([, n]) => n)).toEqual(phiBins(strong));

    // The case table: fixed cases only, by case id descending.
    await page.getByTestId('cmp-change').selectOption('fixed');
    await page.getByTestId('cmp-sort').selectOption('id');
    await page.getByTestId('cmp-descending').check();
    const expected = [...d.fixed_ids].sort().reverse();
    const shown = () =>
      page
        .getByTestId('cmp-cases')
        .locator('tbody tr[data-case]')
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-case')));
    await expect.poll(shown).toEqual(expected);
    expect(await page.getByTestId('cmp-shown').textContent()).toBe(`${expected.length} of ${d.cases.length}`);
    await page.getByTestId('compare-histograms').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, 'compare-filters.png'), fullPage: false });
    await page.getByTestId('cmp-keys').focus();
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    expect(await page.locator('[data-testid="cmp-cases"] tr[data-cursor="true"]').getAttribute('data-case')).toBe(
      expected[1],
    );
    await page.keyboard.press('Enter');
    // B's case, in the compare table's order.
    await expect.poll(caseIdInView).toBe(expected[1]);
    expect(page.url()).toContain(`#/runs/${strongRunId}/cases/`);
    expect(await page.getByTestId('case-position').textContent()).toContain(`2 of ${expected.length}`);
    await page.getByTestId('case-next').click();
    await expect.poll(caseIdInView).toBe(expected[2]);
    await page.keyboard.press('Escape');
    await page.getByTestId('cmp-result').waitFor();
    await expect.poll(shown).toEqual(expected);

    // A reason code: the wrong side's (B's, or A's for a fixed case); the search box narrows further.
    await page.getByTestId('cmp-clear').click();
    const caseA = new Map(cli.cases.map((k) => [k.id, k]));
    const codeOf = (id: string) => {
      const b = strong.cases.find((k) => k.id === id)!;
      const wrong = isSuccess(b.outcome) ? caseA.get(id)! : b;
      return isSuccess(wrong.outcome) ? '' : (wrong.reason_code ?? '');
    };
    const codes = new Map<string, string[]>();
    for (const k of d.cases) if (codeOf(k.id)) codes.set(codeOf(k.id), [...(codes.get(codeOf(k.id)) ?? []), k.id]);
    const [code, ids] = [...codes].sort((x, y) => y[1].length - x[1].length)[0]!;
    await page.getByTestId('cmp-reason').selectOption(code);
    await expect.poll(shown).toEqual([...ids].sort().reverse());
    await page.getByTestId('cmp-search').fill(ids[0]!);
    await expect.poll(shown).toEqual(
      ids
        .filter((id) => id.includes(ids[0]!))
        .sort()
        .reverse(),
    );
    expect(pageErrors).toEqual([]);
    expect(foreign).toEqual([]);
  }, 300_000);
});
