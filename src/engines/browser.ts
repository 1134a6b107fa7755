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

function spawnWorkerHost(): HostHandle {
  const worker = new Worker(new URL('../worker/engine-host.worker.ts', import.meta.url), { type: 'module', name: 'engine-host' });
  let terminated = false;
  const exited = new Promise<string>((resolve) => {
    // A module that fails to load, or an uncaught error: the host is no longer trustworthy.
    worker.addEventListener('error', (event) => resolve(`worker error: ${event.message || 'the engine worker failed to start'}`));
    worker.addEventListener('messageerror', () => resolve('worker message could not be deserialized'));
  });
  return {
    api: wrap<EngineHostApi>(worker),
    terminate: () => {
      if (terminated) return;
      terminated = true;
      worker.terminate();
    },
    exited,
  };
}

/** Start an engine (DuckDB-WASM or sql.js) in a supervised Web Worker. */
export function openEngine(name: EngineName, options: SupervisorOptions = {}): SupervisedEngine {
  return new SupervisedEngine(name, spawnWorkerHost, options);
}
