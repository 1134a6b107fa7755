/** The page's one connection to the app worker. */
import { wrap, type Remote } from 'comlink';
import type { AppApi } from '../../worker/app.worker.ts';

export type AppClient = Remote<AppApi>;

export interface AppWorker {
  api: AppClient;
  /** Resolves with a reason if the worker fails (it cannot recover: reload the page). */
  failed: Promise<string>;
  terminate(): void;
}

export function startAppWorker(): AppWorker {
  const worker = new Worker(new URL('../../worker/app.worker.ts', import.meta.url), {
    type: 'module',
    name: 'sql-verdict-app',
  });
  const failed = new Promise<string>((resolve) => {
    worker.addEventListener('error', (event) => resolve(event.message || 'the app worker failed to start'));
  });
  return { api: wrap<AppApi>(worker), failed, terminate: () => worker.terminate() };
}
