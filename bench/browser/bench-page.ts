/**
 * The browser bench page (built only by bench/browser-engines.ts, never
 * shipped): drives the real app worker without the UI, so the figures are
 * the pipeline's own, not the page's rendering.
 */
import { wrap } from 'comlink';
import type { Engine, EngineName, FixtureSource } from '../../src/core/engine.ts';
import { generateNeighbour, neighbourDump, neighbourSeed } from '../../src/core/neighbours/generate.ts';
import { planNeighbours } from '../../src/core/neighbours/plan.ts';
import { readSnapshot } from '../../src/core/neighbours/snapshot.ts';
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

export interface NeighbourRun {
  tables: number;
  rows: number;
  snapshotMs: number;
  /** Per neighbour, in this page's main thread: generate the data and write the SQL dump. */
  generateMs: number[];
  dumpBytes: number[];
  neighbourRows: number[];
  /** The app's own path: `compare` with neighbours K through the app worker (snapshot cached by then). */
  compare: { k: number; checked: number; discarded: number; neighbourStageMs: number; wallMs: number };
}

/** Neighbours of one Spider database (an SQLite file) in the browser: the core's generator and the app worker's scratch engine. */
async function neighbours(db: string, base64: string, k: number, table: string): Promise<NeighbourRun> {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const fixture: FixtureSource = { name: db, files: [{ fileName: `${db}.sqlite`, format: 'sqlite', bytes }] };
  const worker = new Worker(new URL('../../src/worker/app.worker.ts', import.meta.url), { type: 'module' });
  const api = wrap<AppApi>(worker);
  try {
    const started = await api.startEngine('sqlite');
    if (!started.ok) throw new Error(started.error.message);
    const loaded = await api.loadFixture('sqlite', fixture);
    if (!loaded.ok) throw new Error(loaded.error.message);
    // The engine seen from the page: the snapshot reads the catalog and rows through the app worker, as the stage does in it.
    const viaWorker = {
      name: 'sqlite',
      execute: (sql: string, o?: { maxRows?: number; timeoutMs?: number }) =>
        api.execute({
          engine: 'sqlite',
          sql,
          ...(o?.maxRows ? { maxRows: o.maxRows } : {}),
          ...(o?.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
        }),
    } as unknown as Engine;
    let t = performance.now();
    const snap = await readSnapshot(viaWorker);
    if (!snap.ok) throw new Error(snap.error.message);
    const snapshotMs = performance.now() - t;
    const sql = `SELECT count(*) FROM "${table}"`;
    const plan = planNeighbours(
      [sql],
      snap.value.tables.flatMap((x) => x.columns.map((c) => c.name)),
    );
    const generateMs: number[] = [];
    const dumpBytes: number[] = [];
    const neighbourRows: number[] = [];
    for (let i = 0; i < k; i++) {
      t = performance.now();
      const data = generateNeighbour(snap.value, plan, neighbourSeed(1, i));
      const dump = neighbourDump(snap.value, data);
      generateMs.push(performance.now() - t);
      if ('unsupported' in dump) throw new Error(dump.unsupported);
      dumpBytes.push(dump.sql.length);
      neighbourRows.push(data.tables.reduce((s, x) => s + x.rows.length, 0));
    }
    const compare = (n: number) =>
      api.compare({
        engine: 'sqlite',
        fixture,
        question: '',
        expectedSql: sql,
        actualSql: sql,
        config: { neighbours: n, enable_counterfactuals: false, neighbour_budget_ms: 600_000 },
      });
    const warm = await compare(1); // starts the scratch engine host and reads the snapshot once
    if (!warm.ok) throw new Error(warm.error.message);
    t = performance.now();
    const report = await compare(k);
    const wallMs = performance.now() - t;
    if (!report.ok) throw new Error(report.error.message);
    const n = report.value.evidence.neighbours!;
    return {
      tables: snap.value.tables.length,
      rows: snap.value.totalRows,
      snapshotMs,
      generateMs,
      dumpBytes,
      neighbourRows,
      compare: { k, checked: n.checked, discarded: n.discarded.length, neighbourStageMs: n.elapsed_ms, wallMs },
    };
  } finally {
    await api.close();
    worker.terminate();
  }
}

(globalThis as unknown as { sqlVerdictBench: { run: typeof run; neighbours: typeof neighbours } }).sqlVerdictBench = {
  run,
  neighbours,
};
