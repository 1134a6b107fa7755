/**
 * Neighbour databases in headless Chromium (bench/neighbours.ts prints it): per Spider
 * database, the time to generate one neighbour in the page (core generator + SQL dump),
 * the app worker's neighbour stage per neighbour (dump loaded into its scratch sql.js
 * engine host, both queries run), and the renderer processes' resident memory.
 */
import { readFileSync } from 'node:fs';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_PATH } from '../tests/browser/harness.ts';
import { serveBenchApp } from './browser-engines.ts';
import type { NeighbourRun } from './browser/bench-page.ts';

/** Resident memory (bytes) of the renderer processes below `root` (the browser's own process). */
function rendererRss(root: number): number {
  const parent = new Map<number, number>();
  const cmd = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      cmd.set(Number(entry), readFileSync(`/proc/${entry}/cmdline`, 'utf8'));
    } catch {
      // gone meanwhile
    }
  }
  const below = (pid: number): boolean => {
    for (let p = parent.get(pid), n = 0; p !== undefined && n < 10; p = parent.get(p), n++) if (p === root) return true;
    return false;
  };
  let total = 0;
  for (const [pid, line] of cmd) {
    if (!line.includes('--type=renderer') || !below(pid)) continue;
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) total += Number(m[1]) * 1024;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

export async function benchBrowserNeighbours(
  spider: string,
  dbs: [db: string, table: string][],
  k: number,
): Promise<string[]> {
  const app = await serveBenchApp();
  const server = await chromium.launchServer({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-sync'],
  });
  const browser = await chromium.connect(server.wsEndpoint());
  const root = server.process().pid!;
  const out = [
    `headless Chromium ${browser.version()}; generate in the page, load + both queries in the app worker's scratch engine`,
    '',
    '| database | fixture rows | rows per neighbour | generate + dump ms | dump KB | neighbour stage ms per neighbour | renderer RSS before → peak (MB) |',
    '|---|--:|--:|--:|--:|--:|--:|',
  ];
  try {
    for (const [db, table] of dbs) {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(`${app.origin}/bench/browser/index.html`);
        const base64 = readFileSync(path.join(spider, 'database', db, `${db}.sqlite`)).toString('base64');
        const before = rendererRss(root);
        let peak = before;
        const sampler = setInterval(() => (peak = Math.max(peak, rendererRss(root))), 50);
        let run: NeighbourRun;
        try {
          run = await page.evaluate(
            (a) =>
              (
                globalThis as unknown as {
                  sqlVerdictBench: { neighbours: (...x: unknown[]) => Promise<NeighbourRun> };
                }
              ).sqlVerdictBench.neighbours(a.db, a.base64, a.k, a.table),
            { db, base64, k, table },
          );
        } finally {
          clearInterval(sampler);
        }
        peak = Math.max(peak, rendererRss(root));
        const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
        const per = run.compare.neighbourStageMs / Math.max(1, run.compare.checked + run.compare.discarded);
        out.push(
          `| ${db} | ${run.rows} (snapshot ${run.snapshotMs.toFixed(0)} ms) | ${mean(run.neighbourRows).toFixed(0)} | ${mean(run.generateMs).toFixed(1)} | ${(mean(run.dumpBytes) / 1024).toFixed(0)} | ${per.toFixed(1)} (${run.compare.checked} checked, ${run.compare.discarded} discarded) | ${(before / 1048576).toFixed(0)} → ${(peak / 1048576).toFixed(0)} |`,
        );
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
    await server.close();
    await app.close();
  }
  return out;
}
