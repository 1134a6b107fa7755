/**
 * Engines for Node (CLI, tests, benchmarks): each engine runs in its own
 * worker thread, supervised, so a runaway query is stopped by terminating
 * the thread (ENGINE-NOTES "Stopping queries").
 */
import { wrap } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { EngineName } from '../core/engine.ts';
import type { EngineHostApi } from './host-api.ts';
import { NATIVE_FILES_ENV } from './duckdb/native-files.ts';
import { duckDbDriverOf } from './node-sessions.ts';
import { SupervisedEngine, type HostHandle, type SupervisorOptions } from './supervisor.ts';
import { mark, timelineOn } from './timeline.ts';

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

const PROCESS_BOOT = new URL(
  FROM_SOURCE ? '../worker/process-boot.mjs' : '../worker/engine-host.process.js',
  import.meta.url,
);
const PROCESS_ENTRY = new URL('../worker/engine-host.process.ts', import.meta.url).href;

/**
 * Native DuckDB's host is a child process, not a thread: one native call can ignore interrupt() for a minute or
 * more (a single huge function call), and a thread cannot be ended while a node-api call is in flight without
 * aborting this whole process (exit 134). A process can always be killed; the run goes on with a new host.
 */
function spawnProcessHost(): HostHandle {
  // The host copies fixture files under this folder; a killed host cannot remove them, so this process does.
  const files = mkdtempSync(path.join(tmpdir(), 'sql-verdict-duckdb-host-'));
  HOST_FILES.add(files);
  const removeFiles = () => {
    HOST_FILES.delete(files);
    rmSync(files, { recursive: true, force: true });
  };
  const child = fork(fileURLToPath(PROCESS_BOOT), FROM_SOURCE ? [PROCESS_ENTRY] : [], {
    serialization: 'advanced',
    // Its timeline marks (SQL_VERDICT_TIMELINE) go to this process's stderr; nothing else is written there.
    stdio: ['ignore', 'ignore', timelineOn ? 'inherit' : 'ignore', 'ipc'],
    execArgv: [],
    env: { ...process.env, [NATIVE_FILES_ENV]: files },
  });
  const exited = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(`process error: ${error.message}`));
    child.once('exit', (code, signal) => {
      removeFiles();
      resolve(`process exited with ${signal ?? `code ${code}`}`);
    });
  });
  // As a worker thread is: an idle host must not keep the CLI alive (it ends on 'disconnect' when the CLI exits);
  // while a call awaits its answer the channel holds the event loop, or the process would exit under it.
  child.unref();
  let awaiting = 0;
  const hold = (delta: number) => {
    awaiting = Math.max(0, awaiting + delta);
    if (awaiting > 0) child.channel?.ref();
    else child.channel?.unref();
  };
  hold(0);
  child.on('message', () => hold(-1));
  return {
    api: wrap<EngineHostApi>(
      nodeEndpoint({
        // comlink answers every message it sends with exactly one.
        postMessage: (message: unknown) => {
          if (!child.connected) return;
          hold(1);
          child.send(message as object);
        },
        on: (type: string, listener: (value: unknown) => void) => child.on(type, listener),
        off: (type: string, listener: (value: unknown) => void) => child.off(type, listener),
      }),
    ),
    terminate: () => {
      child.kill('SIGKILL');
      removeFiles();
    },
    exited,
  };
}

/** The files folders of native hosts still alive: removed at exit, when no 'exit' of theirs will come. */
const HOST_FILES = new Set<string>();
process.once('exit', () => {
  for (const files of HOST_FILES) rmSync(files, { recursive: true, force: true });
});

/** Start an engine (DuckDB-WASM, native DuckDB, sql.js, PGlite) in a supervised worker thread (native DuckDB: a process). */
export function openEngine(name: EngineName, options: SupervisorOptions = {}): SupervisedEngine {
  const spawn = name === 'duckdb' && duckDbDriverOf(options) === 'native' ? spawnProcessHost : spawnThreadHost;
  return new SupervisedEngine(name, spawn, { mark, ...options });
}
