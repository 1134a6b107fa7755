/**
 * The corpus browser (#/corpus) against the production build in Chromium:
 * the built-in corpus's cases and counts equal what the core loader gives in
 * Node for the same file; the fixtures' content digests recomputed in the
 * browser equal their stamps; the self-check passes; the schema description
 * is rendered. An uploaded corpus whose frozen result was tampered with fails
 * the self-check naming the case, and an uploaded fixture whose content
 * differs from the stamp shows MISMATCH.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { loadCorpus } from '../../src/core/corpus/load-corpus.ts';
import { strataCounts, type Corpus } from '../../src/core/corpus/types.ts';
import { hardness } from '../../src/core/structure/hardness.ts';
import { dialectOfEngine } from '../../src/core/structure/grammar.ts';
import { repoRoot } from '../helpers/paths.ts';
import { launchChromium, openPage, runCli, serveBuiltApp, type ServedApp, BROWSER_TEST_MS } from './harness.ts';

// Each test starts the production app in Chromium beside the engine tests' workers: minutes, not seconds, on a busy
// CI machine (the suite's 60 s default is for the unit tests).
vi.setConfig({ testTimeout: BROWSER_TEST_MS });

const SHOTS = process.env.UPDATE_SCREENSHOTS
  ? path.join(repoRoot, 'docs/screenshots')
  : path.join(repoRoot, 'test-results');
const SCRATCH = path.join(repoRoot, 'test-results');
mkdirSync(SHOTS, { recursive: true });
mkdirSync(SCRATCH, { recursive: true });

const GOLDENS_FILE = path.join(repoRoot, 'fixtures/corpora/execution_goldens.yaml');
const BATTERY_FILE = path.join(repoRoot, 'fixtures/corpora/refusal_battery.yaml');
const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'fixtures/fixtures.json'), 'utf8')) as {
  fixtures: Record<string, { content_digest: string }>;
};

const tmp = mkdtempSync(path.join(tmpdir(), 'sql-verdict-corpus-view-'));
let app: ServedApp;
let browser: Browser;
let page: Page;
let goldens: Corpus;
let battery: Corpus;
const goldensBytes = readFileSync(GOLDENS_FILE);
const pageErrors: string[] = [];
const foreign: string[] = [];

async function load(file: string): Promise<Corpus> {
  const result = await loadCorpus(new Uint8Array(readFileSync(file)), { file: path.basename(file) });
  if (!result.ok) throw new Error(`${file} does not load: ${JSON.stringify(result.problems)}`);
  return result.loaded.corpus;
}

/** Counts computed here, straight from the loader's cases (difficulty: stated, else Spider's). */
function countBy(corpus: Corpus, key: (c: Corpus['cases'][number]) => string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of corpus.cases) {
    const k = key(c) ?? 'none';
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}
const difficultyOf = (corpus: Corpus) => (c: Corpus['cases'][number]) => {
  if (c.difficulty) return c.difficulty;
  if (!c.referenceSql) return undefined;
  const h = hardness(c.referenceSql, dialectOfEngine(corpus.engine));
  return h.ok ? h.value.hardness : undefined;
};

beforeAll(async () => {
  goldens = await load(GOLDENS_FILE);
  battery = await load(BATTERY_FILE);
  app = await serveBuiltApp();
  browser = await launchChromium();
  ({ page } = await openPage(browser, app.origin, { viewport: { width: 1280, height: 800 } }, { foreign, pageErrors }));
  await page.goto(`${app.origin}/#/corpus`);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const text = async (testId: string) => ((await page.getByTestId(testId).first().textContent()) ?? '').trim();
const caseRows = () => page.locator('[data-testid=case-table] tbody tr[data-case]');

async function pageCounts(prefix: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const el of await page.locator(`[data-testid^="count-${prefix}-"]`).all()) {
    const id = (await el.getAttribute('data-testid'))!.slice(`count-${prefix}-`.length);
    const n = Number((await el.locator('.n').textContent())?.trim());
    if (n > 0) out[id] = n;
  }
  return out;
}

describe('corpus browser in Chromium (production build)', () => {
  test('the demo corpus: 64 cases, its stamp, and counts equal to the core loader in Node', async () => {
    await page.getByTestId('corpus-view').waitFor();
    await expect.poll(() => text('corpus-name'), { timeout: 30_000 }).toBe('execution_goldens');
    expect(await page.getByRole('link', { name: 'Corpus' }).getAttribute('aria-current')).toBe('page');
    expect(Number(await text('corpus-case-count'))).toBe(64);
    expect(await caseRows().count()).toBe(64);
    expect(await text('corpus-sha256')).toBe(createHash('sha256').update(goldensBytes).digest('hex'));
    expect(await pageCounts('shape')).toEqual(countBy(goldens, (c) => c.shape));
    expect(await pageCounts('difficulty')).toEqual(countBy(goldens, difficultyOf(goldens)));
    expect(await pageCounts('fixture')).toEqual(countBy(goldens, (c) => c.fixture));
    // The first row is the first case of the file, with its question.
    const first = goldens.cases[0]!;
    expect(await caseRows().first().getAttribute('data-case')).toBe(first.id);
    expect(await caseRows().first().textContent()).toContain(first.question);
  });

  test('filters and search narrow the case table; counts filter from the keyboard', async () => {
    const scalar = goldens.cases.filter((c) => c.shape === 'scalar').length;
    await page.getByTestId('count-shape-scalar').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => caseRows().count()).toBe(scalar);
    expect(await page.getByTestId('count-shape-scalar').getAttribute('aria-pressed')).toBe('true');
    expect(await text('case-shown')).toBe(`${scalar} of 64`);
    await page.keyboard.press('Enter');
    await expect.poll(() => caseRows().count()).toBe(64);
    await page.getByTestId('case-filter-fixture').selectOption('retail_monthly');
    await expect
      .poll(() => caseRows().count())
      .toBe(goldens.cases.filter((c) => c.fixture === 'retail_monthly').length);
    await page.getByTestId('case-filter-fixture').selectOption('all');
    await page.getByTestId('case-search').fill('retail-customer-count');
    await expect.poll(() => caseRows().count()).toBe(1);
    await page.getByTestId('case-search').fill('');
    await expect.poll(() => caseRows().count()).toBe(64);
  });

  test('each fixture digest recomputed in the browser equals its stamp', async () => {
    for (const name of ['retail', 'retail_monthly']) {
      await expect.poll(() => text(`digest-status-${name}`), { timeout: 120_000 }).toBe('match');
      expect(await text(`digest-recomputed-${name}`)).toBe(manifest.fixtures[name]!.content_digest);
      expect(await text(`digest-stamped-${name}`)).toBe(manifest.fixtures[name]!.content_digest);
    }
  }, 150_000);

  test('the self-check passes with 64 references checked', async () => {
    await page.getByTestId('selfcheck-run').click();
    await page.getByTestId('selfcheck-result').waitFor({ timeout: 240_000 });
    expect(await page.getByTestId('selfcheck-result').getAttribute('data-passed')).toBe('true');
    expect(Number(await text('selfcheck-checked'))).toBe(64);
    expect(Number(await text('selfcheck-finding-count'))).toBe(0);
  }, 300_000);

  test('the schema description of each fixture is rendered (tables, columns, descriptions)', async () => {
    const retail = page.getByTestId('schema-retail');
    expect(await retail.textContent()).toMatch(/Conventions/);
    const customers = page.getByTestId('schema-table-retail-customers');
    expect(await customers.textContent()).toMatch(/customers\s*8 columns · 160 rows · key customer_id/);
    await customers.locator('summary').click();
    await expect
      .poll(async () => (await customers.locator('tbody').textContent()) ?? '')
      .toContain('Surrogate key of the customer account.');
    expect(await customers.locator('tbody').textContent()).toContain('VARCHAR');
    expect(await page.getByTestId('schema-retail_monthly').textContent()).toMatch(/order_items/);
    await page.screenshot({ path: path.join(SHOTS, 'corpus.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: path.join(SCRATCH, 'corpus-dark.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('narrow: the page does not overflow sideways', async () => {
    await page.setViewportSize({ width: 760, height: 900 });
    try {
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: path.join(SCRATCH, 'corpus-narrow.png'), fullPage: true });
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  test('the refusal battery: 60 cases, strata counts equal to the core loader', async () => {
    await page.getByTestId('corpus-choice').selectOption('builtin:refusal_battery.yaml');
    await expect.poll(() => text('corpus-name'), { timeout: 30_000 }).toBe('refusal_battery');
    expect(await caseRows().count()).toBe(60);
    const strata = strataCounts(battery.cases);
    const want = Object.fromEntries(
      Object.values(strata)
        .flatMap((s) => Object.entries(s))
        .filter(([, n]) => n > 0),
    );
    expect(await pageCounts('stratum')).toEqual(want);
    expect(await pageCounts('shape')).toEqual(countBy(battery, (c) => c.shape));
    expect(await pageCounts('difficulty')).toEqual(countBy(battery, difficultyOf(battery)));
    await page.getByTestId('case-filter-stratum').selectOption('injection');
    await expect.poll(() => caseRows().count()).toBe(strata.must_refuse.injection);
    await expect.poll(() => text('digest-status-retail'), { timeout: 60_000 }).toBe('match');
  }, 90_000);

  test('an uploaded corpus whose frozen result was changed fails the self-check, naming the case', async () => {
    const tampered = goldensBytes.toString('utf8').replace('rows:\n        - [160]', 'rows:\n        - [161]');
    expect(tampered).not.toBe(goldensBytes.toString('utf8'));
    await page.goto(`${app.origin}/#/`);
    await page
      .getByTestId('input-files')
      .setInputFiles({ name: 'goldens-tampered.yaml', mimeType: 'text/yaml', buffer: Buffer.from(tampered) });
    await expect.poll(async () => page.getByTestId('chosen-corpus').getAttribute('data-ok')).toBe('true');
    await page.getByTestId('browse-corpus').click();
    await page.getByTestId('corpus-view').waitFor();
    await expect.poll(() => page.getByTestId('corpus-choice').inputValue()).toBe('chosen');
    await expect
      .poll(() => text('corpus-sha256'), { timeout: 30_000 })
      .toBe(createHash('sha256').update(tampered).digest('hex'));
    expect(await caseRows().count()).toBe(64);
    await page.getByTestId('selfcheck-run').click();
    await page.getByTestId('selfcheck-result').waitFor({ timeout: 240_000 });
    expect(await page.getByTestId('selfcheck-result').getAttribute('data-passed')).toBe('false');
    expect(Number(await text('selfcheck-checked'))).toBe(64);
    expect(await page.locator('[data-testid=selfcheck-findings] li').count()).toBe(1);
    const finding = page.locator('[data-testid=selfcheck-findings] li[data-case="retail-customer-count"]');
    expect(await finding.textContent()).toMatch(
      /no longer returns its frozen expected result\. .*expected 161, got 160/,
    );
    // The one self-check: the CLI's `selfcheck` gives the same findings on the same file.
    const file = path.join(tmp, 'goldens-tampered.yaml');
    writeFileSync(file, tampered);
    const cli = await runCli(['selfcheck', '--corpus', file, '--json'], { expectExit: [1] });
    const [cliReport] = (JSON.parse(cli.stdout) as { corpora: { findings: { case_id?: string; code: string }[] }[] })
      .corpora;
    expect(cliReport!.findings.map((f) => `${f.case_id}: ${f.code}`)).toEqual([
      'retail-customer-count: expected_mismatch',
    ]);
    // The finding's case id filters the table to that case.
    await finding.getByRole('button').click();
    await expect.poll(() => caseRows().count()).toBe(1);
  }, 300_000);

  test('an uploaded fixture whose content differs from the stamp shows MISMATCH', async () => {
    const dump = readFileSync(path.join(repoRoot, 'fixtures/retail.sql'), 'utf8');
    const altered = dump.replace("'Nimble Falcon'", "'Nimble Faucon'");
    expect(altered).not.toBe(dump);
    await page.getByRole('link', { name: 'Home' }).click();
    await page
      .getByTestId('input-files')
      .setInputFiles({ name: 'retail.sql', mimeType: 'application/sql', buffer: Buffer.from(altered) });
    await expect.poll(() => page.getByText('loaded from your file').count()).toBe(1);
    await page.getByRole('link', { name: 'Corpus' }).click();
    await expect.poll(() => text('digest-status-retail'), { timeout: 120_000 }).toBe('MISMATCH');
    expect(await page.getByTestId('digest-retail').textContent()).toContain('your file');
    expect(await text('digest-recomputed-retail')).not.toBe(manifest.fixtures.retail!.content_digest);
    expect(await text('digest-stamped-retail')).toBe(manifest.fixtures.retail!.content_digest);
    await expect.poll(() => text('digest-status-retail_monthly'), { timeout: 60_000 }).toBe('match');
  }, 180_000);

  test('no request left the origin and the page raised no error', () => {
    expect(foreign).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
