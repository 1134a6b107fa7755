/**
 * A whole corpus run in the app (production build, Chromium), against a local
 * judge server speaking the OpenAI-compatible protocol:
 * - a reload mid-run resumes from the cases already graded (they are kept,
 *   not graded again) and ends with the CLI's counts; Cancel stops a run and
 *   keeps what was graded;
 * - with the judge on and review mode ticked, the run pauses at each flagged
 *   case (the judge calls one ambiguous and disagrees on another) until a
 *   decision is recorded; the results show the advisory verdicts, the
 *   agreement matrix and the review queue, equal to the CLI's `run --judge`
 *   for the same inputs and answers, with every deterministic verdict intact;
 * - a judge endpoint that refuses CORS gives a clear message, and the
 *   verdict stands;
 * - nothing goes anywhere but the page's origin and the configured endpoint.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { RunReport } from '../../src/core/run/grade-run.ts';
import { ANSWER_DISAGREES_PASS, ANSWER_MISSING_FILTER, PROTOCOLS } from '../judge/recorded.ts';
import { startJudgeServer, type JudgeServer } from '../judge/server.ts';
import { launchChromium, openPage, runCli, serveWithJudges, type ServedApp, BROWSER_TEST_MS } from './harness.ts';

// Each test starts the production app in Chromium beside the engine tests' workers: minutes, not seconds, on a busy
// CI machine (the suite's 60 s default is for the unit tests).
vi.setConfig({ testTimeout: BROWSER_TEST_MS });

const DEMO_RUN = 'src/ui/assets/demo-flawed.run.json';
const NET_REVENUE_2024 = 'What was net revenue in calendar year 2024?';
const ORDERS_BY_CHANNEL = 'How many orders came through each sales channel?';
const openai = PROTOCOLS.find((p) => p.kind === 'openai')!;

// Recorded answers that agree with the deterministic verdict stated in the prompt, except on two questions.
const PASS = { ...ANSWER_DISAGREES_PASS, ambiguous_case: false, confidence: 0.9 };
const FAIL = { ...ANSWER_MISSING_FILTER, suggested_sql: null };
function answerFor(body: unknown) {
  const prompt = JSON.stringify(body);
  if (prompt.includes(NET_REVENUE_2024)) return PASS;
  const agreeing = prompt.includes('deterministic_verdict: pass') ? PASS : FAIL;
  return prompt.includes(ORDERS_BY_CHANNEL) ? { ...agreeing, ambiguous_case: true } : agreeing;
}

let judge: JudgeServer;
let noCors: JudgeServer;
let app: ServedApp;
let browser: Browser;
let page: Page;
let cli: RunReport;
const requests: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  judge = await startJudgeServer();
  judge.respond((request) => ({ body: openai.wire(JSON.stringify(answerFor(request.body))) }));
  noCors = await startJudgeServer({ cors: false });
  noCors.respond((request) => ({ body: openai.wire(JSON.stringify(answerFor(request.body))) }));
  const env = {
    ...process.env,
    SQL_VERDICT_JUDGE_PROVIDER: 'openai',
    SQL_VERDICT_JUDGE_URL: `${judge.url}/v1`,
    SQL_VERDICT_JUDGE_MODEL: 'llama3.1',
  };
  // Asynchronously: the judge server answering the CLI lives in this process.
  // Exit status 1: the run has failures (that is the point of the demo run). It grades while the browser starts.
  const graded = runCli(['run', '--corpus', 'execution_goldens', '--run', DEMO_RUN, '--judge', '--json'], {
    env,
    expectExit: [1],
  });
  [app, browser] = await Promise.all([serveWithJudges(judge.url, noCors.url), launchChromium()]);
  // Every request of the page and of its workers.
  ({ page } = await openPage(
    browser,
    app.origin,
    { viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' },
    { requests, pageErrors },
  ));
  await page.goto(`${app.origin}/`);
  await page.getByTestId('home').waitFor({ timeout: 30_000 });
  cli = JSON.parse((await graded).stdout) as RunReport;
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await judge?.close();
  await noCors?.close();
});

const text = async (id: string) => ((await page.getByTestId(id).first().textContent()) ?? '').trim();
const status = () => text('run-status');
// Several cases are in flight at once, so the case shown in progress runs ahead of the graded ones:
// tests wait for graded cases, not for a started one.
const gradedSoFar = async () =>
  (await page.getByTestId('graded-so-far').count())
    ? Number(/\((\d+) of 64\)/.exec(await text('graded-so-far'))?.[1] ?? 0)
    : 0;

describe('a corpus run in the app', () => {
  test('a reload mid-run resumes from the graded cases and ends with the CLI counts', async () => {
    await page.getByTestId('run-demo').click();
    await page.getByTestId('progress').waitFor({ timeout: 60_000 });
    // The demo's 10th case is a runaway query that holds the run for its 5 s budget: interrupted then, the 9
    // cases before it are graded, and saved within a second although no case finishes meanwhile.
    await expect.poll(gradedSoFar, { timeout: 180_000, interval: 100 }).toBeGreaterThanOrEqual(5);
    await page.waitForTimeout(1200);
    await page.reload();
    await expect.poll(status, { timeout: 300_000 }).toBe('done');
    const kept = await text('kept-on-resume');
    expect(Number(/Resumed: (\d+) cases/.exec(kept)?.[1])).toBeGreaterThanOrEqual(5);
    expect(await text('accuracy-counts')).toBe(
      `${cli.summary.answer_accuracy.correct} / ${cli.summary.answer_accuracy.total} correct`,
    );
    expect(await page.getByTestId('judge-summary').count()).toBe(0);
  }, 600_000);

  test('Cancel stops a corpus run at once; the cases graded so far are kept', async () => {
    await page.goto(`${app.origin}/#/`);
    await page.getByTestId('run-demo').click();
    await page.getByTestId('progress').waitFor({ timeout: 60_000 });
    await expect.poll(gradedSoFar, { timeout: 180_000, interval: 100 }).toBeGreaterThanOrEqual(3);
    const before = await gradedSoFar();
    await page.getByTestId('cancel-run').click();
    await expect.poll(status, { timeout: 30_000 }).toBe('cancelled');
    expect(await text('run-error')).toMatch(/cancelled after \d+ of 64 cases/);
    const graded = await gradedSoFar();
    expect(graded).toBeGreaterThanOrEqual(before);
    expect(graded).toBeLessThan(64);
    expect(await page.getByTestId('progress').count()).toBe(0);
  }, 300_000);

  test('with the judge and review mode: pauses at flagged cases, then shows advisory verdicts, the agreement matrix and the review queue', async () => {
    await page.goto(`${app.origin}/#/`);
    await page.getByTestId('judge-settings').locator('summary').click();
    await page.getByTestId('judge-url').fill(`${judge.url}/v1`);
    await page.getByTestId('judge-model').fill('llama3.1');
    await page.getByTestId('judge-enabled').check();
    await page.getByTestId('review-mode').check();
    const before = judge.requests.length;
    await page.getByTestId('run-demo').click();
    await page.getByTestId('run-status').waitFor({ timeout: 60_000 });

    const paused: string[] = [];
    for (;;) {
      await expect
        .poll(async () => (await page.getByTestId('review-pause').count()) > 0 || (await status()) !== 'running', {
          timeout: 300_000,
          interval: 250,
        })
        .toBe(true);
      if ((await status()) !== 'running') break;
      const heading = await page.locator('#paused-h .mono').textContent();
      paused.push(heading ?? '');
      if (paused.length === 1) {
        // Paused means paused: no further case starts while the decision is pending.
        const at = await text('progress-case');
        await page.waitForTimeout(2000);
        expect(await text('progress-case')).toBe(at);
        expect(await page.getByTestId('review-pause').count()).toBe(1);
        const review = page.getByTestId('review-pause').getByTestId('review');
        await review.getByLabel('Disagree').check();
        await review.locator('textarea').fill('checked by hand');
        await review.getByRole('button', { name: 'Save review' }).click();
      } else {
        await page.getByTestId('review-skip').click();
      }
      await expect
        .poll(
          async () =>
            (await page.locator('#paused-h .mono').count()) === 0 ||
            (await page.locator('#paused-h .mono').textContent()) !== heading,
          { timeout: 60_000 },
        )
        .toBe(true);
    }
    expect(await status()).toBe('done');
    const flagged = cli.cases.filter((c) => c.review_flags.length).map((c) => c.id);
    expect(flagged).toEqual(expect.arrayContaining(['retail-orders-by-channel', 'retail-net-revenue-2024']));
    expect([...paused].sort()).toEqual([...flagged].sort());

    // Deterministic counts unchanged by the judge; the judge's figures equal the CLI's.
    expect(await text('accuracy-counts')).toBe(
      `${cli.summary.answer_accuracy.correct} / ${cli.summary.answer_accuracy.total} correct`,
    );
    const m = cli.judge_summary!.agreement_matrix;
    expect([await text('m-pp'), await text('m-pf'), await text('m-fp'), await text('m-ff')]).toEqual(
      [
        m.deterministic_pass.ai_pass,
        m.deterministic_pass.ai_fail,
        m.deterministic_fail.ai_pass,
        m.deterministic_fail.ai_fail,
      ].map(String),
    );
    expect(cli.judge_summary!.review_queue).toEqual(['retail-net-revenue-2024']);
    expect(await text('judge-review-queue')).toContain('retail-net-revenue-2024');
    expect(await page.getByTestId('advisory-verdicts').locator('tbody tr').count()).toBe(
      cli.judge_summary!.judged + cli.judge_summary!.errors,
    );
    expect(judge.requests.length - before).toBe(cli.judge_summary!.usage.requests);
    // The decision recorded during the pause sits next to the verdict.
    expect(await text('flagged-cases')).toMatch(new RegExp(`${paused[0]}.*reviewed: disagree`));
    const disputed = page.getByRole('link', { name: 'retail-net-revenue-2024' }).first();
    await disputed.click();
    await page.getByTestId('judge-result').waitFor({ timeout: 30_000 });
    expect(await text('judge-deterministic')).toBe('fail');
    expect(await text('judge-advisory')).toBe('pass');
    expect(await text('case-outcome')).toBe('wrong');
  }, 600_000);

  test('a judge endpoint without CORS gives a clear message; the verdict stands', async () => {
    await page.goto(`${app.origin}/#/playground`);
    await page.getByTestId('playground').waitFor({ timeout: 30_000 });
    await page.getByTestId('judge-settings').locator('summary').click();
    await page.getByTestId('judge-url').fill(`${noCors.url}/v1`);
    await page.getByTestId('judge-url').dispatchEvent('change');
    await page.getByTestId('pg-actual').fill("SELECT count(*) AS n FROM orders WHERE status = 'shipped'");
    await page.getByTestId('judge-error').waitFor({ timeout: 90_000 });
    expect(await text('judge-error')).toMatch(/CORS/);
    expect(await text('verdict')).toBe('fail');
  }, 180_000);

  test('no request went anywhere but the page and the configured endpoints; no page error', () => {
    const origins = new Set(requests.map((u) => new URL(u).origin));
    expect([...origins].sort()).toEqual([app.origin, judge.url, noCors.url].sort());
    expect(pageErrors).toEqual([]);
  });
});
