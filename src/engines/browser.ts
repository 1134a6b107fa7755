/**
 * Engines for the browser: each engine runs in its own module Web Worker
 * (an engine host), supervised, so a query the engine cannot cancel is
 * stopped by terminating the worker. DuckDB's own worker is nested inside
 * the host and dies with it.
 */
import { wrap } from 'comlink';
import type { EngineName } from '../core/engine.ts';
import { duckDbWasmModule } from './duckdb/wasm-module.ts';
import type { EngineHostApi } from './host-api.ts';
import { SupervisedEngine, type HostHandle, type SupervisorOptions } from './supervisor.ts';

/**
 * A host that has not started by then is given up (and the next call starts
 * another): DuckDB fetches and compiles 34 MB of wasm, and a page served
 * without 'wasm-unsafe-eval' hangs in instantiate() instead of failing.
 */
const START_TIMEOUT_MS = 120_000;

function spawnWorkerHost(): HostHandle {
  const worker = new Worker(new URL('../worker/engine-host.worker.ts', import.meta.url), {
    type: 'module',
    name: 'engine-host',
  });
  let terminated = false;
  let died: (reason: string) => void = () => {};
  const exited = new Promise<string>((resolve) => {
    died = resolve;
    // A module that fails to load, or an uncaught error: the host is no longer trustworthy.
    worker.addEventListener('error', (event) =>
      resolve(`worker error: ${event.message || 'the engine worker failed to start'}`),
    );
    worker.addEventListener('messageerror', () => resolve('worker message could not be deserialized'));
  });
  const terminate = () => {
    if (terminated) return;
    terminated = true;
    worker.terminate();
  };
  const remote = wrap<EngineHostApi>(worker);
  // The supervisor sends load right behind init; init may first wait for the compiled wasm, so every
  // later call goes out once init's message has (the host needs init first).
  let initPosted: Promise<void> = Promise.resolve();
  return {
    api: {
      async init(engine, settings) {
        const watchdog = setTimeout(() => {
          terminate();
          died(`the ${engine} engine did not start within ${START_TIMEOUT_MS / 1000} s`);
        }, START_TIMEOUT_MS);
        // Compiled once for every DuckDB host this thread starts (the watchdog covers the download too).
        const compiled = engine === 'duckdb' ? duckDbWasmModule() : Promise.resolve(null);
        const started = compiled.then((module) =>
          remote.init(engine, module ? { ...settings, duckdbWasmModule: module } : settings),
        );
        initPosted = compiled.then(() => undefined);
        try {
          return await started;
        } finally {
          clearTimeout(watchdog);
        }
      },
      load: async (fixture) => {
        await initPosted;
        return remote.load(fixture);
      },
      execute: async (sql, options) => {
        await initPosted;
        return remote.execute(sql, options);
      },
      contentDigest: async () => {
        await initPosted;
        return remote.contentDigest();
      },
      explain: async (sql, options) => {
        await initPosted;
        return remote.explain(sql, options);
      },
      sandboxState: async () => {
        await initPosted;
        return remote.sandboxState();
      },
      cancel: () => remote.cancel(),
    },
    terminate,
    exited,
  };
}

/** Start an engine (DuckDB-WASM or sql.js) in a supervised Web Worker. */
export function openEngine(name: EngineName, options: SupervisorOptions = {}): SupervisedEngine {
  return new SupervisedEngine(name, spawnWorkerHost, options);
}
