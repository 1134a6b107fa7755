/**
 * The Monitor view against the production build in Chromium: the sample log's
 * three agent versions show mean Φ, P90 and coverage equal to the CLI's
 * `stef --log … --json`; a bad uploaded log names its line and field.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { MonitorReport } from '../../src/core/stef/index.ts';
import { repoRoot } from '../helpers/paths.ts';
import { launchChromium, runCli, serveBuiltApp, type ServedApp, BROWSER_WAIT_MS, BROWSER_TEST_MS } from './harness.ts';

// Each test starts the production app in Chromium beside the engine tests' workers: minutes, not seconds, on a busy
// CI machine (the suite's 60 s default is for the unit tests).
vi.setConfig({ testTimeout: BROWSER_TEST_MS });

let app: ServedApp;
let browser: Browser;
let page: Page;
let cli: MonitorReport;
const pageErrors: string[] = [];

beforeAll(async () => {
  const r = runCli(['stef', '--log', 'fixtures/stef/production-log.jsonl', '--json'], { expectExit: [0] });
  [app, browser] = await Promise.all([serveBuiltApp(), launchChromium()]);
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(BROWSER_WAIT_MS);
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${app.origin}/#/monitor`);
  cli = JSON.parse((await r).stdout) as MonitorReport;
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('Monitor view in Chromium (production build)', () => {
  test('three agent versions from the sample log match the CLI', async () => {
    await page.getByTestId('agents').waitFor({ timeout: 60_000 });
    expect(cli.agents).toHaveLength(3);
    const rows = page.getByTestId('agent-row');
    expect(await rows.count()).toBe(3);
    for (const a of cli.agents) {
      const row = page.locator(`[data-testid="agent-row"][data-agent="${a.agent_version}"]`);
      const val = async (id: string) => (await row.getByTestId(id).getAttribute('data-value')) ?? '';
      expect(Number(await val('agent-mean'))).toBe(a.mean_phi);
      expect(Number(await val('agent-p90'))).toBe(a.p90_phi);
      expect(Number(await val('agent-coverage'))).toBe(a.coverage);
      expect(await row.getByTestId('agent-mean').textContent()).toBe(a.mean_phi!.toFixed(1));
      expect(await row.getByTestId('agent-p90').textContent()).toBe(a.p90_phi!.toFixed(1));
      expect(await row.getByTestId('agent-coverage').textContent()).toBe(
        `${(a.coverage * 100).toFixed(1)}% (${a.evaluated}/${a.queries})`,
      );
    }
    expect(await page.getByTestId('monitor-chart').locator('polyline').count()).toBe(3);
    if (process.env.UPDATE_SCREENSHOTS) {
      // The one-query panel at the bottom is scored in the worker: wait for it so the picture is complete.
      await page.getByTestId('stef-phi').waitFor({ timeout: 60_000 });
      const dir = path.join(repoRoot, 'docs/screenshots');
      mkdirSync(dir, { recursive: true });
      await page.screenshot({ path: path.join(dir, 'monitor.png'), fullPage: true });
    }
  });

  test('a bad uploaded log names its line and field', async () => {
    const bad = [
      '{"timestamp":"2025-06-02T08:00:00Z","agent_version":"a","question":"q","sql":"SELECT 1"}',
      '{"timestamp":"2025-06-02T08:00:00Z","question":"q","sql":"SELECT 1"}',
      'not json',
    ].join('\n');
    await page
      .getByTestId('log-file')
      .setInputFiles({ name: 'bad.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(bad) });
    await expect
      .poll(async () => (await page.getByTestId('log-errors').textContent()) ?? '')
      .toContain('bad.jsonl:2 (agent_version)');
    expect(await page.getByTestId('log-errors').textContent()).toContain('bad.jsonl:3: not valid JSON');
    expect(await page.getByTestId('agents').count()).toBe(0);
    await page.getByTestId('use-sample').click();
    await page.getByTestId('agents').waitFor();
    expect(pageErrors).toEqual([]);
  });
});
