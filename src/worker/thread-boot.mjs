// Worker-thread bootstrap: lets a Node worker thread run the TypeScript
// engine host directly from source (the CLI and tests run from source too).
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.entry);
