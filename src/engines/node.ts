/**
 * Engines for Node (CLI, tests, benchmarks): each engine runs in its own
 * worker thread, supervised, so a runaway query is stopped by terminating
 * the thread (ENGINE-NOTES "Stopping queries").
 */
import { wrap } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { Worker } from 'node:worker_threads';
import type { EngineName } from '../core/engine.ts';
import type { EngineHostApi } from './host-api.ts';
import { SupervisedEngine, type HostHandle, type SupervisorOptions } from './supervisor.ts';
import { mark } from './timeline.ts';

// From source (tests, a checkout) the thread boots through tsx; the compiled package (lib/) runs its .js directly.
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const BOOT = new URL(FROM_SOURCE ? '../worker/thread-boot.mjs' : '../worker/engine-host.thread.js', import.meta.url);
const ENTRY = new URL('../worker/engine-host.thread.ts', import.meta.url).href;

function spawnThreadHost(): HostHandle {
  // The engines log some errors to the console; the outcome carries them already.
  const worker = new Worker(BOOT, {
    ...(FROM_SOURCE ? { workerData: { entry: ENTRY } } : {}),
    stdout: true,
    stderr: true,
  });
  worker.stdout.resume();
  worker.stderr.resume();
  worker.unref();
  const exited = new Promise<string>((resolve) => {
    worker.once('error', (error) => resolve(`worker error: ${error.message}`));
    worker.once('exit', (code) => resolve(`worker exited with code ${code}`));
  });
  return {
    api: wrap<EngineHostApi>(nodeEndpoint(worker)),
    terminate: () => void worker.terminate(),
    exited,
  };
}

/** Start an engine (DuckDB-WASM or sql.js) in a supervised worker thread. */
export function openEngine(name: EngineName, options: SupervisorOptions = {}): SupervisedEngine {
  return new SupervisedEngine(name, spawnThreadHost, { mark, ...options });
}
