/**
 * The browser bench page (built only by bench/browser-engines.ts, never
 * shipped): drives the real app worker without the UI, so the figures are
 * the pipeline's own, not the page's rendering.
 */
import { wrap } from 'comlink';
import type { EngineName, FixtureSource } from '../../src/core/engine.ts';
import type { AppApi } from '../../src/worker/app.worker.ts';
import { DEMO_FIXTURE_NAME, DEMO_SQL } from '../../src/ui/state/demo-fixture.ts';

export interface PageRun {
  /** Page: create the app worker until it answers a no-op call. */
  appWorkerStartMs: number;
  /** App worker: spawn the engine host until the engine answers. */
  engineStartMs: number;
  /** Page-side wall time of the same. */
  engineStartPageMs: number;
  version: string;
  loads: { name: string; loadMs: number; wallMs: number; pageMs: number }[];
  /** Page ↔ app worker round trip of a no-op call (pure messaging). */
  noopMs: number[];
  probe: { engineMs: number; workerMs: number; roundTripMs: number }[];
}

function sqlFixture(name: string, sql: string): FixtureSource {
  return { name, files: [{ fileName: `${name}.sql`, format: 'sql', bytes: new TextEncoder().encode(sql) }] };
}

async function run(
  engine: EngineName,
  dump: { name: string; sql: string },
  runs: number,
  probeSql: string,
): Promise<PageRun> {
  const begin = performance.now();
  const worker = new Worker(new URL('../../src/worker/app.worker.ts', import.meta.url), { type: 'module' });
  const api = wrap<AppApi>(worker);
  try {
    await api.cancel('none');
    const appWorkerStartMs = performance.now() - begin;
    const t = performance.now();
    const started = await api.startEngine(engine);
    if (!started.ok) throw new Error(started.error.message);
    const engineStartPageMs = performance.now() - t;
    const loads = [];
    // The demo twice: right after start-up, and again on a warmed-up engine.
    for (const fixture of [
      sqlFixture(DEMO_FIXTURE_NAME, DEMO_SQL),
      sqlFixture(dump.name, dump.sql),
      sqlFixture(DEMO_FIXTURE_NAME, DEMO_SQL),
    ]) {
      const l = performance.now();
      const loaded = await api.loadFixture(engine, fixture);
      if (!loaded.ok) throw new Error(loaded.error.message);
      loads.push({
        name: fixture.name,
        loadMs: loaded.value.loadMs,
        wallMs: loaded.value.wallMs,
        pageMs: performance.now() - l,
      });
    }
    const noopMs: number[] = [];
    for (let i = 0; i < runs + 5; i++) {
      const n = performance.now();
      await api.cancel('none');
      if (i >= 5) noopMs.push(performance.now() - n);
    }
    const probe = [];
    for (let i = 0; i < runs + 5; i++) {
      const q = performance.now();
      const outcome = await api.execute({ engine, sql: probeSql });
      const roundTripMs = performance.now() - q;
      if (!outcome.ok) throw new Error(`${probeSql}: ${outcome.error.message}`);
      if (i >= 5) probe.push({ engineMs: outcome.value.elapsedMs, workerMs: outcome.wallMs, roundTripMs });
    }
    return {
      appWorkerStartMs,
      engineStartMs: started.value.startMs,
      engineStartPageMs,
      version: started.value.version,
      loads,
      noopMs,
      probe,
    };
  } finally {
    await api.close();
    worker.terminate();
  }
}

(globalThis as unknown as { sqlVerdictBench: { run: typeof run } }).sqlVerdictBench = { run };
