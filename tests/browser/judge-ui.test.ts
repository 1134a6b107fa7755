/**
 * The AI judge in the playground (production build, Chromium): configured
 * against a local OpenAI-compatible server with a recorded answer that
 * disagrees, a failing comparison shows the advisory verdict and the
 * consistency warning while the deterministic verdict stays "fail". Nothing
 * goes anywhere but the page's origin and the configured endpoint; the key
 * reaches localStorage only when "remember" is ticked. The same server speaks
 * Anthropic Messages, which the page can use too.
 *
 * The judge is called from the app worker, whose CSP comes from its own
 * response headers: the host here lists the judge origin in connect-src, as a
 * deployment using a judge must.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { ANSWER_DISAGREES_PASS, PROTOCOLS } from '../judge/recorded.ts';
import { startJudgeServer, type JudgeServer } from '../judge/server.ts';
import { launchChromium, openPage, serveWithJudges, type ServedApp, BROWSER_TEST_MS } from './harness.ts';

// Each test starts the production app in Chromium beside the engine tests' workers: minutes, not seconds, on a busy
// CI machine (the suite's 60 s default is for the unit tests).
vi.setConfig({ testTimeout: BROWSER_TEST_MS });

const KEY = 'sk-test-judge-ui-7f3a';
const FAILING_SQL = "SELECT count(*) AS n FROM orders WHERE status = 'shipped'";
const openai = PROTOCOLS.find((p) => p.kind === 'openai')!;
const anthropic = PROTOCOLS.find((p) => p.kind === 'anthropic')!;

let judge: JudgeServer;
let app: ServedApp;
let browser: Browser;
let page: Page;
const requests: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  judge = await startJudgeServer();
  // Each protocol answers on its own path.
  judge.respond((request) => ({
    body: (request.path === anthropic.path ? anthropic : openai).wire(JSON.stringify(ANSWER_DISAGREES_PASS)),
  }));
  app = await serveWithJudges(judge.url);
  browser = await launchChromium();
  // Every request of the page and of its workers.
  ({ page } = await openPage(
    browser,
    app.origin,
    { viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' },
    { requests, pageErrors },
  ));
  await page.goto(`${app.origin}/#/playground`);
  await page.getByTestId('playground').waitFor({ timeout: 30_000 });
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await judge?.close();
});

const text = async (id: string) => ((await page.getByTestId(id).first().textContent()) ?? '').trim();
const stored = () => page.evaluate(() => localStorage.getItem('sql-verdict.judge'));

describe('the AI judge in the playground', () => {
  test('configured, it annotates a failing comparison; the verdict stays fail; the key stays in memory', async () => {
    await page.getByTestId('judge-settings').locator('summary').click();
    await page.getByTestId('judge-url').fill(`${judge.url}/v1`);
    await page.getByTestId('judge-model').fill('llama3.1');
    await page.getByTestId('judge-key').fill(KEY);
    await page.getByTestId('judge-enabled').check();
    await page.getByTestId('pg-actual').fill(FAILING_SQL);

    await page.getByTestId('judge-result').waitFor({ timeout: 60_000 });
    await expect.poll(() => text('judge-advisory'), { timeout: 60_000 }).toBe('pass');
    expect(await text('judge-deterministic')).toBe('fail');
    expect(await text('verdict')).toBe('fail');
    expect(await text('judge-inconsistent')).toContain('disagrees');
    expect(await text('review-queue')).toContain('deterministic fail, judge pass');

    expect(judge.requests.length).toBeGreaterThanOrEqual(1);
    const sent = judge.requests.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.body.model).toBe('llama3.1');

    const settings = await stored();
    expect(settings).toContain('llama3.1');
    expect(settings).not.toContain(KEY);
    const origins = new Set(requests.map((u) => new URL(u).origin));
    expect([...origins].sort()).toEqual([app.origin, judge.url].sort());
    expect(pageErrors).toEqual([]);
  });

  test('the key reaches localStorage only when "remember" is ticked, and a reload restores it', async () => {
    await page.getByTestId('judge-remember').check();
    await expect.poll(stored).toContain(KEY);
    await page.reload();
    await page.getByTestId('playground').waitFor({ timeout: 30_000 });
    await page.getByTestId('judge-settings').locator('summary').click();
    expect(await page.getByTestId('judge-key').inputValue()).toBe(KEY);
    await page.getByTestId('judge-remember').uncheck();
    await expect.poll(stored).not.toContain(KEY);
    expect(await stored()).toContain('llama3.1');
  });
  test('the Anthropic Messages protocol works from the browser too', async () => {
    const before = judge.requests.length;
    await page.getByTestId('judge-kind').selectOption('anthropic');
    await page.getByTestId('judge-url').fill(judge.url);
    await page.getByTestId('judge-url').dispatchEvent('change');
    await page.getByTestId('judge-model').fill('claude-3-5-haiku-latest');
    await page.getByTestId('judge-model').dispatchEvent('change');
    // A new comparison (another candidate) asks the judge again.
    await page.getByTestId('pg-actual').fill(`${FAILING_SQL} AND 1 = 1`);
    await expect.poll(() => judge.requests.length, { timeout: 60_000 }).toBeGreaterThan(before);
    const sent = judge.requests.at(-1)!;
    expect(sent.path).toBe(anthropic.path);
    expect(sent.headers['x-api-key']).toBe(KEY);
    expect(sent.headers['anthropic-dangerous-direct-browser-access']).toBe('true');
    expect(sent.body.model).toBe('claude-3-5-haiku-latest');
    await expect.poll(() => text('judge-advisory'), { timeout: 60_000 }).toBe('pass');
    expect(await text('verdict')).toBe('fail');
    expect(pageErrors).toEqual([]);
  });
});
