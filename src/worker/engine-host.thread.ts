/** Node worker-thread entry of an engine host (see src/engines/node.ts). */
import { expose } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { parentPort } from 'node:worker_threads';
import { createHostApi } from '../engines/host.ts';
import { createNodeSession } from '../engines/node-sessions.ts';
import { mark } from '../engines/timeline.ts';

mark('engine host thread: modules loaded');

expose(createHostApi(createNodeSession), nodeEndpoint(parentPort!));
