/**
 * The results page's release gate against the production build in Chromium.
 * The real CLI grades a strong sample run (given the demo run's model, so the
 * gate compares rather than refuses), records a baseline from it and gates
 * the flawed demo run; the page, grading the same runs, shows the same
 * status and the same arithmetic lines — with the baseline taken from the
 * stored strong run (saved, it equals the CLI's baseline file but for its
 * date), and from the CLI's baseline file. A baseline of another
 * model is refused with the gate's own message; a broken file names its line
 * and field. A shard report (`run --shard`) opened in the page is refused with
 * the CLI's own message, gated or chosen as a baseline.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { GateResult } from '../../src/core/gate/gate.ts';
import type { BoundarySweep } from '../../src/core/gate/sweep.ts';
import { runCli as runCliIn, type CliRun } from '../helpers/cli.ts';
import { repoRoot } from '../helpers/paths.ts';
import { launchChromium, openPage, runCli, serveBuiltApp, type ServedApp, BROWSER_TEST_MS } from './harness.ts';

// Each test starts the production app in Chromium beside the engine tests' workers: minutes, not seconds, on a busy
// CI machine (the suite's 60 s default is for the unit tests).
vi.setConfig({ testTimeout: BROWSER_TEST_MS });

const DEMO_RUN = 'src/ui/assets/demo-flawed.run.json';
const STRONG_RUN = 'fixtures/runs/execution_goldens.strong.json';
const SHOTS = process.env.UPDATE_SCREENSHOTS
  ? path.join(repoRoot, 'docs/screenshots')
  : path.join(repoRoot, 'test-results');
mkdirSync(SHOTS, { recursive: true });

let app: ServedApp;
let browser: Browser;
let page: Page;
let dir: string;
const pageErrors: string[] = [];
const foreign: string[] = [];

interface CliGate {
  exit: number | null;
  /** The text output's check lines: `[status] arithmetic`. */
  lines: string[];
  status: string;
  json: GateResult;
}

async function cli(args: string[], expectExit: number[]): Promise<string> {
  return (await runCli(args, { expectExit })).stdout;
}

async function gate(report: string, baseline: string): Promise<CliGate> {
  const [text, jsonText] = await Promise.all([
    cli(['gate', '--report', report, '--baseline', baseline], [0, 1, 2]),
    cli(['gate', '--report', report, '--baseline', baseline, '--json'], [0, 1, 2]),
  ]);
  const json = JSON.parse(jsonText) as GateResult;
  return {
    exit: json.exit_code,
    lines: text
      .split('\n')
      .filter((l) => l.startsWith('  ['))
      .map((l) => l.trim()),
    status: /^Gate: (\w+)/.exec(text)![1]!,
    json,
  };
}

let strongRunFile: string;
let sameModel: CliGate;
let otherModel: CliGate;
let baselineFile: string;
let otherModelFile: string;
const SHARD = 'demo.shard-1.json';
let shardRefusals: { gate: CliRun; record: CliRun };

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'gate-panel-'));
  // The strong sample as an earlier release of the demo's model and path: a baseline the demo run is compared with.
  const demo = JSON.parse(readFileSync(path.join(repoRoot, DEMO_RUN), 'utf8')) as {
    run: { model: string; path: string };
  };
  const strong = JSON.parse(readFileSync(path.join(repoRoot, STRONG_RUN), 'utf8')) as { run: Record<string, unknown> };
  strong.run.model = demo.run.model;
  strong.run.path = demo.run.path;
  strongRunFile = path.join(dir, 'strong-same-model.json');
  writeFileSync(strongRunFile, JSON.stringify(strong, null, 2));
  // The CLI side runs while the server, the browser and the page start.
  const cliSide = (async () => {
    // Exit status 1: both runs have failures. The two runs are independent: side by side.
    await Promise.all([
      cli(
        ['run', '--corpus', 'execution_goldens', '--run', strongRunFile, '--out', path.join(dir, 'strong.report.json')],
        [1],
      ),
      cli(
        ['run', '--corpus', 'execution_goldens', '--run', DEMO_RUN, '--out', path.join(dir, 'demo.report.json')],
        [1],
      ),
    ]);
    // Shard 1 of 2 of the demo run (`run --shard`): the CLI's gate and `baseline record` refuse it, named as given.
    await cli(
      ['run', '--corpus', 'execution_goldens', '--run', DEMO_RUN, '--shard', '1/2', '--out', path.join(dir, SHARD)],
      [0, 1],
    );
    baselineFile = path.join(dir, 'baseline.json');
    await cli(['baseline', 'record', '--report', path.join(dir, 'strong.report.json'), '--out', baselineFile], [0]);
    // The same baseline for another model: the gate refuses to compare.
    const recorded = JSON.parse(readFileSync(baselineFile, 'utf8')) as { model: string };
    otherModelFile = path.join(dir, 'baseline-other-model.json');
    writeFileSync(otherModelFile, JSON.stringify({ ...recorded, model: 'sample-model-large@2025-06' }, null, 2));
    [sameModel, otherModel] = await Promise.all([
      gate(path.join(dir, 'demo.report.json'), baselineFile),
      gate(path.join(dir, 'demo.report.json'), otherModelFile),
    ]);
    // In the report's folder, so the CLI names the file as the page does (by its name).
    const [shardGate, shardRecord] = await Promise.all([
      runCliIn(['gate', '--report', SHARD, '--baseline', 'baseline.json'], { cwd: dir }),
      runCliIn(['baseline', 'record', '--report', SHARD, '--out', 'shard-baseline.json'], { cwd: dir }),
    ]);
    shardRefusals = { gate: shardGate, record: shardRecord };
  })();

  [app, browser] = await Promise.all([serveBuiltApp(), launchChromium()]);
  ({ page } = await openPage(
    browser,
    app.origin,
    { viewport: { width: 1280, height: 900 }, acceptDownloads: true },
    { foreign, pageErrors },
  ));
  await page.goto(`${app.origin}/`);
  await cliSide;
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const text = async (testId: string) => ((await page.getByTestId(testId).first().textContent()) ?? '').trim();
const pageLines = async () =>
  page
    .locator('[data-testid=gate-check]')
    .evaluateAll((items) =>
      items.map(
        (li) =>
          `${li.querySelector('.tag')?.textContent?.trim()} ${li.querySelector('[data-testid=gate-arithmetic]')?.textContent?.trim()}`,
      ),
    );

describe('release gate panel in Chromium (production build)', () => {
  test('the CLI blocks the demo run against the strong baseline and refuses another model', () => {
    expect(sameModel.status).toBe('BLOCKED');
    expect(sameModel.exit).toBe(1);
    expect(sameModel.lines.some((l) => l.startsWith('[blocked] answer accuracy'))).toBe(true);
    expect(otherModel.status).toBe('REFUSED');
    expect(otherModel.exit).toBe(2);
  });

  test('with another stored run of the corpus as baseline, the page shows the CLI status and arithmetic', async () => {
    await page.getByTestId('home').waitFor();
    // Grade the strong run (uploaded) first, then the demo.
    await page.locator('label', { hasText: 'execution_goldens.yaml' }).locator('input[type=radio]').check();
    await page.getByTestId('input-files').setInputFiles(strongRunFile);
    await expect.poll(() => page.getByTestId('start').isEnabled(), { timeout: 60_000 }).toBe(true);
    await page.getByTestId('start').click();
    await page.getByTestId('summary-cards').waitFor({ timeout: 600_000 });
    await page.goto(`${app.origin}/#/`);
    await page.getByTestId('run-demo').click();
    await page.getByTestId('progress').waitFor({ timeout: 60_000 });
    await page.getByTestId('summary-cards').waitFor({ timeout: 600_000 });
    expect(await text('run-status')).toBe('done');

    const select = page.getByTestId('gate-baseline-run');
    await expect.poll(() => select.locator('option').count()).toBe(2);
    await select.selectOption({ index: 1 });
    await expect.poll(() => text('gate-status')).toBe(sameModel.status);
    expect(await pageLines()).toEqual(sameModel.lines);
    // Saved for CI, the derived baseline is the CLI's `baseline record` of the same run, but for its date.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('gate-save-baseline').click(),
    ]);
    const saved = JSON.parse(readFileSync((await download.path())!, 'utf8')) as Record<string, unknown>;
    const recorded = JSON.parse(readFileSync(baselineFile, 'utf8')) as Record<string, unknown>;
    expect({ ...saved, recorded_at: null }).toEqual({ ...recorded, recorded_at: null });
  }, 1_300_000);

  test('with the CLI baseline file, the same status, arithmetic and failing case ids', async () => {
    await page.getByTestId('gate-baseline-file').setInputFiles(baselineFile);
    await expect.poll(() => text('gate-baseline')).toContain(`recorded ${sameModel.json.baseline!.recorded_at}`);
    expect(await text('gate-status')).toBe('BLOCKED');
    expect(await pageLines()).toEqual(sameModel.lines);
    // The failing check names its cases, each linked to the case view.
    const blocked = sameModel.json.checks.filter((c) => c.status === 'blocked');
    expect(blocked.map((c) => c.name)).toEqual(['answer_accuracy']);
    const ids = await page.locator('[data-check=answer_accuracy] [data-testid=gate-case-ids] a').allTextContents();
    expect(ids).toEqual(blocked[0]!.case_ids);
    expect(ids.length).toBeGreaterThan(0);
    expect(await page.locator('[data-check=answer_accuracy] .scope').textContent()).toMatch(/answer set/);
    // The boundary sweep `baseline record` wrote beside the baseline, drawn as a chart: one line per gated figure, the same rules and caveats.
    const sweep = JSON.parse(readFileSync(baselineFile.replace(/\.json$/, '.sweep.json'), 'utf8')) as BoundarySweep;
    const gated = sweep.figures.filter((f) => f.n > 0);
    await page.getByTestId('gate-sweep').locator('summary').click();
    expect(
      await page
        .locator('[data-testid=gate-sweep-line]')
        .evaluateAll((ls) => ls.map((l) => l.getAttribute('data-figure'))),
    ).toEqual(gated.map((f) => f.figure));
    expect(await page.locator('[data-testid=gate-sweep-table] tbody tr td.mono').allTextContents()).toEqual(
      gated.map((f) => f.rule),
    );
    expect(await page.locator('[data-testid=gate-sweep-caveats] li').allTextContents()).toEqual(sweep.caveats);
    const points = await page.locator('[data-testid=gate-sweep-line]').first().getAttribute('points');
    expect(points?.split(' ')).toHaveLength(sweep.grid.length);
    await page.getByTestId('gate-panel').screenshot({ path: path.join(SHOTS, 'gate.png') });
  });

  test("a baseline of another model is refused with the gate's own message", async () => {
    await page.getByTestId('gate-baseline-file').setInputFiles(otherModelFile);
    await expect.poll(() => text('gate-status')).toBe('REFUSED');
    expect(await pageLines()).toEqual(otherModel.lines);
    expect(otherModel.lines.join('\n')).toMatch(
      /model "demo-flawed-1" ≠ baseline model "sample-model-large@2025-06": REFUSED/,
    );
  });

  test('a broken baseline file gets an error naming its line and field, and no verdict', async () => {
    const good = readFileSync(baselineFile, 'utf8');
    const brokenJson = good.replace('"suite": "execution_goldens",', '"suite": "execution_goldens"');
    const line = brokenJson.split('\n').findIndex((l) => l.includes('"path"')) + 1;
    await page
      .getByTestId('gate-baseline-file')
      .setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from(brokenJson) });
    await expect.poll(() => text('gate-error')).toMatch(new RegExp(`^broken\\.json:${line}: not valid JSON`));
    expect(await page.getByTestId('gate-status').count()).toBe(0);

    const badField = good.replace(/"size": 64/, '"size": 63');
    const sizeLine = badField.split('\n').findIndex((l) => l.includes('"case_ids"')) + 1;
    await page
      .getByTestId('gate-baseline-file')
      .setInputFiles({ name: 'bad-size.json', mimeType: 'application/json', buffer: Buffer.from(badField) });
    await expect
      .poll(() => text('gate-error'))
      .toBe(
        `bad-size.json:${sizeLine} (field case_ids): Not a valid baseline: corpus.size is 63 but 64 case ids are listed.`,
      );
    expect(await page.getByTestId('gate-checks').count()).toBe(0);
  });

  test("a shard report (run --shard) is refused as the CLI's gate and baseline record refuse it, with the same message", async () => {
    // The CLI: exit 2, "Not a usable run report: demo.shard-1.json: this is shard 1 of 2 (…), not the whole run: …".
    const cliLine = (r: CliRun) => {
      expect(r.code).toBe(2);
      const m = /^Not a usable run report: (.*)$/m.exec(r.stderr);
      expect(m, r.stderr).not.toBeNull();
      return m![1]!;
    };
    const message = cliLine(shardRefusals.gate);
    expect(message).toMatch(
      /^demo\.shard-1\.json: this is shard 1 of 2 \(32 of the corpus's 64 cases\), not the whole run: merge/,
    );
    expect(cliLine(shardRefusals.record)).toBe(message);
    const demoRun = page.url();

    // Opened in the app, the shard's gate panel refuses it before any baseline, and with one: no verdict.
    await page.goto(`${app.origin}/#/`);
    await page.getByTestId('input-files').setInputFiles(path.join(dir, SHARD));
    await page.getByTestId('opened-from').waitFor({ timeout: 30_000 });
    const shardId = decodeURIComponent(/#\/runs\/([^/]+)$/.exec(page.url())![1]!);
    await expect.poll(() => text('gate-error')).toBe(message);
    await page.getByTestId('gate-baseline-file').setInputFiles(baselineFile);
    await expect.poll(() => text('gate-error')).toBe(message);
    expect(await page.getByTestId('gate-status').count()).toBe(0);
    expect(await page.getByTestId('gate-checks').count()).toBe(0);

    // Chosen as the baseline of the whole demo run, it is refused as `baseline record` refuses it.
    await page.goto(demoRun);
    const select = page.getByTestId('gate-baseline-run');
    await expect.poll(() => select.locator(`option[value="${shardId}"]`).count()).toBe(1);
    await select.selectOption(shardId);
    await expect.poll(() => text('gate-error')).toBe(message);
    expect(await page.getByTestId('gate-status').count()).toBe(0);
  });

  test('no request left the origin and the page raised no error', () => {
    expect(foreign).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
