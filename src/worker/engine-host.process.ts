/**
 * Child-process entry of a native DuckDB engine host (see src/engines/node.ts). Native DuckDB runs in a process
 * of its own, not a worker thread: a query stuck in one long native call that ignores interrupt() (a single huge
 * `regexp_replace` or `list_sort`) can then be stopped by killing the process, where ending a thread with a
 * node-api call in flight aborts the whole CLI (docs/native-duckdb.md).
 */
import { expose } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { createHostApi } from '../engines/host.ts';
import { createNodeSession } from '../engines/node-sessions.ts';
import { mark } from '../engines/timeline.ts';

mark('engine host process: modules loaded');

// The parent gone (it exited, or killed its end of the channel): end at once, whatever runs.
process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));

const api = createHostApi(createNodeSession);
expose(
  {
    ...api,
    // Killed, not drained: the supervisor ends this host at once (SIGKILL stops any native call).
    init: async (...args: Parameters<typeof api.init>) => {
      const { drainBeforeEnd: _drained, ...init } = await api.init(...args);
      return init;
    },
  },
  nodeEndpoint({
    postMessage: (message: unknown) => process.send!(message),
    on: (type: string, listener: (value: unknown) => void) => process.on(type, listener),
    off: (type: string, listener: (value: unknown) => void) => process.off(type, listener),
  }),
);
