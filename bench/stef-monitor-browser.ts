/**
 * The Monitor view on a generated production log in headless Chromium (production build, `npm run build` first):
 * the log of bench/stef-log.ts's generator (default 10^5 lines, 5,000 distinct queries) picked in the file input,
 * timed from the pick until the per-agent table shows; the worker's own time; the longest gap between ticks of a
 * 50 ms timer on the page (how long the page's thread was blocked); and the downloaded JSON report against
 * `sql-verdict stef --log FILE --json` on the same file, byte for byte (the CLI timed too).
 *
 *   node --import tsx bench/stef-monitor-browser.ts [--lines 100000] [--distinct 5000]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, serveBuiltApp } from '../tests/browser/harness.ts';
import { describe, timed } from './shard-merge.ts';
import { sampleLogRecords, writeStefLog } from './stef-log.ts';

export interface MonitorBrowserResult {
  lines: number;
  bytes: number;
  /** File picked → per-agent table shown (page clock). */
  seconds: number;
  /** The worker's time, as the page shows it. */
  workerSeconds: number;
  maxGapMs: number;
  progressTexts: number;
  equalToCli: boolean;
  report: string[];
}

export async function benchMonitorBrowser(
  repo: string,
  options: { lines?: number; distinct?: number } = {},
): Promise<MonitorBrowserResult> {
  const n = options.lines ?? 100_000;
  const sample = sampleLogRecords(repo);
  const distinct = Math.max(sample.length, options.distinct ?? 5000);
  const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-monitor-bench-'));
  const file = path.join(dir, 'log.jsonl');
  const report: string[] = [
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  ];
  const [app, browser] = await Promise.all([serveBuiltApp(), launchChromium()]);
  try {
    const { bytes } = await writeStefLog(sample, file, n, Math.ceil(distinct / sample.length));
    report.push(
      `log: ${n.toLocaleString('en')} lines, ${(bytes / 2 ** 20).toFixed(0)} MiB, ${distinct} distinct queries`,
    );
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(600_000);
    await page.goto(`${app.origin}/#/monitor`);
    // The sample log first: the view and the worker are up before the clock starts.
    await page.getByTestId('agents').waitFor();
    await page.evaluate(() => {
      const w = window as unknown as { __maxGap: number; __seen: number; __stop: () => void; __long: number[] };
      w.__maxGap = 0;
      w.__seen = 0;
      w.__long = [];
      // The page's own long tasks (over 50 ms), to tell what a gap was.
      const long = new PerformanceObserver((list) => w.__long.push(...list.getEntries().map((e) => e.duration)));
      long.observe({ type: 'longtask' });
      let last = performance.now();
      const tick = setInterval(() => {
        const now = performance.now();
        w.__maxGap = Math.max(w.__maxGap, now - last);
        last = now;
      }, 50);
      const observer = new MutationObserver(() => {
        if (document.querySelector('[data-testid="monitor-lines"]')) w.__seen++;
      });
      observer.observe(document.body, { subtree: true, childList: true, characterData: true });
      w.__stop = () => {
        clearInterval(tick);
        observer.disconnect();
        long.disconnect();
      };
    });
    const t0 = performance.now();
    await page.getByTestId('log-file').setInputFiles(file);
    await page.getByTestId('agents').waitFor();
    const seconds = (performance.now() - t0) / 1000;
    const { maxGapMs, progressTexts, longTasks } = await page.evaluate(() => {
      const w = window as unknown as { __maxGap: number; __seen: number; __stop: () => void; __long: number[] };
      w.__stop();
      return { maxGapMs: w.__maxGap, progressTexts: w.__seen, longTasks: w.__long };
    });
    const workerSeconds = Number(await page.getByTestId('monitor-seconds').textContent());
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('monitor-export-json').click(),
    ]);
    const exported = readFileSync((await download.path())!, 'utf8');
    report.push(
      `Chromium Monitor view: ${seconds.toFixed(1)} s from the pick to the report (${workerSeconds.toFixed(1)} s in the worker), ${((n / seconds) | 0).toLocaleString('en')} lines/s, ${progressTexts} progress updates, longest main-thread gap ${Math.round(maxGapMs)} ms; page long tasks: ${longTasks.length ? `${longTasks.length}, ${longTasks.map((d) => Math.round(d)).join(', ')} ms` : 'none'}`,
    );
    const cli = await timed(
      process.execPath,
      [path.join(repo, 'bin', 'sql-verdict.mjs'), 'stef', '--log', file, '--json'],
      repo,
    );
    if (cli.code !== 0) throw new Error(`sql-verdict stef --log exited ${cli.code}:\n${cli.stderr.slice(-2000)}`);
    const equalToCli = exported === cli.stdout;
    report.push(`sql-verdict stef --log: ${describe(cli)}; the page's JSON report ${equalToCli ? '=' : '≠'} the CLI's`);
    return { lines: n, bytes, seconds, workerSeconds, maxGapMs, progressTexts, equalToCli, report };
  } finally {
    await browser.close();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const result = await benchMonitorBrowser(repo, {
    lines: arg('--lines') ? Number(arg('--lines')) : undefined,
    distinct: arg('--distinct') ? Number(arg('--distinct')) : undefined,
  });
  console.log(result.report.join('\n'));
  process.exit(result.equalToCli ? 0 : 1);
}
