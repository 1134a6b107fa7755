/**
 * Schema-agnostic scoring of one query on the Monitor view (production build,
 * Chromium), with and without the AI judge. Without it, the page's score is
 * the CLI's `stef --json` for the same input; with the judge configured
 * through the settings panel against a local OpenAI-compatible server, the
 * semantic verdict and confidence are the judge's and Φ equals the CLI's
 * `stef --judge --json` against the same server; a malformed answer falls
 * back to the rules with the judge error shown. Nothing goes anywhere but
 * the page's origin and the judge server.
 *
 * The CLI runs asynchronously (runCli): the judge server lives in this
 * process and must keep answering while the CLI waits for it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { StefReport } from '../../src/core/stef/index.ts';
import { STEF_JUDGE_SYSTEM } from '../../src/core/stef/index.ts';
import { repoRoot } from '../helpers/paths.ts';
import { PROTOCOLS } from '../judge/recorded.ts';
import { startJudgeServer, type JudgeServer } from '../judge/server.ts';
import { launchChromium, openPage, runCli, serveWithJudges, type ServedApp, BROWSER_TEST_MS } from './harness.ts';

// Each test starts the production app in Chromium beside the engine tests' workers: minutes, not seconds, on a busy
// CI machine (the suite's 60 s default is for the unit tests).
vi.setConfig({ testTimeout: BROWSER_TEST_MS });

const openai = PROTOCOLS.find((p) => p.kind === 'openai')!;

const MODEL = 'llama3.1';
const QUESTION = 'How many orders were cancelled in 2025?';
const ENRICHED = 'Number of cancelled orders in calendar year 2025';
const SQL =
  "SELECT count(*) FROM orders WHERE status = 'cancelled' AND order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01' AND tenant_id = 7";
const RULES_FILE = 'fixtures/stef/r_app.json';
const JUDGE_SAYS = {
  verdict: 'incorrect',
  confidence: 0.9,
  rationale: 'Counts orders cancelled in 2025, but the recorded judge insists the tenant filter is wrong.',
};
const MALFORMED = 'I would say it is probably fine, but I cannot answer in JSON.';

let judge: JudgeServer;
let app: ServedApp;
let browser: Browser;
let page: Page;
/** What the judge server answers now (the page and the CLI both ask it). */
let answer = JSON.stringify(JUDGE_SAYS);
const requests: string[] = [];
const pageErrors: string[] = [];

/** `sql-verdict stef … --json` for the test input, optionally with the judge from the environment. */
async function cli(withJudge: boolean): Promise<StefReport> {
  const args = [
    'stef',
    '--question',
    QUESTION,
    '--enriched',
    ENRICHED,
    '--sql',
    SQL,
    '--rules',
    RULES_FILE,
    '--dialect',
    'duckdb',
    '--json',
  ];
  const env = {
    ...process.env,
    SQL_VERDICT_JUDGE_PROVIDER: 'openai',
    SQL_VERDICT_JUDGE_URL: `${judge.url}/v1`,
    SQL_VERDICT_JUDGE_MODEL: MODEL,
  };
  const { stdout } = await runCli(withJudge ? [...args, '--judge'] : args, { env, expectExit: [0] });
  return JSON.parse(stdout) as StefReport;
}

/** What the page shows of the one-query score, once it is not scoring. */
async function shown() {
  const panel = page.getByTestId('stef-one');
  if (
    (await panel.getByTestId('stef-status').getAttribute('data-state')) !== 'idle' ||
    !(await panel.getByTestId('stef-phi').count())
  )
    return null;
  const text = async (id: string) => ((await panel.getByTestId(id).textContent()) ?? '').trim();
  return {
    phi: Number(await panel.getByTestId('stef-phi').getAttribute('data-value')),
    label: await text('stef-label'),
    score: Number(await text('stef-verdict-score')),
    confidence: Number(await panel.getByTestId('stef-confidence').getAttribute('data-value')),
    source: await text('stef-source'),
    filterStatus: await text('stef-filter-status'),
    filterScore: Number(await text('stef-filter-score')),
    gamma: Number(await text('stef-gamma')),
    judgeError: (await panel.getByTestId('stef-judge-error').count()) ? await text('stef-judge-error') : null,
  };
}

function expected(r: StefReport) {
  const v = r.semantic_verdict;
  return {
    phi: r.phi,
    label: v.label,
    score: v.score,
    confidence: v.confidence,
    source: v.source,
    filterStatus: r.filter_alignment.status,
    filterScore: r.filter_alignment.score,
    gamma: r.gamma,
    judgeError: v.judge_error ? `The judge failed, so the rules answered: ${v.judge_error}` : null,
  };
}

beforeAll(async () => {
  judge = await startJudgeServer();
  judge.respond(() => ({ body: openai.wire(answer) }));
  app = await serveWithJudges(judge.url);
  browser = await launchChromium();
  // Every request of the page and of its workers.
  ({ page } = await openPage(
    browser,
    app.origin,
    { viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' },
    { requests, pageErrors },
  ));
  await page.goto(`${app.origin}/#/monitor`);
  await page.getByTestId('stef-one').waitFor({ timeout: 30_000 });
  // The first visit monitors the sample log in a worker; its report renders above this panel and moves it down.
  // On a busy machine that happened between the check that the panel's <summary> was still and the click, which
  // then opened nothing (CI, once): interact once the page has settled.
  await page.getByTestId('log-queries').waitFor();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await judge?.close();
});

describe('one-query schema-agnostic score on the Monitor view', () => {
  test('without the judge, the score is the CLI’s (rules), evidence included', async () => {
    const rules = cli(false);
    await page.getByTestId('stef-question').fill(QUESTION);
    await page.getByTestId('stef-enriched').fill(ENRICHED);
    await page.getByTestId('stef-sql').fill(SQL);
    await page.getByTestId('stef-one').locator('summary').click();
    await page.getByTestId('stef-sample-rules').click();
    // The page's sample R_app is the file the CLI reads.
    expect(JSON.parse(await page.getByTestId('stef-rules').inputValue())).toEqual(
      JSON.parse(readFileSync(path.join(repoRoot, RULES_FILE), 'utf8')),
    );
    await page.getByTestId('stef-score').click();

    const report = await rules;
    expect(report.semantic_verdict.source).toBe('rules');
    expect(report.filter_alignment.leniency).toBe(1); // tenant_id = 7 is benign by the sample R_app
    await expect.poll(shown, { timeout: 60_000 }).toEqual(expected(report));
    const matches = page.getByTestId('stef-match');
    expect(await matches.count()).toBe(report.filter_alignment.matches.length);
    for (const [i, m] of report.filter_alignment.matches.entries()) {
      const row = (await matches.nth(i).textContent()) ?? '';
      expect(row).toContain(m.question_filter);
      expect(row).toContain(m.result);
    }
    expect(await page.getByTestId('stef-extra').count()).toBe(report.filter_alignment.extras.length);
    expect(await page.getByTestId('stef-extra').first().textContent()).toContain('tenant_id = 7');
    expect(await page.getByTestId('stef-rationale').textContent()).toContain(report.semantic_verdict.rationale);
    expect(judge.requests).toHaveLength(0);
  });

  test('with the judge configured, its verdict and confidence give Φ, as the CLI’s --judge', async () => {
    answer = JSON.stringify(JUDGE_SAYS);
    await page.getByTestId('judge-settings').locator('summary').click();
    await page.getByTestId('judge-url').fill(`${judge.url}/v1`);
    await page.getByTestId('judge-model').fill(MODEL);
    await page.getByTestId('judge-enabled').check();

    await expect.poll(async () => (await shown())?.source, { timeout: 60_000 }).toBe('judge');
    const sent = judge.requests.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.body.model).toBe(MODEL);
    const messages = sent.body.messages as Array<{ role: string; content: string }>;
    expect(messages.find((m) => m.role === 'system')?.content).toBe(STEF_JUDGE_SYSTEM);
    expect(messages.find((m) => m.role === 'user')?.content).toContain(`User question (Q_u): ${QUESTION}`);
    const pageAsked = judge.requests.length;

    const report = await cli(true);
    expect(judge.requests.length).toBe(pageAsked + 1);
    expect(report.semantic_verdict).toMatchObject({
      source: 'judge',
      label: 'incorrect',
      confidence: 0.9,
      rationale: JUDGE_SAYS.rationale,
    });
    expect(await shown()).toEqual(expected(report));
    expect((await shown())!.label).toBe('incorrect');
    expect((await shown())!.confidence).toBe(0.9);
    expect(await page.getByTestId('stef-confidence').textContent()).toBe('0.90');
    expect(await page.getByTestId('stef-source').locator('..').textContent()).toContain(`judge (${MODEL})`);
    expect(await page.getByTestId('stef-rationale').textContent()).toContain(JUDGE_SAYS.rationale);
    // B = 5 (filters) + 0 (incorrect) + 1 (benign extra) at Γ 1.0: the judge moved Φ from the rules' 100.
    expect(report.phi).toBe(60);
  });

  test('a malformed judge answer: the rules answer and the judge error is shown; a bad R_app field is named', async () => {
    answer = MALFORMED;
    const before = judge.requests.length;
    await page.getByTestId('stef-score').click();
    await expect
      .poll(async () => (await shown())?.judgeError ?? null, { timeout: 60_000 })
      .toContain('judge.invalid_answer');
    expect(judge.requests.length).toBe(before + 1);

    const report = await cli(true);
    expect(report.semantic_verdict.source).toBe('rules');
    expect(report.semantic_verdict.judge_error).toContain('judge.invalid_answer');
    expect(await shown()).toEqual(expected(report));
    expect((await shown())!.source).toBe('rules');

    // A bad R_app field is named, and nothing is sent to the judge.
    const asked = judge.requests.length;
    await page.getByTestId('stef-rules').fill('{"benign_filters": [{"column": ""}]}');
    await expect
      .poll(
        async () =>
          (await page.getByTestId('stef-error').count()) ? await page.getByTestId('stef-error').textContent() : '',
        { timeout: 30_000 },
      )
      .toBe('rules: R_app benign_filters[0].column: must be a non-empty string.');
    expect(await page.getByTestId('stef-result').count()).toBe(0);
    expect(judge.requests.length).toBe(asked);

    const origins = new Set(requests.map((u) => new URL(u).origin));
    expect([...origins].sort()).toEqual([app.origin, judge.url].sort());
    expect(pageErrors).toEqual([]);
  });
});
