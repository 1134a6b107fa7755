/**
 * The production build in Chromium: the page loads under its CSP, runs SQL in
 * the app worker on an uploaded SQLite file and an uploaded DuckDB dump, stops
 * runaway queries (Cancel button and timeout) and never talks to another origin.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../vite.config.ts';
import { duckDbTestFile } from '../helpers/duckdb-file.ts';
import { repoRoot, spiderDatabase } from '../helpers/paths.ts';
import {
  launchChromium,
  serveBuiltApp,
  serveStatic,
  type ServedApp,
  BROWSER_WAIT_MS,
  BROWSER_TEST_MS,
} from './harness.ts';

// Each test starts the production app in Chromium beside the engine tests' workers: minutes, not seconds, on a busy
// CI machine (the suite's 60 s default is for the unit tests).
vi.setConfig({ testTimeout: BROWSER_TEST_MS });

const CONCERT_SINGER = spiderDatabase('concert_singer');
const DUCKDB_DUMP = path.join(repoRoot, 'tests/fixtures/payments.duckdb.sql');
// Committed screenshots change only on purpose: UPDATE_SCREENSHOTS=1 npm test.
const SCREENSHOT = process.env.UPDATE_SCREENSHOTS
  ? path.join(repoRoot, 'docs/screenshots/query.png')
  : path.join(repoRoot, 'test-results/query.png');
const RUNAWAY = 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT count(*) FROM r';

/** Spider's concert_singer, from the subset shipped in tests/fixtures/spider. */
async function concertSingerBytes(): Promise<Buffer> {
  return readFileSync(CONCERT_SINGER);
}

const scratch = mkdtempSync(path.join(tmpdir(), 'sql-verdict-browser-'));
let app: ServedApp;
let browser: Browser;
let page: Page;
const requests: string[] = [];
const pageErrors: string[] = [];
let documentCsp: string | undefined;
const workerScriptCsp = new Map<string, string | undefined>();

beforeAll(async () => {
  app = await serveBuiltApp();
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(BROWSER_WAIT_MS);
  // Every request of the page and of its workers (nested ones included).
  context.on('request', (request) => requests.push(request.url()));
  context.on('response', (response) => {
    const url = response.url();
    if (url.endsWith('.worker.js') || /\.worker-[\w-]+\.js$/.test(url))
      workerScriptCsp.set(url, response.headers()['content-security-policy']);
  });
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('websocket', (ws) => requests.push(ws.url()));
  const response = await page.goto(`${app.origin}/#/query`);
  documentCsp = response?.headers()['content-security-policy'];
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function runCount(): Promise<number> {
  const result = page.getByTestId('run-result');
  return (await result.count()) ? Number(await result.getAttribute('data-run')) : 0;
}

/** Type SQL, start it, and return a promise of its finished result element. */
async function startRun(sql: string, how: 'click' | 'keyboard' = 'click') {
  const next = (await runCount()) + 1;
  await page.getByTestId('sql').fill(sql);
  if (how === 'click') await page.getByTestId('run').click();
  else await page.getByTestId('sql').press('Control+Enter');
  const result = page.locator(`[data-testid=run-result][data-run="${next}"]`);
  return { result, done: () => result.waitFor({ timeout: 30_000 }) };
}

async function run(sql: string, how: 'click' | 'keyboard' = 'click') {
  const started = await startRun(sql, how);
  await started.done();
  return started.result;
}

async function rows(): Promise<string[][]> {
  const trs = page.locator('[data-testid=result-table] tbody tr');
  const out: string[][] = [];
  for (let i = 0; i < (await trs.count()); i++) out.push(await trs.nth(i).locator('td').allTextContents());
  return out;
}

async function columnTypes(): Promise<string[]> {
  return page.getByTestId('column-type').allTextContents();
}

async function waitReady(engine: 'duckdb' | 'sqlite') {
  await page.locator(`[data-testid=fixture-summary][data-engine=${engine}]`).waitFor({ timeout: 60_000 });
  await expect.poll(() => page.getByTestId('status').textContent()).toMatch(/^Ready/);
}

async function upload(name: string, buffer: Buffer) {
  await page.getByTestId('fixture-input').setInputFiles({ name, mimeType: 'application/octet-stream', buffer });
  await expect.poll(() => page.getByTestId('fixture-name').textContent()).toBe(name);
}

/** The main thread answers quickly while a query runs in the workers. */
async function expectResponsive() {
  const started = Date.now();
  await page.evaluate(() => document.title);
  await page.getByTestId('timeout').focus();
  expect(Date.now() - started).toBeLessThan(1000);
}

async function setTimeoutSeconds(seconds: number) {
  await page.getByTestId('timeout').fill(String(seconds));
}

describe('the built app in Chromium', () => {
  test('loads under the Content-Security-Policy and runs the demo fixture on DuckDB', async () => {
    expect(documentCsp).toBe(CONTENT_SECURITY_POLICY);
    expect(await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')).toBe(
      CONTENT_SECURITY_POLICY,
    );
    expect(readFileSync(path.join(repoRoot, 'dist/_headers'), 'utf8')).toContain(
      `Content-Security-Policy: ${CONTENT_SECURITY_POLICY}`,
    );
    // The policy is enforced, not only sent: the page cannot reach another origin.
    const blocked = await page.evaluate(async () => {
      const violations: string[] = [];
      document.addEventListener('securitypolicyviolation', (e) => violations.push(e.violatedDirective));
      const reached = await fetch('http://127.0.0.2:9/').then(
        () => true,
        () => false,
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      // One report per policy: the header's and the <meta> tag's.
      return { reached, violations: [...new Set(violations)] };
    });
    expect(blocked).toEqual({ reached: false, violations: ['connect-src'] });
    await waitReady('duckdb');
    // The engine host and DuckDB's own worker were served with the policy too.
    expect(workerScriptCsp.size).toBeGreaterThanOrEqual(3);
    for (const [url, csp] of workerScriptCsp) expect(csp, url).toBe(CONTENT_SECURITY_POLICY);
    expect(await page.getByTestId('fixture-summary').textContent()).toMatch(/DuckDB v1\.4\.3/);
    await run('SELECT 12.50 AS price, 9007199254740993 AS big, NULL AS nothing', 'keyboard');
    expect(await rows()).toEqual([['12.50', '9007199254740993', 'NULL']]);
  });

  test('runs a query in the worker on an uploaded SQLite file', async () => {
    await upload('concert_singer.sqlite', await concertSingerBytes());
    await waitReady('sqlite');
    await expect.poll(() => page.locator('.only').textContent()).toMatch(/SQLite/);
    const result = await run('SELECT Name, Age, Is_male FROM singer ORDER BY Singer_ID LIMIT 3');
    expect(await result.getAttribute('data-ok')).toBe('true');
    expect(await page.getByTestId('column-name').allTextContents()).toEqual(['Name', 'Age', 'Is_male']);
    expect(await columnTypes()).toEqual(['TEXT · text', 'INTEGER · integer', 'TEXT · text']);
    expect(await rows()).toEqual([
      ['Joe Sharp', '52', 'F'],
      ['Timbaland', '32', 'T'],
      ['Justin Brown', '29', 'T'],
    ]);
    expect(await page.getByTestId('timing').textContent()).toMatch(
      /3 rows · 3 columns · [\d.]+ m?s in SQLite · [\d.]+ m?s round trip/,
    );
  });

  test('SQLite: the timeout stops a runaway query, the page stays responsive, the next query succeeds', async () => {
    await setTimeoutSeconds(1);
    const started = Date.now();
    const runaway = await startRun(RUNAWAY);
    await expectResponsive();
    await runaway.done();
    expect(Date.now() - started).toBeLessThan(1000 + 2000);
    expect(await page.getByTestId('error-code').textContent()).toBe('sandbox.timeout');
    expect(await page.getByTestId('error-category').textContent()).toBe('timeout');
    await setTimeoutSeconds(5);
    // sql.js cannot be interrupted: its worker was replaced and the fixture reloaded.
    await run('SELECT count(*) AS n FROM singer');
    expect(await rows()).toEqual([['6']]);
  });

  test('SQLite: the Cancel button stops a runaway query', async () => {
    const runaway = await startRun(RUNAWAY);
    await page.getByTestId('cancel').waitFor();
    await page.waitForTimeout(300);
    const started = Date.now();
    await page.getByTestId('cancel').click();
    await runaway.done();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await page.getByTestId('error-code').textContent()).toBe('run.cancelled');
    await run('SELECT max(Age) AS oldest FROM singer');
    expect(await rows()).toEqual([['52']]);
  });

  test('runs a query on an uploaded DuckDB SQL dump with exact values', async () => {
    await upload('payments.duckdb.sql', readFileSync(DUCKDB_DUMP));
    // A .sql dump loads on any of the three engines: the selector offers DuckDB, SQLite and PGlite.
    await expect.poll(() => page.locator('fieldset.engines input[type=radio]').count()).toBe(3);
    await page.getByLabel('DuckDB').check();
    await waitReady('duckdb');
    await run('SELECT id, payer, amount, paid_at, big, tags FROM payments ORDER BY id');
    expect(await columnTypes()).toEqual([
      'INTEGER · integer',
      'VARCHAR · text',
      'DECIMAL(12,2) · decimal',
      'TIMESTAMP · timestamp',
      'BIGINT · integer',
      'VARCHAR[] · list',
    ]);
    expect(await rows()).toEqual([
      ['1', 'Payer A', '12.50', '2025-01-31 23:59:59.123456', '9007199254740993', '[card, eu]'],
      ['2', 'Payer Ø', '0.10', '2025-02-01 00:00:00', '-1', '[]'],
      ['3', 'Payer <b>C</b>', '1000000.01', '2025-02-28 12:30:00.5', 'NULL', 'NULL'],
    ]);
    // Untrusted text is text: the markup in a cell did not become an element.
    expect(await page.locator('[data-testid=result-table] b').count()).toBe(0);
    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    // A fresh database per fixture: the demo's tables are gone.
    await run('SELECT count(*) FROM customers');
    expect(await page.getByTestId('error-category').textContent()).toBe('missing_table');
  });

  test('DuckDB: the Cancel button stops a runaway query and the engine carries on', async () => {
    const runaway = await startRun(RUNAWAY);
    await page.getByTestId('cancel').waitFor();
    await expectResponsive();
    await page.waitForTimeout(300);
    const started = Date.now();
    await page.getByTestId('cancel').click();
    await runaway.done();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await page.getByTestId('error-code').textContent()).toBe('run.cancelled');
    expect(await page.getByTestId('run-result').textContent()).not.toMatch(/restarted/);
    await run('SELECT sum(amount) AS total FROM payments');
    expect(await rows()).toEqual([['1000012.61']]);
  });

  test('DuckDB: the timeout stops a runaway query', async () => {
    await setTimeoutSeconds(1.5);
    const started = Date.now();
    const runaway = await startRun(RUNAWAY);
    await expectResponsive();
    await runaway.done();
    expect(Date.now() - started).toBeLessThan(1500 + 2000);
    expect(await page.getByTestId('error-code').textContent()).toBe('sandbox.timeout');
    await setTimeoutSeconds(5);
    await run('SELECT count(*) AS n FROM payments');
    expect(await rows()).toEqual([['3']]);
  });

  test('rejects writes and SQL-driven network access; shows precise errors for bad files', async () => {
    await run('DROP TABLE payments');
    expect(await page.getByTestId('error-code').textContent()).toBe('sandbox.statement_rejected');
    await run("SELECT * FROM read_text('http://example.com/')");
    expect(await page.getByTestId('run-result').getAttribute('data-ok')).toBe('false');
    await run('SELECT count(*) FROM payments');
    expect(await rows()).toEqual([['3']]);

    await page
      .getByTestId('fixture-input')
      .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await expect
      .poll(() => page.getByTestId('error-message').first().textContent())
      .toMatch(/notes\.txt: unrecognised fixture format/);
    await page.getByTestId('fixture-input').setInputFiles({
      name: 'fake.sqlite',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from('not a database at all'),
    });
    await expect
      .poll(() => page.getByTestId('error-message').first().textContent())
      .toMatch(/fake\.sqlite is named like a SQLite database but its content is not one/);
  });

  test('loads a DuckDB database file, and CSV + Parquet files as one fixture', async () => {
    // entries (id INTEGER, amount DECIMAL(18,4), booked DATE): (1, 0.0001, 2025-12-31), (2, -12345678901234.5678, 1999-01-01)
    const dbFile = duckDbTestFile('ledger.duckdb');
    await upload('ledger.duckdb', readFileSync(dbFile));
    await waitReady('duckdb');
    await run('SELECT amount, booked FROM entries ORDER BY id');
    expect(await columnTypes()).toEqual(['DECIMAL(18,4) · decimal', 'DATE · date']);
    expect(await rows()).toEqual([
      ['0.0001', '2025-12-31'],
      ['-12345678901234.5678', '1999-01-01'],
    ]);

    const parquet = Buffer.from(
      parquetWriteBuffer({
        columnData: [
          { name: 'sku', data: ['A-1', 'B-2'], type: 'STRING' },
          { name: 'qty', data: [3, 4], type: 'INT32' },
        ],
      }),
    );
    await page.getByTestId('fixture-input').setInputFiles([
      { name: 'stock.parquet', mimeType: 'application/octet-stream', buffer: parquet },
      { name: 'prices.csv', mimeType: 'text/csv', buffer: Buffer.from('sku,price\nA-1,9.99\nB-2,0.50\n') },
    ]);
    await expect.poll(() => page.getByTestId('fixture-name').textContent()).toBe('2 files');
    await waitReady('duckdb');
    await run('SELECT s.sku, s.qty, p.price FROM stock s JOIN prices p USING (sku) ORDER BY s.sku');
    expect(await rows()).toEqual([
      ['A-1', '3', '9.99'],
      ['B-2', '4', '0.5'],
    ]);
  });

  test('works from a sub-path of a plain static host', async () => {
    const prefix = '/team/sql-verdict/';
    const host = await serveStatic('dist', prefix, { 'Content-Security-Policy': CONTENT_SECURITY_POLICY });
    const other = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    other.setDefaultTimeout(BROWSER_WAIT_MS);
    const hostRequests: string[] = [];
    other.on('request', (request) => hostRequests.push(request.url()));
    try {
      await other.goto(`${host.origin}${prefix}?engine=sqlite#/query`);
      await other.locator('[data-testid=fixture-summary][data-engine=sqlite]').waitFor({ timeout: 60_000 });
      await other.getByTestId('sql').fill('SELECT sum(amount) AS revenue FROM orders');
      await other.getByTestId('run').click();
      await other.getByTestId('run-result').waitFor();
      // SQLite has no DECIMAL: the sum of REAL values is a float.
      expect(await other.locator('[data-testid=result-table] tbody td').allTextContents()).toEqual(['342.49']);
      expect(hostRequests.filter((url) => !url.startsWith(`${host.origin}${prefix}`))).toEqual([]);
    } finally {
      await other.close();
      await host.close();
    }
  });

  test('made no request to any other origin', () => {
    expect(requests.length).toBeGreaterThan(5);
    const foreign = requests.filter((url) => !url.startsWith(`${app.origin}/`));
    expect(foreign).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
