/**
 * Engines for the browser: each engine runs in its own module Web Worker
 * (an engine host), supervised, so a query the engine cannot cancel is
 * stopped by terminating the worker. DuckDB's own worker is nested inside
 * the host and dies with it.
 */
import { wrap } from 'comlink';
import type { EngineName } from '../core/engine.ts';
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
  return {
    api: {
      async init(engine, settings) {
        const watchdog = setTimeout(() => {
          terminate();
          died(`the ${engine} engine did not start within ${START_TIMEOUT_MS / 1000} s`);
        }, START_TIMEOUT_MS);
        try {
          return await remote.init(engine, settings);
        } finally {
          clearTimeout(watchdog);
        }
      },
      load: (fixture) => remote.load(fixture),
      execute: (sql, options) => remote.execute(sql, options),
      contentDigest: () => remote.contentDigest(),
      explain: (sql, options) => remote.explain(sql, options),
      sandboxState: () => remote.sandboxState(),
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
