// Worker-thread bootstrap: lets a Node worker thread run the TypeScript
// engine host directly from source (tests, and the CLI in a checkout whose lib/ is stale).
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.entry);
