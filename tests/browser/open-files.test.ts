/**
 * Bringing a benchmark as it is, in Chromium (production build): the Spider
 * sample dropped on the home page is imported by the core importer, its
 * databases loaded by name, and graded with the CLI's verdicts case by case;
 * the BIRD sample picked as a folder runs with its evidence and difficulty
 * names; a report the CLI wrote (JSON, JSONL) opens in the results views with
 * the counts the CLI printed, and an edited one is refused naming the field.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { RunReport } from '../../src/core/run/grade-run.ts';
import { POLICY_DIFFERENCES, type BirdMetrics } from '../../src/core/run/preset-grade.ts';
import { presetLines } from '../../src/core/run/preset-lines.ts';
import { percent } from '../../src/core/gate/interval.ts';
import { summarizeRun } from '../../src/core/gate/summary.ts';
import { summarizeRunReport } from '../../src/cli/commands/run.ts';
import { mixCases } from '../gate/build.ts';
import { repoRoot } from '../helpers/paths.ts';
import { launchChromium, openPage, runCli, serveBuiltApp, type ServedApp, BROWSER_TEST_MS } from './harness.ts';

// Each test starts the production app in Chromium beside the engine tests' workers: minutes, not seconds, on a busy
// CI machine (the suite's 60 s default is for the unit tests).
vi.setConfig({ testTimeout: BROWSER_TEST_MS });

const SPIDER = 'fixtures/benchmarks/spider-sample';
const BIRD = 'fixtures/benchmarks/bird-sample';

let app: ServedApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let dir: string;
let spiderCli: RunReport;
let birdCli: RunReport;
let birdPrinted: string;
/** The CLI's reports under the benchmarks' own policies (--policy spider [--keep-distinct], --policy bird [--ves-iterations 3]). */
let spiderPreset: RunReport;
let spiderKeepDistinct: RunReport;
let birdPreset: RunReport;
let birdTimed: RunReport;
/** The built-in demo corpus and run under --policy spider (a preset on a run that is not a benchmark folder). */
let demoSpider: RunReport;
const pageErrors: string[] = [];
const foreign: string[] = [];

/** Every file of a folder, relative to it. */
function listFiles(root: string, rel = ''): string[] {
  return readdirSync(path.join(root, rel))
    .sort()
    .flatMap((name) =>
      statSync(path.join(root, rel, name)).isDirectory()
        ? listFiles(root, path.join(rel, name))
        : [path.join(rel, name)],
    );
}

/** Drop files on the home page as a drag from the desktop does (a DataTransfer of File objects on the window). */
async function drop(files: { name: string; bytes: Buffer }[]): Promise<void> {
  const payload = files.map((f) => ({ name: f.name, data: f.bytes.toString('base64') }));
  await page.evaluate((items) => {
    const transfer = new DataTransfer();
    for (const item of items)
      transfer.items.add(new File([Uint8Array.from(atob(item.data), (c) => c.charCodeAt(0))], item.name));
    window.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, payload);
}

const text = async (testId: string) => ((await page.getByTestId(testId).first().textContent()) ?? '').trim();
const verdicts = (r: RunReport) => r.cases.map((c) => [c.id, c.outcome, c.reason_code ?? null, c.difficulty ?? null]);

/** BIRD's per-difficulty table on the results card, cell texts row by row. */
const difficultyTable = () =>
  page.$$eval('[data-testid=bird-by-difficulty] tbody tr', (rows) =>
    rows.map((r) => [...(r as HTMLTableRowElement).cells].map((c) => (c.textContent ?? '').trim())),
  );
const fig = (x: number | null) => (x === null ? '—' : x.toFixed(2));
const difficultyRows = (m: BirdMetrics) =>
  m.by_difficulty.map((d) => [
    d.difficulty,
    String(d.cases),
    d.ex.toFixed(2),
    d.soft_f1.toFixed(2),
    fig(d.r_ves),
    fig(d.ves),
  ]);

/**
 * Record what the page shows while it works: a MutationObserver takes `snap()` at every DOM change (Svelte
 * flushes each state change before the next task, so no state shown is missed), and a 50 ms interval
 * measures how long the main thread was ever kept from running (a frozen page would show as one long gap).
 */
async function watch(snap: string): Promise<void> {
  await page.evaluate((source) => {
    const take = new Function(`return (${source})()`) as () => unknown;
    const w = window as unknown as { __seen: unknown[]; __stop: () => void; __maxGap: number };
    w.__seen = [take()];
    w.__maxGap = 0;
    let last = performance.now();
    const tick = setInterval(() => {
      const now = performance.now();
      w.__maxGap = Math.max(w.__maxGap, now - last);
      last = now;
    }, 50);
    const observer = new MutationObserver(() => w.__seen.push(take()));
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    w.__stop = () => {
      observer.disconnect();
      clearInterval(tick);
    };
  }, snap);
}

async function watched<T>(): Promise<{ seen: T[]; maxGapMs: number }> {
  return page.evaluate(() => {
    const w = window as unknown as { __seen: unknown[]; __stop: () => void; __maxGap: number };
    w.__stop();
    return { seen: w.__seen as T[], maxGapMs: w.__maxGap };
  }) as Promise<{ seen: T[]; maxGapMs: number }>;
}

async function exported(): Promise<RunReport> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  return JSON.parse(readFileSync((await download.path())!, 'utf8')) as RunReport;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'open-files-'));
  // Exit status 1: both samples have failing cases on purpose.
  // Both CLI runs, side by side, while the server and the browser start.
  const spider = runCli(
    [
      'run',
      '--format',
      'spider',
      '--gold',
      `${SPIDER}/dev_gold.sql`,
      '--pred',
      `${SPIDER}/pred.txt`,
      '--db-dir',
      `${SPIDER}/database`,
      '--json',
    ],
    { expectExit: [1] },
  );
  const bird = runCli(
    [
      'run',
      '--format',
      'bird',
      '--questions',
      `${BIRD}/dev.json`,
      '--pred',
      `${BIRD}/predict_dev.json`,
      '--db-dir',
      `${BIRD}/dev_databases`,
      '--out',
      path.join(dir, 'bird-report.json'),
    ],
    { expectExit: [1] },
  );
  const spiderArgs = [
    'run',
    '--format',
    'spider',
    '--gold',
    `${SPIDER}/dev_gold.sql`,
    '--pred',
    `${SPIDER}/pred.txt`,
    '--db-dir',
    `${SPIDER}/database`,
    '--json',
  ];
  const birdArgs = [
    'run',
    '--format',
    'bird',
    '--questions',
    `${BIRD}/dev.json`,
    '--pred',
    `${BIRD}/predict_dev.json`,
    '--db-dir',
    `${BIRD}/dev_databases`,
    '--json',
  ];
  const presets = Promise.all([
    runCli([...spiderArgs, '--policy', 'spider'], { expectExit: [0, 1] }),
    runCli([...spiderArgs, '--policy', 'spider', '--keep-distinct'], { expectExit: [0, 1] }),
    runCli([...birdArgs, '--policy', 'bird'], { expectExit: [0, 1] }),
    runCli([...birdArgs, '--policy', 'bird', '--ves-iterations', '3'], { expectExit: [0, 1] }),
    runCli(
      [
        'run',
        '--corpus',
        'execution_goldens',
        '--run',
        'src/ui/assets/demo-flawed.run.json',
        '--policy',
        'spider',
        '--json',
      ],
      { expectExit: [0, 1] },
    ),
  ]);
  [app, browser] = await Promise.all([serveBuiltApp(), launchChromium()]);
  ({ context, page } = await openPage(
    browser,
    app.origin,
    { viewport: { width: 1280, height: 800 }, acceptDownloads: true },
    { foreign, pageErrors },
  ));
  await page.goto(`${app.origin}/`);
  await page.getByTestId('home').waitFor();
  spiderCli = JSON.parse((await spider).stdout) as RunReport;
  birdPrinted = (await bird).stdout;
  birdCli = JSON.parse(readFileSync(path.join(dir, 'bird-report.json'), 'utf8')) as RunReport;
  const parsed = (await presets).map((r) => JSON.parse(r.stdout) as RunReport);
  [spiderPreset, spiderKeepDistinct, birdPreset, birdTimed, demoSpider] = [
    parsed[0]!,
    parsed[1]!,
    parsed[2]!,
    parsed[3]!,
    parsed[4]!,
  ];
}, 300_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('benchmarks and CLI reports opened in the app (Chromium, production build)', () => {
  test('the Spider sample dropped on the home page is graded with the CLI verdicts, case by case', async () => {
    const root = path.join(repoRoot, SPIDER);
    await drop(listFiles(root).map((rel) => ({ name: path.basename(rel), bytes: readFileSync(path.join(root, rel)) })));
    await expect
      .poll(() => page.getByTestId('chosen-benchmark').getAttribute('data-format'), { timeout: 30_000 })
      .toBe('spider');
    expect(await text('benchmark-databases')).toMatch(/databases \(2\): school, shop/);
    await expect.poll(() => page.getByTestId('chosen-run').getAttribute('data-ok'), { timeout: 30_000 }).toBe('true');
    expect(await page.getByTestId('policy').inputValue()).toBe('spider');
    await page.getByTestId('policy').selectOption('sql-verdict');
    await page.getByTestId('start').click();
    await page.getByTestId('summary-cards').waitFor({ timeout: 300_000 });
    expect(await page.getByTestId('card-preset').count()).toBe(0);
    const a = spiderCli.summary.answer_accuracy;
    expect(await text('accuracy-counts')).toBe(`${a.correct} / ${a.total} correct`);
    const mine = await exported();
    expect(verdicts(mine)).toEqual(verdicts(spiderCli));
    expect(mine.summary.answer_accuracy).toEqual(spiderCli.summary.answer_accuracy);
  });

  test('the BIRD sample picked as a folder runs: BIRD difficulty names kept, evidence shown with the question', async () => {
    await page.goto(`${app.origin}/#/`);
    // The Spider sample is still chosen (ok): from the pick on, its boxes must say "checking…", never the old "ok".
    type Boxes = { what: string; ok: string | null; checking: string | null; text: string }[];
    await watch(
      `() => [...document.querySelectorAll('[data-testid=chosen-corpus],[data-testid=chosen-run]')].map((e) => ({ what: e.dataset.testid, ok: e.dataset.ok ?? null, checking: e.dataset.checking ?? null, text: e.textContent.trim() }))`,
    );
    await page.getByTestId('input-folder').setInputFiles(path.join(repoRoot, BIRD));
    await expect
      .poll(() => page.getByTestId('chosen-benchmark').getAttribute('data-format'), { timeout: 30_000 })
      .toBe('bird');
    await expect.poll(() => page.getByTestId('chosen-run').getAttribute('data-ok'), { timeout: 30_000 }).toBe('true');
    const { seen } = await watched<Boxes>();
    const spiderShown = (b: Boxes) => b.some((x) => x.ok === 'true' && /dev_gold|pred\.txt/.test(x.text));
    expect(spiderShown(seen[0]!)).toBe(true);
    const changed = seen.findIndex((b) => !spiderShown(b));
    console.log(
      `folder pick: ${seen.length} states shown; first after the pick: ${JSON.stringify(seen[changed]?.map((x) => [x.what, x.ok, x.checking]))}`,
    );
    expect(seen[changed]!.map((x) => [x.what, x.ok, x.checking])).toEqual([
      ['chosen-corpus', 'false', 'true'],
      ['chosen-run', 'false', 'true'],
    ]);
    expect(seen[changed]![0]!.text).toMatch(/^checking…/);
    expect(seen.slice(changed).some(spiderShown)).toBe(false);
    expect(seen.at(-1)!.map((x) => [x.what, x.ok])).toEqual([
      ['chosen-corpus', 'true'],
      ['chosen-run', 'true'],
    ]);
    expect(await page.getByTestId('policy').inputValue()).toBe('bird');
    await page.getByTestId('policy').selectOption('sql-verdict');
    await page.getByTestId('start').click();
    await page.getByTestId('summary-cards').waitFor({ timeout: 300_000 });
    const a = birdCli.summary.answer_accuracy;
    expect(await text('accuracy-counts')).toBe(`${a.correct} / ${a.total} correct`);
    const mine = await exported();
    expect(verdicts(mine)).toEqual(verdicts(birdCli));
    expect(mine.cases.map((c) => c.difficulty)).toEqual([
      'simple',
      'simple',
      'moderate',
      'moderate',
      'challenging',
      'challenging',
    ]);
    await page.goto(`${page.url()}/cases/q0000`);
    await page.getByTestId('case-view').waitFor();
    expect(await text('case-evidence')).toBe(`Evidence: ${birdCli.cases[0]!.evidence}`);
    expect(await page.getByTestId('case-view').textContent()).toMatch(/difficulty simple/);
  });

  test("the Spider sample graded with the Spider preset (the default for a Spider folder) shows the CLI's EX, SQL Verdict's own beside it and the differing cases", async () => {
    const root = path.join(repoRoot, SPIDER);
    for (const [choice, cli] of [
      ['spider', spiderPreset],
      ['spider-keep-distinct', spiderKeepDistinct],
    ] as const) {
      await page.goto(`${app.origin}/#/`);
      await drop(
        listFiles(root).map((rel) => ({ name: path.basename(rel), bytes: readFileSync(path.join(root, rel)) })),
      );
      await expect.poll(() => page.getByTestId('chosen-run').getAttribute('data-ok'), { timeout: 30_000 }).toBe('true');
      await expect.poll(() => page.getByTestId('policy').inputValue()).toBe('spider');
      await page.getByTestId('policy').selectOption(choice);
      await page.getByTestId('start').click();
      await page.getByTestId('card-preset').waitFor({ timeout: 300_000 });
      const a = cli.summary.answer_accuracy;
      const p = cli.policy_preset!;
      console.log(
        `${choice}: app EX ${await text('preset-ex')}, CLI ${a.correct}/${a.total}; SQL Verdict ${p.native_answer_accuracy.correct}/${p.native_answer_accuracy.total}; differ ${p.differences.preset_pass_native_fail.length + p.differences.preset_fail_native_pass.length}`,
      );
      expect(await text('accuracy-counts')).toBe(`${a.correct} / ${a.total} correct`);
      expect(await text('preset-ex')).toBe(percent(a.correct / a.total));
      expect(await text('native-accuracy-counts')).toBe(
        `${p.native_answer_accuracy.correct} / ${p.native_answer_accuracy.total}`,
      );
      expect(await text('preset-differs')).toBe(
        String(p.differences.preset_pass_native_fail.length + p.differences.preset_fail_native_pass.length),
      );
      expect(await page.getByTestId('preset-lines').textContent()).toBe(presetLines(cli).join('\n'));
      const mine = await exported();
      expect(verdicts(mine)).toEqual(verdicts(cli));
      expect(mine.policy_preset).toEqual(cli.policy_preset);
      expect(mine.cases.map((c) => c.policy_preset)).toEqual(cli.cases.map((c) => c.policy_preset));
      if (choice !== 'spider') continue;
      // The case view: what Spider said, what SQL Verdict's own policy said, and the named difference when they differ.
      const runUrl = page.url();
      const differing = cli.cases.find((c) => c.policy_preset?.differs)!;
      const same = cli.cases.find((c) => c.policy_preset && !c.policy_preset.differs)!;
      for (const c of [differing, same]) {
        const v = c.policy_preset!;
        await page.goto(`${runUrl}/cases/${c.id}`);
        await page.getByTestId('case-preset').waitFor();
        expect(await text('case-preset-verdict')).toBe(`${v.verdict} ${v.reason_code} · ${v.reason}`);
        expect(await text('case-native-verdict')).toBe(
          [v.native_outcome, v.native_reason_code, v.native_reason ? `· ${v.native_reason}` : null]
            .filter((x) => x)
            .join(' '),
        );
        expect(await page.getByTestId('case-preset').getAttribute('data-differs')).toBe(String(v.differs));
        if (v.differs)
          expect(await text('case-policy-difference')).toBe(
            `The policies differ: ${v.policy_difference} — ${POLICY_DIFFERENCES[v.policy_difference!]}`,
          );
        else expect(await text('case-policy-difference')).toBe('Both policies decide this case the same way.');
      }
      console.log(
        `case view: ${differing.id} ${differing.policy_preset!.verdict} under spider, ${differing.policy_preset!.native_outcome} under SQL Verdict (${differing.policy_preset!.policy_difference})`,
      );
    }
  });

  test("the BIRD sample graded with the BIRD preset shows the CLI's EX and Soft-F1, and R-VES when timed", async () => {
    await page.goto(`${app.origin}/#/`);
    await page.getByTestId('input-folder').setInputFiles(path.join(repoRoot, BIRD));
    await expect.poll(() => page.getByTestId('chosen-run').getAttribute('data-ok'), { timeout: 30_000 }).toBe('true');
    await expect.poll(() => page.getByTestId('policy').inputValue()).toBe('bird');
    await page.getByTestId('start').click();
    await page.getByTestId('card-preset').waitFor({ timeout: 300_000 });
    const b = birdPreset.policy_preset!.bird_metrics!;
    console.log(
      `bird: app EX ${await text('preset-ex')} Soft-F1 ${await text('bird-soft-f1')} R-VES ${await text('bird-r-ves')}; CLI EX ${b.ex.toFixed(2)} Soft-F1 ${b.soft_f1.toFixed(2)} R-VES ${b.r_ves}`,
    );
    expect(await text('preset-ex')).toBe(b.ex.toFixed(2));
    expect(await text('bird-soft-f1')).toBe(b.soft_f1.toFixed(2));
    expect(b.r_ves).toBeNull();
    expect(b.ves).toBeNull();
    expect(await text('bird-r-ves')).toBe('—');
    expect(await text('bird-ves')).toBe('—');
    expect(await difficultyTable()).toEqual(difficultyRows(b));
    const n = birdPreset.policy_preset!.native_answer_accuracy;
    expect(await text('native-accuracy-counts')).toBe(`${n.correct} / ${n.total}`);
    expect(await page.getByTestId('preset-lines').textContent()).toBe(presetLines(birdPreset).join('\n'));
    const mine = await exported();
    expect(verdicts(mine)).toEqual(verdicts(birdPreset));
    expect(mine.policy_preset).toEqual(birdPreset.policy_preset);

    // R-VES is timed, so it cannot equal the CLI's to the digit: both must lie in BIRD's reward bands over the
    // same correct cases (a correct case earns sqrt(0.25..1.25), a wrong one 0), with EX and Soft-F1 unchanged.
    await page.goto(`${app.origin}/#/`);
    await page.getByTestId('input-folder').setInputFiles(path.join(repoRoot, BIRD));
    await expect.poll(() => page.getByTestId('chosen-run').getAttribute('data-ok'), { timeout: 30_000 }).toBe('true');
    await page.getByTestId('ves-iterations').fill('3');
    // Judging again under BIRD (with timed runs) shows its own counter while the page stays responsive.
    await watch(
      `() => document.querySelector('[data-testid=progress-policy]')?.textContent.replace(/\\s+/g, ' ').trim() ?? null`,
    );
    await page.getByTestId('start').click();
    await page.getByTestId('card-preset').waitFor({ timeout: 300_000 });
    const progress = await watched<string | null>();
    const counts = progress.seen.filter((t): t is string => t !== null);
    console.log(
      `judging again under BIRD: ${new Set(counts).size} progress texts, e.g. "${counts[0]}"; longest main-thread gap ${Math.round(progress.maxGapMs)} ms`,
    );
    expect(counts.length).toBeGreaterThan(0);
    expect(
      counts.every((t) =>
        /^Judging again under the BIRD policy \(R-VES: 3 timed runs per correct case\): \d of 6 cases/.test(t),
      ),
    ).toBe(true);
    const numbers = counts.map((t) => Number(/(\d) of 6/.exec(t)![1]));
    expect(numbers.some((n) => n < 6)).toBe(true);
    expect(numbers).toEqual([...numbers].sort((x, y) => x - y));
    // Not frozen: the main thread ran its 50 ms timer throughout (the preset runs in the worker); generous for a loaded machine.
    expect(progress.maxGapMs).toBeLessThan(5_000);
    const timed = await exported();
    for (const r of [timed, birdTimed]) {
      const m = r.policy_preset!.bird_metrics!;
      expect(m.ex).toBe(b.ex);
      expect(m.soft_f1).toBe(b.soft_f1);
      expect(m.r_ves).not.toBeNull();
      expect(m.r_ves!).toBeGreaterThanOrEqual(m.ex * 0.5 - 1e-9);
      expect(m.r_ves!).toBeLessThanOrEqual(m.ex * Math.sqrt(1.25) + 1e-9);
      for (const c of r.cases) expect(c.policy_preset?.rves?.iterations).toBe(3);
      expect(r.cases.filter((c) => c.outcome === 'correct').every((c) => c.policy_preset!.rves!.reward > 0)).toBe(true);
      expect(r.cases.filter((c) => c.outcome !== 'correct').every((c) => c.policy_preset!.rves!.reward === 0)).toBe(
        true,
      );
    }
    expect(await text('bird-r-ves')).toBe(timed.policy_preset!.bird_metrics!.r_ves!.toFixed(2));
    expect(await text('bird-ves')).toBe(timed.policy_preset!.bird_metrics!.ves!.toFixed(2));
    expect(await difficultyTable()).toEqual(difficultyRows(timed.policy_preset!.bird_metrics!));
    // VES from the same per-case time ratios: 100 · Σ√ratio / N over the correct cases.
    const roots = timed.cases.map((c) => (c.outcome === 'correct' ? Math.sqrt(c.policy_preset!.rves!.time_ratio) : 0));
    expect(timed.policy_preset!.bird_metrics!.ves).toBeCloseTo(
      (100 * roots.reduce((x, y) => x + y, 0)) / roots.length,
      10,
    );
  });

  test('Cancel while the cases are judged again under BIRD cancels the run: no half-judged preset figures', async () => {
    await page.goto(`${app.origin}/#/`);
    await page.getByTestId('input-folder').setInputFiles(path.join(repoRoot, BIRD));
    await expect.poll(() => page.getByTestId('chosen-run').getAttribute('data-ok'), { timeout: 30_000 }).toBe('true');
    await expect.poll(() => page.getByTestId('policy').inputValue()).toBe('bird');
    // Many timed runs per correct case, so the re-judging lasts long enough to be cancelled.
    await page.getByTestId('ves-iterations').fill('400');
    await page.getByTestId('start').click();
    await page.getByTestId('progress-policy').waitFor({ timeout: 300_000 });
    await page.getByTestId('cancel-run').click();
    await expect.poll(() => text('run-status'), { timeout: 60_000 }).toBe('cancelled');
    expect(await text('run-error')).toBe('The run was cancelled while it was judged again under the policy preset.');
    expect(await page.getByTestId('card-preset').count()).toBe(0);
  });

  test("any run can be graded under a preset: the built-in demo under Spider gives the CLI's figures", async () => {
    await page.goto(`${app.origin}/#/`);
    // The page still holds the last benchmark folder's corpus and run: wait for each new choice by its name.
    await page.getByRole('radio', { name: /^execution_goldens\.yaml/ }).check();
    await expect.poll(() => text('chosen-corpus'), { timeout: 30_000 }).toMatch(/^execution_goldens\.yaml/);
    await page.getByRole('radio', { name: /^demo-flawed\.run\.json/ }).check();
    await expect.poll(() => text('chosen-run'), { timeout: 30_000 }).toMatch(/^demo-flawed\.run\.json/);
    await expect.poll(() => page.getByTestId('chosen-run').getAttribute('data-ok'), { timeout: 30_000 }).toBe('true');
    expect(await page.getByTestId('policy').inputValue()).toBe('sql-verdict');
    await page.getByTestId('policy').selectOption('spider');
    await page.getByTestId('start').click();
    await page.getByTestId('card-preset').waitFor({ timeout: 600_000 });
    const a = demoSpider.summary.answer_accuracy;
    expect(await text('accuracy-counts')).toBe(`${a.correct} / ${a.total} correct`);
    expect(await page.getByTestId('preset-lines').textContent()).toBe(presetLines(demoSpider).join('\n'));
    const mine = await exported();
    expect(verdicts(mine)).toEqual(verdicts(demoSpider));
    expect(mine.policy_preset).toEqual(demoSpider.policy_preset);
  }, 600_000);

  test('a report the CLI wrote under --policy bird (timed) opens with the same preset figures, per difficulty, R-VES and VES included', async () => {
    await page.goto(`${app.origin}/#/`);
    await drop([{ name: 'bird-preset.json', bytes: Buffer.from(JSON.stringify(birdTimed, null, 2)) }]);
    await page.getByTestId('opened-from').waitFor({ timeout: 30_000 });
    const m = birdTimed.policy_preset!.bird_metrics!;
    expect(await text('preset-ex')).toBe(m.ex.toFixed(2));
    expect(await text('bird-r-ves')).toBe(m.r_ves!.toFixed(2));
    expect(await text('bird-ves')).toBe(m.ves!.toFixed(2));
    expect(await difficultyTable()).toEqual(difficultyRows(m));
    expect(await page.getByTestId('preset-lines').textContent()).toBe(presetLines(birdTimed).join('\n'));
    await page.goto(`${page.url()}/cases/q0000`);
    await page.getByTestId('case-preset').waitFor();
    const v = birdTimed.cases[0]!.policy_preset!;
    expect(await text('case-soft-f1')).toBe(v.soft_f1!.toFixed(4));
    expect(await text('case-rves')).toBe(
      `time ratio ${v.rves!.time_ratio.toFixed(3)} (gold / prediction, 3 runs) · reward ${v.rves!.reward}`,
    );
  });

  test('a report the CLI wrote opens in the results views with the counts the CLI printed (JSON and JSONL)', async () => {
    const printed = /Answer accuracy: (\d+)\/(\d+)/.exec(birdPrinted)!;
    await page.goto(`${app.origin}/#/`);
    await drop([{ name: 'bird-report.json', bytes: readFileSync(path.join(dir, 'bird-report.json')) }]);
    await page.getByTestId('opened-from').waitFor({ timeout: 30_000 });
    expect(page.url()).toMatch(/#\/runs\/[^/]+$/);
    expect(await text('accuracy-counts')).toBe(`${printed[1]} / ${printed[2]} correct`);
    expect(await text('run-status')).toBe('done');
    expect(verdicts(await exported())).toEqual(verdicts(birdCli));

    const { cases, ...head } = birdCli;
    const jsonl = [JSON.stringify(head), ...cases.map((c) => JSON.stringify(c))].join('\n');
    await page.goto(`${app.origin}/#/`);
    await page
      .getByTestId('input-files')
      .setInputFiles({ name: 'bird-report.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(jsonl) });
    await page.getByTestId('opened-from').waitFor({ timeout: 30_000 });
    expect(await text('opened-from')).toMatch(/bird-report\.jsonl \(JSONL report/);
    expect(await text('accuracy-counts')).toBe(`${printed[1]} / ${printed[2]} correct`);
  });

  test('a small run shared as a link reopens in a fresh browser with the same counts; a changed or cut link is refused', async () => {
    await page.goto(`${app.origin}/#/`);
    await drop([{ name: 'bird-report.json', bytes: readFileSync(path.join(dir, 'bird-report.json')) }]);
    await page.getByTestId('opened-from').waitFor({ timeout: 30_000 });
    await page.getByTestId('share-run').click();
    const href = (await page.getByTestId('share-run-link').getAttribute('href'))!;
    expect(href).toMatch(/#\/r\/[A-Za-z0-9_-]+$/);
    console.log(`run link: ${href.length} characters for ${birdCli.cases.length} cases`);
    const other = await openPage(browser, app.origin, { viewport: { width: 1280, height: 800 } }, { pageErrors });
    try {
      await other.page.goto(href);
      await other.page.getByTestId('summary-cards').waitFor({ timeout: 60_000 });
      const a = birdCli.summary.answer_accuracy;
      expect(((await other.page.getByTestId('accuracy-counts').textContent()) ?? '').trim()).toBe(
        `${a.correct} / ${a.total} correct`,
      );
      const at = href.indexOf('#/r/') + 60;
      const changed = `${href.slice(0, at)}${href[at] === 'A' ? 'B' : 'A'}${href.slice(at + 1)}`;
      await other.page.goto(changed);
      await expect
        .poll(async () => (await other.page.getByTestId('share-run-error').textContent({ timeout: 30_000 })) ?? '')
        .toMatch(/changed or cut|corrupt/);
      await other.page.goto(href.slice(0, -25));
      await expect
        .poll(async () => (await other.page.getByTestId('share-run-error').textContent({ timeout: 30_000 })) ?? '')
        .toMatch(/changed or cut|corrupt/);
    } finally {
      await other.context.close();
    }
  });

  test('at 390 px the failures table scrolls inside itself: the page does not overflow and the Reason column is not squeezed', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${app.origin}/#/`);
      await drop([{ name: 'bird-report.json', bytes: readFileSync(path.join(dir, 'bird-report.json')) }]);
      await page.getByTestId('failures').waitFor({ timeout: 30_000 });
      const measured = await page.evaluate(() => {
        const doc = document.scrollingElement!;
        const reasons = [...document.querySelectorAll('[data-testid=failures] td.reason')].map(
          (td) => td.getBoundingClientRect().width,
        );
        return { scrollWidth: doc.scrollWidth, innerWidth, narrowestReason: Math.min(...reasons) };
      });
      console.log(
        `390 px: document ${measured.scrollWidth} px wide, narrowest Reason cell ${Math.round(measured.narrowestReason)} px`,
      );
      expect(measured.scrollWidth).toBeLessThanOrEqual(measured.innerWidth);
      // A readable line of reason text (about 30 characters), not a word per line.
      expect(measured.narrowestReason).toBeGreaterThanOrEqual(200);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  test('an edited report is refused with the field named', async () => {
    await page.goto(`${app.origin}/#/`);
    const edited = structuredClone(birdCli);
    edited.summary.answer_accuracy.correct += 1;
    await page.getByTestId('input-files').setInputFiles({
      name: 'edited.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(edited, null, 2)),
    });
    await expect
      .poll(() => text('file-errors'))
      .toMatch(/edited\.json:\d+ \(field summary\.answer_accuracy\.correct\): the summary disagrees/);
  });

  test('a report of 2146 right of 2147 shows 99.95% as the CLI prints it, never 100.0%', async () => {
    // Spider's test split is 2147 questions: one decimal rounded 2146 of them to "100.0%" on the results cards.
    const results = mixCases({ correct: 2146, wrong: 1, refused: 2000, missed: 1 });
    const summary = summarizeRun(
      results,
      { name: birdCli.corpus.name, version: birdCli.corpus.version, sha256: birdCli.corpus.sha256 },
      birdCli.summary.run,
      { reliabilityPenalty: birdCli.summary.reliability.c },
    );
    if (!summary.ok) throw new Error(summary.error.message);
    const { policy_preset: _preset, ...head } = birdCli;
    const big: RunReport = {
      ...head,
      corpus: { ...birdCli.corpus, size: results.length },
      summary: summary.value,
      judge_summary: null,
      cases: results.map((k) => ({
        id: k.id,
        outcome: k.outcome,
        reason: k.reason ?? null,
        reason_code: null,
        query: k.query ?? null,
        arm: k.arm ?? null,
        stratum: k.stratum ?? null,
        shape: k.shape ?? null,
        difficulty: k.difficulty ?? null,
        fixture: 'retail',
        question: `question ${k.id}`,
        enriched_question: null,
        report: null,
        review_flags: [],
      })),
    };
    // What `sql-verdict run` prints for this report.
    const printed = summarizeRunReport(big);
    expect(printed).toContain('Answer accuracy: 2146/2147 (99.95%)');
    expect(printed).toContain('Refusal recall: 2000/2001 (99.95%)');
    await page.goto(`${app.origin}/#/`);
    await page.getByTestId('input-files').setInputFiles({
      name: 'spider-test-size.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(big)),
    });
    await page.getByTestId('opened-from').waitFor({ timeout: 30_000 });
    const card = (id: string) => page.locator(`[data-testid=${id}] .value`).first().textContent();
    expect(await card('card-accuracy')).toBe(percent(2146 / 2147));
    expect(await card('card-accuracy')).toBe('99.95%');
    expect(await card('card-refusal')).toBe('99.95%');
    // The interval bar's label says it the same way.
    expect(await page.locator('[data-testid=card-accuracy] svg.ci').getAttribute('aria-label')).toMatch(/^99\.95%, /);
    const shown = (await page.getByTestId('summary-cards').textContent()) ?? '';
    expect(shown).not.toContain('100.0%');
  });

  test('no request left the origin and the page raised no error', () => {
    expect(foreign).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
