/**
 * The attack list of tests/engines/attacks.ts in Chromium, on DuckDB, SQLite and PGlite as
 * the app runs them (supervised engine host Web Workers, production build of
 * a test-only page): 0 successes, and the fixture digest and the engine state
 * (settings, logs, temporary objects, variables) unchanged after each attack;
 * on the frozen-clock fixture every clock path is refused or frozen.
 */
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { repoRoot } from '../helpers/paths.ts';
import { launchChromium, serveBuiltApp, type ServedApp, BROWSER_WAIT_MS, BROWSER_TEST_MS } from './harness.ts';
import type { AttackResult, BudgetResult } from './sandbox-page/sandbox-page.ts';

// Each test starts the production app in Chromium beside the engine tests' workers: minutes, not seconds, on a busy
// CI machine (the suite's 60 s default is for the unit tests).
vi.setConfig({ testTimeout: BROWSER_TEST_MS });

const OUT_DIR = '.test-dist/sandbox';

let app: ServedApp;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  await build({
    root: repoRoot,
    logLevel: 'error',
    build: {
      outDir: path.join(repoRoot, OUT_DIR),
      emptyOutDir: true,
      rolldownOptions: {
        input: {
          app: path.join(repoRoot, 'index.html'),
          sandbox: path.join(repoRoot, 'tests/browser/sandbox-page/index.html'),
        },
      },
    },
  });
  app = await serveBuiltApp(OUT_DIR);
  browser = await launchChromium();
  page = await browser.newPage();
  page.setDefaultTimeout(BROWSER_WAIT_MS);
  await page.goto(`${app.origin}/tests/browser/sandbox-page/index.html`);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

for (const engine of ['duckdb', 'sqlite', 'pglite'] as const) {
  describe(`attack list: ${engine} in Chromium`, () => {
    let results: { version: string; attacks: AttackResult[]; clock: AttackResult[] };

    beforeAll(async () => {
      results = await page.evaluate(
        (name) =>
          (
            globalThis as unknown as { sqlVerdictSandbox: { run: (e: string) => Promise<typeof results> } }
          ).sqlVerdictSandbox.run(name),
        engine,
      );
      console.log(
        `${engine} in Chromium (${results.version}): ${results.attacks.length} attacks, ${results.clock.length} clock probes`,
      );
    }, 300_000);

    it('refuses every attack, with digest and state unchanged after each', () => {
      expect(results.attacks.length).toBeGreaterThan(30);
      expect(results.attacks.filter((a) => a.ok)).toEqual([]);
      expect(results.attacks.filter((a) => !a.stateSame || !a.digestSame)).toEqual([]);
      const wrongKind = results.attacks.filter(
        (a) => a.expectedKind && (a.code !== 'sandbox.statement_rejected' || a.kind !== a.expectedKind),
      );
      expect(wrongKind).toEqual([]);
    });

    // PGlite reads it through a cursor, a batch at a time (src/engines/pglite/result-builder.ts).
    it('stops a 1M x 8 KB result at the byte budget while it streams; the same engine serves the next query', async () => {
      const got = await page.evaluate(
        (name) =>
          (
            globalThis as unknown as { sqlVerdictSandbox: { budget: (e: string) => Promise<BudgetResult> } }
          ).sqlVerdictSandbox.budget(name),
        engine,
      );
      expect(got.huge).toMatchObject({ ok: false, code: 'sandbox.resource_exhausted' });
      expect(got.huge.message).toMatch(/larger than 4 MiB \(max_result_bytes/);
      // 16,408 decoded bytes a row (value/size.ts), as in Node (tests/engines/pg-suite.ts).
      if (engine === 'pglite') expect(got.huge.message).toMatch(/stopped after 255 rows\.$/);
      expect(got).toMatchObject({ next: '42', restarts: 0, under: 100 });
    }, 120_000);

    it('keeps the clock frozen on every path', () => {
      const leaks = results.clock.filter((c) => (c.frozen === 'refused' ? c.ok : !c.ok || c.cell !== c.frozen));
      expect(leaks).toEqual([]);
      expect(results.clock.filter((c) => !c.stateSame || !c.digestSame)).toEqual([]);
    });
  });
}
