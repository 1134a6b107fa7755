/**
 * `sql-verdict run --json --html` on the demo corpus: the JSON summary's
 * breakdowns add up to the totals and every rate carries its Wilson interval
 * (two checked against a hand computation); the HTML report, opened in
 * Chromium with JavaScript disabled, shows the same counts as the CLI; a
 * report full of script payloads runs none of them with JavaScript enabled.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { RunReport } from '../../src/core/run/grade-run.ts';
import { hostileReport } from '../helpers/hostile-report.ts';
import { repoRoot } from '../helpers/paths.ts';
import { launchChromium, runCli, BROWSER_TEST_MS } from './harness.ts';

// Each test starts the production app in Chromium beside the engine tests' workers: minutes, not seconds, on a busy
// CI machine (the suite's 60 s default is for the unit tests).
vi.setConfig({ testTimeout: BROWSER_TEST_MS });

const SHOTS = process.env.UPDATE_SCREENSHOTS
  ? path.join(repoRoot, 'docs/screenshots')
  : path.join(repoRoot, 'test-results');
mkdirSync(SHOTS, { recursive: true });

let dir: string;
let report: RunReport;
let htmlFile: string;
let markdown: string;
let browser: Browser;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'verdict-html-'));
  htmlFile = path.join(dir, 'report.html');
  // Exit status 1: the demo run has failures. The browser starts meanwhile.
  const r = runCli(
    [
      'run',
      '--corpus',
      'execution_goldens',
      '--run',
      'src/ui/assets/demo-flawed.run.json',
      '--json',
      '--html',
      htmlFile,
      '--markdown',
      path.join(dir, 'summary.md'),
    ],
    { expectExit: [1] },
  );
  browser = await launchChromium();
  report = JSON.parse((await r).stdout) as RunReport;
  markdown = readFileSync(path.join(dir, 'summary.md'), 'utf8');
}, 300_000);

afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('run --json on the demo corpus', () => {
  test('breakdowns by fixture, tag and difficulty add up to the totals', () => {
    const s = report.summary;
    const b = s.breakdowns;
    expect(s.cases).toHaveLength(64);
    for (const key of ['by_fixture', 'by_difficulty', 'by_shape', 'by_stratum'] as const) {
      expect(
        b[key].reduce((n, x) => n + x.total, 0),
        key,
      ).toBe(64);
      expect(
        b[key].reduce((n, x) => n + x.outcomes.correct, 0),
        key,
      ).toBe(s.outcomes.correct);
      expect(
        b[key].reduce((n, x) => n + x.outcomes.wrong + x.outcomes.no_query + x.outcomes.declined_unarmed, 0),
        key,
      ).toBe(s.failures.length);
    }
    expect(b.by_fixture.map((x) => [x.key, x.total, x.accuracy.count])).toEqual([
      ['retail', 40, 34],
      ['retail_monthly', 24, 21],
    ]);
    expect(b.by_difficulty.map((x) => x.key)).toEqual(['easy', 'medium', 'hard', 'extra']);
    // Tags overlap: a case counts once per tag, every case has at least one.
    const corpusTags = s.cases.reduce((n, k) => n + (k.tags?.length ?? 0), 0);
    expect(corpusTags).toBeGreaterThan(64);
    expect(b.by_tag.reduce((n, x) => n + x.total, 0)).toBe(corpusTags);
    for (const x of b.by_tag) expect(x.total).toBe(s.cases.filter((k) => k.tags?.includes(x.key)).length);
  });

  test('every rate carries ci95; two checked by hand', () => {
    const s = report.summary;
    let rates = 0;
    const walk = (v: unknown, at: string): void => {
      if (Array.isArray(v)) return v.forEach((x, i) => walk(x, `${at}[${i}]`));
      if (!v || typeof v !== 'object') return;
      if ('rate' in v) {
        rates++;
        expect(v, at).toHaveProperty('ci95');
      }
      for (const [k, x] of Object.entries(v)) walk(x, `${at}.${k}`);
    };
    walk(s, 'summary');
    expect(rates).toBeGreaterThan(100);
    // Wilson, z = 1.959963984540054: 55 of 64 → (0.859375 + z²/128 ± z·√(0.859375·0.140625/64 + z²/16384)) / (1 + z²/64)
    expect(s.answer_accuracy).toMatchObject({ correct: 55, total: 64 });
    expect(s.answer_accuracy.ci95![0]).toBeCloseTo(0.7538371825842297, 10);
    expect(s.answer_accuracy.ci95![1]).toBeCloseTo(0.9242142744396914, 10);
    // 34 of 40 on retail → (0.85 + z²/80 ± z·√(0.85·0.15/40 + z²/6400)) / (1 + z²/40)
    const retail = s.breakdowns.by_fixture[0]!.accuracy;
    expect(retail.ci95![0]).toBeCloseTo(0.709276756335103, 10);
    expect(retail.ci95![1]).toBeCloseTo(0.9293881228267964, 10);
    expect(s.refusal_recall.ci95).toBeNull();
    expect(markdown).toContain('| Answer accuracy | 55 of 64 | 85.9% | 75.4–92.4% |');
    expect(markdown).toContain('| retail | 40 | 34 of 40 | 85.0% [70.9%, 92.9%] |');
  });
});

describe('the HTML report in Chromium', () => {
  test('with JavaScript disabled shows the same counts as the CLI', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    const blocked: string[] = [];
    page.on('console', (m) => m.type() === 'error' && blocked.push(m.text()));
    await page.goto(pathToFileURL(htmlFile).href);
    const s = report.summary;
    expect(await page.getByTestId('size').textContent()).toBe(String(s.corpus.size));
    expect(await page.getByTestId('answer-accuracy-count').textContent()).toBe(
      `${s.answer_accuracy.correct} / ${s.answer_accuracy.total}`,
    );
    expect(await page.getByTestId('failure-count').textContent()).toBe(String(s.failures.length));
    expect(await page.getByTestId('outcomes-total').textContent()).toBe(String(s.cases.length));
    for (const [outcome, n] of Object.entries(s.outcomes))
      expect(await page.locator(`[data-outcome="${outcome}"] td`).textContent(), outcome).toBe(String(n));
    for (const key of ['by_fixture', 'by_tag', 'by_difficulty'] as const) {
      const shown = await page
        .getByTestId(`breakdown-${key}`)
        .locator('tbody tr')
        .evaluateAll((rows) =>
          rows.map((r) => [r.getAttribute('data-key'), Number(r.querySelector('[data-testid="total"]')!.textContent)]),
        );
      expect(shown, key).toEqual(s.breakdowns[key].map((x) => [x.key, x.total]));
    }
    const failing = await page
      .locator('table[data-testid="failures"] tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-case')));
    expect(failing).toEqual(s.failures.map((f) => f.id));
    // Each failing case with its SQL, and the result samples where both queries ran.
    const first = page.locator(`details[data-case="retail-net-revenue-2024"]`);
    await first.locator('summary').click();
    await expect
      .poll(() => first.locator('h4').allTextContents())
      .toEqual(['Reference SQL', 'Candidate SQL', 'Reference result', 'Candidate result']);
    // The stylesheet is allowed by its hash: headings are styled.
    expect(
      await page
        .locator('h2')
        .first()
        .evaluate((h) => getComputedStyle(h).borderBottomStyle),
    ).toBe('solid');
    expect(blocked).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS, 'html-report.png'), fullPage: false });
    await context.close();
  });

  test('a report full of script payloads runs none of them, with JavaScript enabled', async () => {
    const file = path.join(dir, 'hostile.html');
    writeFileSync(file, hostileReport());
    const context = await browser.newContext();
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(pathToFileURL(file).href);
    await page.locator('details summary').first().click();
    expect(await page.evaluate(() => (window as unknown as { __xss?: string }).__xss ?? null)).toBeNull();
    expect(dialogs).toEqual([]);
    expect(await page.locator('script, img, iframe, object').count()).toBe(0);
    expect(await page.getByTestId('failures').locator('code').first().textContent()).toContain(
      "<script>window.__xss='id'</script>",
    );
    await context.close();
  });
});
