/**
 * The engine contract (tests/engines/contract-cases.ts) in Chromium: DuckDB,
 * SQLite and PGlite in their engine host Web Workers behind the app worker, as the app
 * runs them. A contract page (tests/browser/contract/, built here with the
 * app, never shipped) runs every case's SQL and returns the results in the
 * value model's JSON form; each is read back and every kind and cell is
 * asserted as in the Node run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { EngineName } from '../../src/core/engine.ts';
import { decodeResultTable } from '../../src/core/value/json-codec.ts';
import { CASES, normalizeCell, rowsOf } from '../engines/contract-cases.ts';
import { repoRoot } from '../helpers/paths.ts';
import type { PageOutcome } from './contract/contract-page.ts';
import { launchChromium, openPage, serveBuiltApp, type ServedApp, BROWSER_TEST_MS } from './harness.ts';

// Each test starts the production app in Chromium beside the engine tests' workers: minutes, not seconds, on a busy
// CI machine (the suite's 60 s default is for the unit tests).
vi.setConfig({ testTimeout: BROWSER_TEST_MS });

// A private build (app + contract page) outside the repository: parallel runs do not collide.
const OUT_DIR = mkdtempSync(path.join(tmpdir(), 'sql-verdict-contract-'));
const outcomes: Partial<Record<EngineName, PageOutcome[]>> = {};
let app: ServedApp;
let browser: Browser;
const pageErrors: string[] = [];

beforeAll(async () => {
  await build({
    root: repoRoot,
    logLevel: 'error',
    build: {
      outDir: OUT_DIR,
      emptyOutDir: true,
      rolldownOptions: {
        input: {
          app: path.join(repoRoot, 'index.html'),
          contract: path.join(repoRoot, 'tests/browser/contract/index.html'),
        },
      },
    },
  });
  app = await serveBuiltApp(OUT_DIR);
  browser = await launchChromium();
  const { page } = await openPage(browser, app.origin, {}, { pageErrors });
  await page.goto(`${app.origin}/tests/browser/contract/index.html`);
  await page.waitForFunction(() => 'sqlVerdictContract' in globalThis);
  for (const engine of ['duckdb', 'sqlite', 'pglite'] as const) {
    const sqls = CASES.map((c) => c[engine].sql);
    outcomes[engine] = await page.evaluate(
      ([name, list]) =>
        (
          globalThis as unknown as { sqlVerdictContract: { run: (e: string, s: string[]) => Promise<PageOutcome[]> } }
        ).sqlVerdictContract.run(name, list),
      [engine, sqls] as const,
    );
  }
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(OUT_DIR, { recursive: true, force: true });
});

for (const engineName of ['duckdb', 'sqlite', 'pglite'] as const) {
  describe(`engine contract in Chromium: ${engineName}`, () => {
    CASES.forEach((c, i) => {
      it(c.name, () => {
        const expectation = c[engineName];
        const outcome = outcomes[engineName]![i]!;
        if (!outcome.ok) throw new Error(outcome.error);
        const result = decodeResultTable(outcome.table);
        expect(result.columns.map((col) => col.kind)).toEqual(expectation.kinds);
        if (expectation.names) expect(result.columns.map((col) => col.name)).toEqual(expectation.names);
        if (expectation.engineTypes)
          expect(result.columns.map((col) => col.engineType)).toEqual(expectation.engineTypes);
        if (expectation.children)
          expectation.children.forEach((kinds, k) => {
            if (kinds)
              expect(
                result.columns[k]!.children?.map((child) => child.kind),
                `children of column ${k}`,
              ).toEqual(kinds);
          });
        expect(result.rows.map((row) => row.map(normalizeCell))).toEqual(
          rowsOf(expectation).map((row) => row.map(normalizeCell)),
        );
      });
    });
  });
}

describe('engine contract in Chromium: the page', () => {
  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
