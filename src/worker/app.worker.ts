/**
 * The app's pipeline worker: the page talks only to this (comlink). It holds
 * the engines (each a supervised engine host worker), loads fixtures and runs
 * SQL with a timeout. Everything crossing is plain data; failures come back
 * as `{ok: false, error}`, never as a throw.
 */
import { expose } from 'comlink';
import { DEFAULT_TIMEOUT_MS, ENGINE_NAMES, type EngineName, type ExecuteOutcome, type FixtureInfo, type FixtureSource } from '../core/engine.ts';
import { fail, messageOf, ok, type Outcome } from '../core/errors.ts';
import { openEngine } from '../engines/browser.ts';
import type { SupervisedEngine } from '../engines/supervisor.ts';

export interface EngineStarted {
  engine: EngineName;
  version: string;
  /** Wall-clock time from this call to a ready engine (0 when it was already running). */
  startMs: number;
}

export interface FixtureLoaded extends FixtureInfo {
  /** Wall-clock time of the load as seen from this worker (engine start included on first use). */
  wallMs: number;
}

export interface ExecuteRequest {
  engine: EngineName;
  sql: string;
  /** Stop the query after this long (default 5000 ms, at most 10 minutes). */
  timeoutMs?: number;
  /** Rows to materialize at most (default 100,000). */
  maxRows?: number;
  /** Lets `cancel(runId)` name this call. */
  runId?: string;
}

/** An execution outcome plus what this worker saw of it. */
export type AppExecuteOutcome = ExecuteOutcome & {
  /** Wall-clock time in this worker, from the call to the answer (queueing included). */
  wallMs: number;
  /** The engine host was replaced during this call (timeout, crash); the fixture is reloaded before the next query. */
  engineRestarted: boolean;
};

export const MAX_TIMEOUT_MS = 600_000;
const DEFAULT_APP_MAX_ROWS = 100_000;

const engines = new Map<EngineName, SupervisedEngine>();
const inFlight = new Map<string, AbortController>();
let nextRun = 0;

function engineFor(name: EngineName): SupervisedEngine {
  let engine = engines.get(name);
  if (!engine) {
    engine = openEngine(name);
    engines.set(name, engine);
  }
  return engine;
}

function isEngineName(value: unknown): value is EngineName {
  return (ENGINE_NAMES as readonly unknown[]).includes(value);
}

function unknownEngine(value: unknown): Outcome<never> {
  return fail('input.invalid', `Unknown engine "${String(value)}"; expected one of ${ENGINE_NAMES.join(', ')}.`, { location: 'engine' });
}

const api = {
  /** Start an engine ahead of use (DuckDB-WASM takes seconds to instantiate). */
  async startEngine(name: EngineName): Promise<Outcome<EngineStarted>> {
    if (!isEngineName(name)) return unknownEngine(name);
    const started = performance.now();
    try {
      const version = await engineFor(name).version();
      return ok({ engine: name, version, startMs: performance.now() - started });
    } catch (thrown) {
      return fail('sandbox.engine_crashed', `The ${name} engine could not start: ${messageOf(thrown)}`, { raw: messageOf(thrown) });
    }
  },

  /** Replace whatever the engine holds by this fixture and lock its sandbox. */
  async loadFixture(name: EngineName, fixture: FixtureSource): Promise<Outcome<FixtureLoaded>> {
    if (!isEngineName(name)) return unknownEngine(name);
    const started = performance.now();
    try {
      const loaded = await engineFor(name).load(fixture);
      return loaded.ok ? ok({ ...loaded.value, wallMs: performance.now() - started }) : loaded;
    } catch (thrown) {
      return fail('fixture.load_failed', messageOf(thrown), { raw: messageOf(thrown) });
    }
  },

  /** Run one untrusted read query on the engine's loaded fixture. */
  async execute(request: ExecuteRequest): Promise<AppExecuteOutcome> {
    const started = performance.now();
    const answer = (outcome: ExecuteOutcome, restarted = false): AppExecuteOutcome => ({
      ...outcome,
      wallMs: performance.now() - started,
      engineRestarted: restarted,
    });
    if (!isEngineName(request.engine)) return answer(unknownEngine(request.engine));
    const timeoutMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS)
      return answer(fail('input.invalid', `The timeout must be between 1 and ${MAX_TIMEOUT_MS} ms (got ${timeoutMs}).`, { location: 'timeoutMs' }));
    const runId = request.runId ?? `run-${nextRun++}`;
    const controller = new AbortController();
    inFlight.get(runId)?.abort();
    inFlight.set(runId, controller);
    const engine = engineFor(request.engine);
    const restartsBefore = engine.restarts;
    try {
      const outcome = await engine.execute(String(request.sql), {
        timeoutMs,
        maxRows: request.maxRows ?? DEFAULT_APP_MAX_ROWS,
        signal: controller.signal,
      });
      return answer(outcome, engine.restarts !== restartsBefore);
    } catch (thrown) {
      return answer({ ok: false, error: { code: 'execution.error', category: 'unknown_error', message: messageOf(thrown), raw: messageOf(thrown) } });
    } finally {
      if (inFlight.get(runId) === controller) inFlight.delete(runId);
    }
  },

  /** Stop a running query (by its runId, or every running query). True when something was cancelled. */
  cancel(runId?: string): boolean {
    const targets = runId === undefined ? [...inFlight.values()] : [inFlight.get(runId)].filter((c) => c !== undefined);
    for (const controller of targets) controller.abort();
    return targets.length > 0;
  },

  /** Recompute the content digest of the fixture loaded on an engine. */
  async contentDigest(name: EngineName): Promise<Outcome<string>> {
    if (!isEngineName(name)) return unknownEngine(name);
    return engineFor(name).contentDigest();
  },

  /** Stop every engine (their workers end). */
  async close(): Promise<void> {
    for (const controller of inFlight.values()) controller.abort();
    const closing = [...engines.values()].map((e) => e.close());
    engines.clear();
    await Promise.allSettled(closing);
  },
};

export type AppApi = typeof api;

expose(api);
