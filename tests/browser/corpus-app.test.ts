/**
 * The corpus views against the production build in Chromium: one click runs
 * the demo corpus with the flawed demo run; the page's 2×2 and counts equal
 * the CLI's report for the same inputs; a failing case shows its differing
 * cell; the exported JSON carries the CLI's verdicts; a reload keeps the run;
 * a share link opens the same comparison in a fresh context, and a corrupt
 * one says so; the playground works offline.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { RunReport } from '../../src/core/run/grade-run.ts';
import { repoRoot } from '../helpers/paths.ts';
import {
  launchChromium,
  openPage,
  runCli,
  serveBuiltApp,
  type ServedApp,
  BROWSER_WAIT_MS,
  BROWSER_TEST_MS,
} from './harness.ts';

// Each test starts the production app in Chromium beside the engine tests' workers: minutes, not seconds, on a busy
// CI machine (the suite's 60 s default is for the unit tests).
vi.setConfig({ testTimeout: BROWSER_TEST_MS });

const DEMO_RUN = 'src/ui/assets/demo-flawed.run.json';
const SHOTS = process.env.UPDATE_SCREENSHOTS
  ? path.join(repoRoot, 'docs/screenshots')
  : path.join(repoRoot, 'test-results');
mkdirSync(SHOTS, { recursive: true });

let app: ServedApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let cli: RunReport;
const pageErrors: string[] = [];
const foreign: string[] = [];

beforeAll(async () => {
  // Exit status 1: the run has failures (that is the point of the demo run).
  // The CLI grades while the server and the browser start.
  const graded = runCli(['run', '--corpus', 'execution_goldens', '--run', DEMO_RUN, '--json'], { expectExit: [1] });
  [app, browser] = await Promise.all([serveBuiltApp(), launchChromium()]);
  ({ context, page } = await openPage(
    browser,
    app.origin,
    { viewport: { width: 1280, height: 800 }, acceptDownloads: true },
    { foreign, pageErrors },
  ));
  await page.goto(`${app.origin}/`);
  cli = JSON.parse((await graded).stdout) as RunReport;
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const text = async (testId: string) => ((await page.getByTestId(testId).first().textContent()) ?? '').trim();

describe('corpus app in Chromium (production build)', () => {
  test('home offers the built-ins without upload; bad files get precise errors', async () => {
    await page.getByTestId('home').waitFor();
    expect(await page.getByText('execution_goldens.yaml').count()).toBeGreaterThan(0);
    expect(await page.getByText('demo-flawed.run.json').count()).toBeGreaterThan(0);
    await page.getByTestId('input-files').setInputFiles({
      name: 'broken.yaml',
      mimeType: 'text/yaml',
      buffer: Buffer.from('corpus: x\nversion: 1\nengine: duckdb\ncases:\n  - id: a\n    fixture: retail\n'),
    });
    await expect.poll(() => text('corpus-problems')).toMatch(/broken\.yaml:\d+/);
    // A corpus written for PostgreSQL (`engine: postgres`) says it runs on PGlite in this tab.
    await page.getByTestId('input-files').setInputFiles({
      name: 'pg.yaml',
      mimeType: 'text/yaml',
      buffer: Buffer.from(
        'corpus: pg\nversion: 1\nengine: postgres\ncases:\n  - id: a\n    fixture: retail\n    question: How many customers?\n' +
          '    reference_sql: SELECT count(*) AS n FROM customers\n    shape: scalar\n    order_matters: false\n',
      ),
    });
    await expect
      .poll(() => text('corpus-engine-fixed'))
      .toBe("Engine: PostgreSQL (PGlite) (the corpus's engine: postgres)");
    await page
      .getByTestId('input-files')
      .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await expect.poll(() => text('file-errors')).toMatch(/notes\.txt: not a corpus/);
    await page.screenshot({ path: path.join(SHOTS, 'home.png'), fullPage: true });
  });

  test('a run declaring another corpus is refused with a clear message until the user chooses to grade anyway', async () => {
    await page.getByText('execution_goldens.yaml').first().click();
    await expect.poll(() => page.getByTestId('chosen-corpus').getAttribute('data-ok')).toBe('true');
    const run = {
      run: { agent: 'a', model: 'm', path: 'p', corpus: 'another_corpus' },
      records: [{ id: 'retail-customer-count', sql: 'SELECT count(*) FROM customers' }],
    };
    await page.getByTestId('input-files').setInputFiles({
      name: 'other.run.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(run)),
    });
    await expect
      .poll(() => text('corpus-mismatch'))
      .toMatch(
        /^other\.run\.json \(field run\.corpus\): it declares corpus "another_corpus", the corpus graded is "execution_goldens"/,
      );
    expect(await page.getByTestId('start').isDisabled()).toBe(true);
    await page.getByTestId('allow-corpus-mismatch').check();
    expect(await page.getByTestId('start').isDisabled()).toBe(false);
  });

  test('one click runs the demo corpus with live progress; the 2×2 and counts equal the CLI', async () => {
    const loadedAt = await page.evaluate(() => performance.now());
    await page.getByTestId('run-demo').click();
    await page.getByTestId('progress').waitFor({ timeout: 60_000 });
    // While engines and fixtures load there is no case to name: the line says so and its clock ticks
    // (it read "Checking the oracle: · elapsed 0.0 ms" for seconds).
    const line = () => page.getByTestId('progress').locator('p').innerText();
    expect(await line()).not.toMatch(/Checking the oracle:\s*·/);
    if (await page.getByTestId('progress-loading').count()) {
      const before = await line();
      await page.waitForTimeout(700);
      if (await page.getByTestId('progress-loading').count()) expect(await line()).not.toBe(before);
    }
    await expect.poll(() => text('progress-step'), { timeout: 120_000 }).toMatch(/parse|execute|done/);
    await page.screenshot({ path: path.join(SHOTS, 'run.png') });
    await page.getByTestId('summary-cards').waitFor({ timeout: 600_000 });
    const firstCase = await page.evaluate(
      () => (window as unknown as { __verdict?: { firstCaseAt: number | null } }).__verdict?.firstCaseAt ?? null,
    );
    console.log(`first graded case ${firstCase === null ? '?' : Math.round(firstCase - loadedAt)} ms after the click`);
    expect(await text('run-status')).toBe('done');
    const t = cli.summary.two_by_two;
    expect(Number(await text('tbt-correct'))).toBe(t.answerable.returned.correct);
    expect(Number(await text('tbt-wrong'))).toBe(t.answerable.returned.wrong);
    expect(Number(await text('tbt-over-refusal'))).toBe(t.answerable.declined.over_refusal.count);
    expect(Number(await text('tbt-declined-unarmed'))).toBe(t.answerable.declined.declined_unarmed.count);
    expect(Number(await text('tbt-answerable-no-query'))).toBe(t.answerable.no_query);
    expect(Number(await text('tbt-answerable-total'))).toBe(t.answerable.total);
    expect(Number(await text('tbt-missed-refusal'))).toBe(t.unanswerable.returned.missed_refusal);
    expect(Number(await text('tbt-correct-refusal'))).toBe(t.unanswerable.declined.correct_refusal);
    const a = cli.summary.answer_accuracy;
    expect(await text('accuracy-counts')).toBe(`${a.correct} / ${a.total} correct`);
    expect(await page.locator('[data-testid=failures] tbody tr').count()).toBe(cli.summary.failures.length);
    await page.screenshot({ path: path.join(SHOTS, 'results.png'), fullPage: true });
    // Filter and search.
    await page.getByTestId('failure-search').fill('timeout');
    await expect.poll(() => page.locator('[data-testid=failures] tbody tr').count()).toBe(1);
    await page.getByTestId('failure-search').fill('');
  }, 700_000);

  test('a failing case shows the clause edits and the highlighted differing cell', async () => {
    await page.locator('[data-testid=failures] a', { hasText: 'retail-net-revenue-2024' }).click();
    await page.getByTestId('case-view').waitFor();
    expect(await text('case-outcome')).toBe('wrong');
    expect(await text('enriched-question')).toMatch(/Sum quantity/);
    const cell = page.locator('[data-testid=sample-actual] [data-testid=differing-cell]');
    await expect.poll(() => cell.count()).toBe(1);
    // The page shows the very values the CLI's report holds for this case.
    const cliCase = cli.cases.find((c) => c.id === 'retail-net-revenue-2024')!.report!;
    expect(await cell.textContent()).toContain(String(cliCase.evidence.actual_sample!.rows[0]![0]));
    expect(await page.locator('[data-testid=sample-expected] [data-testid=differing-cell]').textContent()).toContain(
      String(cliCase.evidence.expected_sample!.rows[0]![0]),
    );
    expect(await page.getByTestId('clause-edits').textContent()).toMatch(/WHERE/);
    // A review is stored next to the verdict.
    await page.getByLabel('Disagree').check();
    await page.getByRole('button', { name: 'Save review' }).click();
    await expect.poll(() => text('review-saved')).toMatch(/disagree/);
    expect(await text('verdict')).toBe('fail');
    await page.screenshot({ path: path.join(SHOTS, 'case.png'), fullPage: true });
    // Missing rows of a top-n answer are marked.
    await page.goto(page.url().replace(/cases\/[^/]+$/, 'cases/retail-top-customers-2024'));
    await expect.poll(() => page.locator('[data-testid=sample-expected] tr[data-marked]').count()).toBe(2);
  });

  test('the exported JSON carries the CLI verdicts, and reviews beside them', async () => {
    await page.goto(page.url().replace(/\/cases\/.*$/, ''));
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
    const exported = JSON.parse(readFileSync((await download.path())!, 'utf8')) as RunReport & {
      reviews: Record<string, { agree: boolean }>;
    };
    const verdicts = (r: RunReport) => r.cases.map((c) => [c.id, c.outcome, c.report?.deterministic_verdict ?? null]);
    expect(verdicts(exported)).toEqual(verdicts(cli));
    expect(exported.summary.two_by_two).toEqual(cli.summary.two_by_two);
    expect(exported.reviews['retail-net-revenue-2024']?.agree).toBe(false);
  });

  test('a reload keeps the finished run', async () => {
    await page.reload();
    await page.getByTestId('summary-cards').waitFor({ timeout: 30_000 });
    expect(await text('accuracy-counts')).toBe(
      `${cli.summary.answer_accuracy.correct} / ${cli.summary.answer_accuracy.total} correct`,
    );
  });

  test('a case share link carries the whole case: monthly-orders-by-month reopens as wrong; a changed link is refused', async () => {
    const runUrl = page.url();
    expect(runUrl).toMatch(/#\/runs\/[^/]+$/);
    expect(cli.cases.find((c) => c.id === 'monthly-orders-by-month')?.outcome).toBe('wrong');
    await page.goto(`${runUrl}/cases/monthly-orders-by-month`);
    await page.getByTestId('case-view').waitFor();
    // No clipboard at all (an insecure context, an old browser): the link is shown on the page instead.
    await page.evaluate(() => Object.defineProperty(navigator, 'clipboard', { value: undefined, configurable: true }));
    await page.getByTestId('share-case').click();
    const link = (await page.getByTestId('case-share-link').getAttribute('href'))!;
    expect(link).toContain('#/s/');
    expect(await text('share-case-message')).toBe('Link ready below (copy it by hand).');
    const fresh = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    fresh.setDefaultTimeout(BROWSER_WAIT_MS);
    try {
      const other = await fresh.newPage();
      await other.goto(link);
      await other.getByTestId('playground').waitFor({ timeout: 30_000 });
      expect(await other.getByTestId('shared-case').textContent()).toMatch(
        /monthly-orders-by-month.*shape time_series.*order matters/,
      );
      await expect
        .poll(async () => (await other.getByTestId('verdict').textContent()) ?? '', { timeout: 90_000 })
        .toBe('fail');
      // One character changed in the middle of the fragment: refused, with the reason.
      const at = link.indexOf('#/s/') + 4 + Math.floor((link.length - link.indexOf('#/s/') - 4) / 2);
      const changed = `${link.slice(0, at)}${link[at] === 'A' ? 'B' : 'A'}${link.slice(at + 1)}`;
      await other.goto(changed);
      await other.reload();
      await expect
        .poll(async () => (await other.getByTestId('share-error').textContent()) ?? '')
        .toMatch(/changed or cut|corrupt/);
    } finally {
      await fresh.close();
    }
  }, 180_000);

  test('a share link opens the same comparison in a fresh context; a corrupt one says so', async () => {
    await page.goto(`${app.origin}/#/playground`);
    // The case shared in the test before did not leave its link in the playground.
    expect(await page.getByTestId('share-link').count()).toBe(0);
    // The engine and the neighbours setting decide the verdict too: the link must carry them.
    await page.getByTestId('pg-engine').selectOption('sqlite');
    await page.getByTestId('pg-neighbours').fill('2');
    await page.getByTestId('pg-actual').fill("SELECT count(*) AS n FROM orders WHERE status = 'shipped'");
    await expect.poll(() => text('verdict'), { timeout: 60_000 }).toBe('fail');
    await page.screenshot({ path: path.join(SHOTS, 'playground.png'), fullPage: true });
    await page.getByTestId('share').click();
    // The link is made asynchronously (compressed); read it once the page says it is ready.
    await expect.poll(() => text('pg-status')).toMatch(/^Link (copied|ready)/);
    const link = (await page.getByTestId('share-link').getAttribute('href'))!;
    expect(link).toContain('#/s/');
    const fresh = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    fresh.setDefaultTimeout(BROWSER_WAIT_MS);
    const other = await fresh.newPage();
    await other.goto(link);
    await other.getByTestId('playground').waitFor({ timeout: 30_000 });
    // A textarea until the SQL editor (CodeMirror, loaded on demand) takes its place.
    await expect
      .poll(() =>
        other
          .getByTestId('pg-actual')
          .evaluate((el) => (el instanceof HTMLTextAreaElement ? el.value : (el as HTMLElement).innerText)),
      )
      .toBe("SELECT count(*) AS n FROM orders WHERE status = 'shipped'");
    expect(await other.getByTestId('pg-engine').inputValue()).toBe('sqlite');
    expect(await other.getByTestId('pg-neighbours').inputValue()).toBe('2');
    await expect
      .poll(async () => (await other.getByTestId('verdict').textContent()) ?? '', { timeout: 60_000 })
      .toBe('fail');
    expect(await other.getByTestId('share-notice').count()).toBe(0);
    await other.goto(`${app.origin}/#/s/AAAA-not-deflate`);
    await other.reload();
    await expect.poll(async () => (await other.getByTestId('share-error').textContent()) ?? '').toMatch(/corrupt/);
    await fresh.close();
  }, 180_000);

  test('a candidate that does not parse is labelled a parse error, not an execution error (the case view shows the same panel)', async () => {
    await page.goto(`${app.origin}/#/playground`);
    await page.getByTestId('pg-actual').fill('SELEC count(*) FROM orders');
    await expect.poll(() => text('error-label'), { timeout: 60_000 }).toBe('Candidate parse error');
    expect(await page.getByTestId('error-label').count()).toBe(1);
  });

  test('the demo corpus runs on PostgreSQL (PGlite) with its ported references: the 2×2 and failures equal the CLI’s run --ports', async () => {
    const ports = 'fixtures/corpora/ports/execution_goldens.postgres.yaml';
    const graded = runCli(['run', '--corpus', 'execution_goldens', '--ports', ports, '--run', DEMO_RUN, '--json'], {
      expectExit: [1],
    });
    // PGlite's first load in this page: its download (three files, summed) as it runs, then what it cost.
    const seen: string[] = [];
    await page.exposeFunction('__sawPglite', (t: string) => void seen.push(t));
    await page.addInitScript(() => {
      new MutationObserver(() => {
        const el = document.querySelector('[data-testid=pglite-progress]');
        if (el) (window as unknown as { __sawPglite(t: string): void }).__sawPglite(el.textContent ?? '');
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    await page.goto(`${app.origin}/`);
    await page.getByTestId('demo-engine').selectOption('pglite');
    await page.getByTestId('run-demo').click();
    const loaded = ((await page.getByTestId('pglite-done').textContent({ timeout: 600_000 })) ?? '').trim();
    console.log(
      `${loaded}; ${seen.length} progress texts, last: ${seen.at(-1)?.replace(/\s+/g, ' ').trim() ?? 'none'}`,
    );
    expect(
      seen.some((t) => /Downloading the PostgreSQL \(PGlite\) engine: \d+\.\d MB of \d+\.\d MB · \d+%/.test(t)),
    ).toBe(true);
    const mb = Number(/loaded \((\d+\.\d) MB\) in \d/.exec(loaded)?.[1]);
    expect(mb).toBeGreaterThan(5);
    expect(mb).toBeLessThan(40);
    await page.getByTestId('summary-cards').waitFor({ timeout: 600_000 });
    expect(await text('run-status')).toBe('done');
    expect(await text('run-ports')).toBe(
      'on PostgreSQL (PGlite), references ported by execution_goldens.postgres.yaml',
    );
    const pg = JSON.parse((await graded).stdout) as RunReport;
    expect(new Set(pg.cases.map((c) => c.report?.run_metadata.engine).filter(Boolean))).toEqual(new Set(['pglite']));
    const t = pg.summary.two_by_two;
    expect(Number(await text('tbt-correct'))).toBe(t.answerable.returned.correct);
    expect(Number(await text('tbt-wrong'))).toBe(t.answerable.returned.wrong);
    expect(Number(await text('tbt-correct-refusal'))).toBe(t.unanswerable.declined.correct_refusal);
    // The demo agent writes DuckDB SQL: on PostgreSQL more of it fails than on DuckDB (year(), GROUP BY ALL, …).
    expect(t.answerable.returned.wrong).toBeGreaterThan(cli.summary.two_by_two.answerable.returned.wrong);
    const failing = await page
      .locator('[data-testid=failures] tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-case') ?? ''));
    expect(new Set(failing)).toEqual(new Set(pg.summary.failures.map((f) => f.id)));
    // The playground on PGlite (started above): PostgreSQL SQL graded on PostgreSQL.
    await page.goto(`${app.origin}/#/playground`);
    await page.getByTestId('pg-engine').selectOption('pglite');
    await page
      .getByTestId('pg-actual')
      .fill("SELECT count(*) FILTER (WHERE status ILIKE 'CANCELLED') AS cancelled_orders FROM orders");
    await expect.poll(() => text('verdict'), { timeout: 120_000 }).toBe('pass');
  }, 700_000);

  test('with the network off, the app loads from the service worker and the playground runs', async () => {
    await page.goto(`${app.origin}/#/playground`);
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await page.reload();
    await page.getByTestId('playground').waitFor();
    await context.setOffline(true);
    try {
      await page.reload();
      await page.getByTestId('playground').waitFor({ timeout: 30_000 });
      await page
        .getByTestId('pg-actual')
        .fill("SELECT count(*) AS cancelled_orders FROM orders WHERE status = 'cancelled'");
      try {
        await expect.poll(() => text('verdict'), { timeout: 90_000 }).toBe('pass');
      } catch (thrown) {
        // Failed once in a full CI run ('fail' for 90 s) and not since, alone or beside three other browser files:
        // the page's text (the verdict's reasons) goes to the log, so the next failure says why.
        console.log(`the playground offline:\n${(await page.getByTestId('playground').innerText()).slice(0, 3000)}`);
        throw thrown;
      }
    } finally {
      await context.setOffline(false);
    }
  }, 120_000);

  test('no request left the origin and the page raised no error', () => {
    expect(foreign).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
