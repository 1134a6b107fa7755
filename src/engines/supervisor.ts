/**
 * A supervised engine: the core's `Engine`, implemented over an engine host
 * running in a worker. The worker is the unit of failure: a query past its
 * timeout that the engine cannot cancel, an exhausted heap, or a crash
 * terminates the worker; a fresh one is started and the fixture reloaded
 * before the next call, so completed results are never lost and the caller
 * always gets an answer within timeout + grace.
 */
import {
  DEFAULT_MAX_ROWS,
  DEFAULT_TIMEOUT_MS,
  type Engine,
  type EngineName,
  type ExecuteOptions,
  type ExecuteOutcome,
  type FixtureInfo,
  type FixtureSource,
  type ExplainOptions,
  type PlanSummary,
} from '../core/engine.ts';
import { fail, messageOf, type Outcome } from '../core/errors.ts';
import type { EngineHostApi, HostSettings } from './host-api.ts';

/** A started host: its API (a comlink proxy) and a way to kill it. */
export interface HostHandle {
  api: Pick<EngineHostApi, 'init' | 'load' | 'execute' | 'contentDigest' | 'cancel' | 'explain' | 'sandboxState'> &
    Partial<Pick<EngineHostApi, 'dispose'>>;
  terminate(): void;
  /** Resolves when the worker dies on its own (crash). */
  exited: Promise<string>;
}

export interface SupervisorOptions extends HostSettings {
  /** Wait this long for a cancelled query to stop before terminating the host. */
  cancelGraceMs?: number;
  /** Budget for starting a host and loading a fixture. */
  loadTimeoutMs?: number;
  /** Observe restarts (tests, progress UI). */
  onRestart?: (reason: string) => void;
  /**
   * Keep a second host with the fixture loaded, so that after a timeout, an
   * out-of-memory or a crash the next query runs at once instead of after an
   * engine start and a fixture reload (seconds). It costs one more engine's
   * memory and one more fixture load, in the background, after each load().
   * Worth it for an engine that serves one fixture for a whole run.
   * 'after-restart': no spare until the first restart, a spare from then on; a run
   * without a timeout or crash (the common case) pays for no second engine.
   */
  warmSpare?: boolean | 'after-restart';
  /** Note a start-up step (Node's SQL_VERDICT_TIMELINE, src/engines/timeline.ts). */
  mark?(step: string): void;
}

/** A host being prepared, or ready, to replace the current one for `fixture`. */
interface Spare {
  fixture: FixtureSource;
  host: Promise<StartedHost>;
  /** The started host once the fixture loaded with the primary's digest, else null. */
  ready: Promise<StartedHost | null>;
}

const TIMED_OUT = Symbol('timed out');
/**
 * How long a host that must be drained (native DuckDB) gets to stop its query and let its native calls settle
 * before it is terminated anyway. An interrupted DuckDB query stops within milliseconds.
 */
const DRAIN_MS = 10_000;
/** How long close() waits for an ended thread to be gone. */
const EXIT_WAIT_MS = 5_000;
const CANCELLED = Symbol('cancelled');

function timer(ms: number): { promise: Promise<typeof TIMED_OUT>; cancel(): void } {
  let handle: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<typeof TIMED_OUT>((resolve) => {
    handle = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  return { promise, cancel: () => clearTimeout(handle) };
}

function cancelledOutcome(elapsedMs: number): ExecuteOutcome {
  return { ok: false, error: { code: 'run.cancelled', message: 'The query was cancelled.', elapsedMs } };
}

interface StartedHost {
  host: HostHandle;
  version: string;
  canCancel: boolean;
}

export class SupervisedEngine implements Engine {
  private host: HostHandle | null = null;
  /** Whether the current host holds the fixture (a replaced host must reload it). */
  private hostHasFixture = false;
  private starting: Promise<StartedHost> | null = null;
  private fixture: FixtureSource | null = null;
  private versionText = '';
  private canCancel = false;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private spare: Spare | null = null;
  /** The digest the primary host computed for the fixture (a spare must match it). */
  private fixtureDigest: string | null = null;
  /** How many times a host was replaced (timeouts, crashes, memory). */
  restarts = 0;
  /** How many of those replacements were a warm spare taken over (no reload). */
  spareTakeovers = 0;

  constructor(
    readonly name: EngineName,
    private readonly spawn: () => HostHandle,
    private readonly options: SupervisorOptions = {},
  ) {}

  /** Calls run one at a time: a host is single-threaded and its state is the fixture. */
  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Every host started and neither terminated nor exited: close() ends them all, whatever path made them. */
  private readonly live = new Set<HostHandle>();

  /** Whether each host must be drained before it ends: `known` once its init() settled. */
  private readonly drainOf = new Map<HostHandle, { needed: Promise<boolean>; known?: boolean }>();
  /** Hosts being ended (drained, terminated): close() waits for them. */
  private readonly ending = new Set<Promise<void>>();

  /** A fixture a host was sent with its init (startHost's preload), until loadOn takes its outcome. */
  private readonly preloads = new WeakMap<
    HostHandle,
    { fixture: FixtureSource; loaded: Promise<Outcome<FixtureInfo>> }
  >();

  /** Threads started and not yet ended (a closed engine has none). */
  get liveHosts(): number {
    return this.live.size;
  }

  private spawnTracked(): HostHandle {
    const spawned = this.spawn();
    const host: HostHandle = {
      ...spawned,
      terminate: () => this.endHost(host, spawned),
    };
    this.live.add(host);
    void spawned.exited.then(() => this.live.delete(host));
    return host;
  }

  /**
   * End a host. Most are terminated at once. A native DuckDB host (init's drainBeforeEnd) is first told to
   * dispose (interrupt its query, wait for its node-api calls in flight, close the database): a thread ended
   * while such a call is in flight aborts the whole process (docs/native-duckdb.md). One still starting is
   * ended once its init settled, for the same reason.
   */
  private endHost(host: HostHandle, spawned: HostHandle): void {
    if (!this.live.delete(host)) return;
    const drain = this.drainOf.get(host);
    this.drainOf.delete(host);
    // A WASM or SQLite host is terminated at once (a runaway in it is stopped that way).
    if (!drain || drain.known === false || this.name !== 'duckdb') return spawned.terminate();
    const end = (async () => {
      const budget = timer(DRAIN_MS);
      let needed: boolean | typeof TIMED_OUT = false;
      try {
        needed = await Promise.race([drain.needed, spawned.exited.then(() => false), budget.promise]);
        if (needed === true)
          await Promise.race([
            (spawned.api.dispose?.() ?? Promise.resolve()).catch(() => undefined),
            spawned.exited,
            budget.promise,
          ]);
      } finally {
        budget.cancel();
      }
      spawned.terminate();
      if (needed !== true) return;
      const gone = timer(EXIT_WAIT_MS);
      await Promise.race([spawned.exited, gone.promise]);
      gone.cancel();
    })();
    this.ending.add(end);
    void end.finally(() => this.ending.delete(end));
  }

  /**
   * `preload`: the fixture to load as soon as the host is up, sent right behind init (the host waits for its
   * init): the engine thread goes on to the fixture without a round trip through this thread, which may be busy.
   */
  private startHost(preload?: FixtureSource): Promise<StartedHost> {
    this.options.mark?.(`supervised ${this.name} host spawned`);
    const host = this.spawnTracked();
    const initialized = host.api.init(this.name, {
      memoryLimit: this.options.memoryLimit,
      duckdbDriver: this.options.duckdbDriver,
    });
    if (preload) {
      const loaded = host.api.load(preload);
      loaded.catch(() => undefined);
      this.preloads.set(host, { fixture: preload, loaded });
    }
    const drain: { needed: Promise<boolean>; known?: boolean } = {
      needed: initialized.then(
        (init) => (drain.known = init.drainBeforeEnd === true),
        () => (drain.known = false),
      ),
    };
    this.drainOf.set(host, drain);
    const started = (async () => {
      const init = await Promise.race([initialized, host.exited.then((why) => Promise.reject(new Error(why)))]);
      this.options.mark?.(`supervised ${this.name} host initialized`);
      return { host, ...init };
    })();
    started.catch(() => host.terminate());
    return started;
  }

  private async ensureHost(): Promise<HostHandle> {
    if (this.host) return this.host;
    this.starting ??= this.startHost();
    const pending = this.starting;
    try {
      const started = await pending;
      // A warm spare may have been taken over while this host started: keep one primary, never two.
      if (this.host) {
        if (this.host !== started.host) started.host.terminate();
        return this.host;
      }
      this.adopt(started);
      this.hostHasFixture = false;
      return started.host;
    } finally {
      if (this.starting === pending) this.starting = null;
    }
  }

  /** A host with the current fixture loaded (a warm spare, or reloading it after a replacement). */
  private async ready(): Promise<HostHandle> {
    if (!this.host && this.spare && this.spare.fixture === this.fixture) {
      const spare = this.spare;
      this.spare = null;
      const started = await spare.ready;
      if (started && !this.host && !this.closed) {
        this.adopt(started);
        this.hostHasFixture = true;
        this.spareTakeovers++;
        this.prepareSpare();
        return started.host;
      }
      if (started) started.host.terminate();
    }
    const host = await this.ensureHost();
    if (this.fixture && !this.hostHasFixture) {
      const reloaded = await this.loadOn(this.fixture);
      if (!reloaded.ok) throw new Error(`reloading fixture "${this.fixture.name}" failed: ${reloaded.error.message}`);
      // The first restart of an 'after-restart' engine: from now on keep a spare.
      if (this.options.warmSpare === 'after-restart') this.prepareSpare();
    }
    return this.host ?? host;
  }

  private adopt(started: StartedHost): void {
    this.host = started.host;
    this.versionText = started.version;
    this.canCancel = started.canCancel;
    void started.host.exited.then(() => {
      if (this.host === started.host) this.host = null;
    });
  }

  /** Start (in the background) a spare host with the current fixture loaded. */
  private prepareSpare(): void {
    if (!this.options.warmSpare || this.closed || !this.fixture || this.spare) return;
    if (this.options.warmSpare === 'after-restart' && this.restarts === 0) return;
    const fixture = this.fixture;
    const expected = this.fixtureDigest;
    const host = this.startHost();
    const spare: Spare = { fixture, host, ready: Promise.resolve(null) };
    spare.ready = (async (): Promise<StartedHost | null> => {
      let started: StartedHost | undefined;
      const budget = timer(this.options.loadTimeoutMs ?? 120_000);
      try {
        started = await host;
        const loaded = await Promise.race([
          started.host.api.load(fixture),
          budget.promise,
          started.host.exited.then((): typeof TIMED_OUT => TIMED_OUT),
        ]);
        if (loaded === TIMED_OUT || !loaded.ok || (expected !== null && loaded.value.contentDigest !== expected))
          throw new Error('spare not loaded');
        return started;
      } catch {
        started?.host.terminate();
        if (this.spare === spare) this.spare = null;
        return null;
      } finally {
        budget.cancel();
      }
    })();
    this.spare = spare;
    // A spare that dies while it waits is dropped (the next replacement reloads as before).
    void spare.ready.then((started) =>
      started?.host.exited.then(() => {
        if (this.spare === spare) this.spare = null;
      }),
    );
  }

  /** Resolves when the warm spare is loaded (true), or there is none / it failed (false). */
  async spareReady(): Promise<boolean> {
    const spare = this.spare;
    return spare ? (await spare.ready) !== null : false;
  }

  private dropSpare(): void {
    const spare = this.spare;
    this.spare = null;
    if (spare)
      void spare.host.then(
        (s) => s.host.terminate(),
        () => undefined,
      );
  }

  /** Terminate the host; a warm spare takes over, or a replacement starts at once so the next call waits less. */
  private kill(reason: string): void {
    const host = this.host;
    this.host = null;
    this.hostHasFixture = false;
    if (host) {
      host.terminate();
      this.restarts++;
      this.options.onRestart?.(reason);
    }
    if (this.spare && this.spare.fixture === this.fixture) return;
    if (!this.closed) {
      this.starting ??= this.startHost();
      this.starting.catch(() => undefined);
    }
  }

  private async loadOn(fixture: FixtureSource): Promise<Outcome<FixtureInfo>> {
    // No host yet: start one with the fixture sent along.
    if (!this.host && !this.starting) this.starting = this.startHost(fixture);
    const host = await this.ensureHost();
    const preload = this.preloads.get(host);
    this.preloads.delete(host);
    const budgetMs = this.options.loadTimeoutMs ?? 120_000;
    const budget = timer(budgetMs);
    try {
      const result = await Promise.race([
        preload?.fixture === fixture ? preload.loaded : host.api.load(fixture),
        budget.promise,
        host.exited.then((why) => `crashed: ${why}`),
      ]);
      if (result === TIMED_OUT) {
        this.kill('load timeout');
        return fail(
          'fixture.load_failed',
          `Loading fixture "${fixture.name}" took longer than ${budgetMs} ms and was stopped.`,
        );
      }
      if (typeof result === 'string') {
        this.kill(result);
        return fail('fixture.load_failed', `The engine stopped while loading fixture "${fixture.name}" (${result}).`);
      }
      this.hostHasFixture = result.ok;
      return result;
    } finally {
      budget.cancel();
    }
  }

  async version(): Promise<string> {
    // Known once any host started; asking again must not start a host beside a spare being taken over.
    if (this.versionText) return this.versionText;
    await this.serialize(() => this.ensureHost());
    return this.versionText;
  }

  /**
   * Start a host now, ahead of the first load, while its fixture is still being fetched or read (a browser
   * engine's start is seconds of wasm compiling): the load then finds it up or starting. Nothing if one runs.
   */
  start(): void {
    if (this.closed || this.host || this.starting) return;
    this.starting = this.startHost();
    this.starting.catch(() => undefined);
  }

  load(fixture: FixtureSource): Promise<Outcome<FixtureInfo>> {
    return this.serialize(async () => {
      if (this.closed) return fail('fixture.load_failed', 'The engine is closed.');
      this.fixture = null;
      this.fixtureDigest = null;
      this.dropSpare();
      try {
        const result = await this.loadOn(fixture);
        this.fixture = result.ok ? fixture : null;
        if (result.ok) {
          this.fixtureDigest = result.value.contentDigest;
          this.prepareSpare();
        }
        return result;
      } catch (thrown) {
        this.kill('load failure');
        return fail('fixture.load_failed', messageOf(thrown));
      }
    });
  }

  execute(sql: string, options: ExecuteOptions = {}): Promise<ExecuteOutcome> {
    return this.serialize(() => this.executeNow(sql, options));
  }

  private async executeNow(sql: string, options: ExecuteOptions): Promise<ExecuteOutcome> {
    if (this.closed) return { ok: false, error: { code: 'fixture.not_loaded', message: 'The engine is closed.' } };
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxRows = options.maxRows ?? DEFAULT_MAX_ROWS;
    let host: HostHandle;
    try {
      host = await this.ready();
    } catch (thrown) {
      return {
        ok: false,
        error: {
          code: 'sandbox.engine_crashed',
          category: 'unknown_error',
          message: `The engine could not start: ${messageOf(thrown)}`,
        },
      };
    }
    const started = performance.now();
    if (options.signal?.aborted) return cancelledOutcome(0);
    const running = host.api.execute(sql, {
      maxRows,
      timeoutMs,
      ...(options.maxResultBytes !== undefined ? { maxResultBytes: options.maxResultBytes } : {}),
    });
    const crashed = host.exited.then((why) => ({ crashed: why }) as const);
    const budget = timer(timeoutMs);
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<typeof CANCELLED>((resolve) => {
      onAbort = () => resolve(CANCELLED);
      options.signal?.addEventListener('abort', onAbort);
    });
    let outcome: ExecuteOutcome | typeof TIMED_OUT | typeof CANCELLED | { crashed: string };
    try {
      outcome = await Promise.race([running, budget.promise, crashed, aborted]);
    } catch (thrown) {
      outcome = { crashed: messageOf(thrown) };
    } finally {
      budget.cancel();
      if (onAbort) options.signal?.removeEventListener('abort', onAbort);
    }
    if (outcome === TIMED_OUT || outcome === CANCELLED) {
      await this.stop(host, running);
      return outcome === CANCELLED
        ? cancelledOutcome(performance.now() - started)
        : {
            ok: false,
            error: {
              code: 'sandbox.timeout',
              category: 'timeout',
              message: `The query ran past its ${timeoutMs} ms budget and was stopped.`,
              elapsedMs: performance.now() - started,
            },
          };
    }
    if ('crashed' in outcome) {
      this.kill(`crash: ${outcome.crashed}`);
      return {
        ok: false,
        error: {
          code: 'sandbox.engine_crashed',
          category: 'resource_exhausted',
          message: `The engine stopped while running the query (${outcome.crashed}); it is restarted with the fixture reloaded before the next query.`,
          raw: outcome.crashed,
          elapsedMs: performance.now() - started,
        },
      };
    }
    // A grown wasm heap never shrinks: start clean after the engine ran out of memory.
    if (!outcome.ok && outcome.error.category === 'resource_exhausted' && outcome.error.raw !== undefined)
      this.kill('memory');
    return outcome;
  }

  /** Stop a running query: the engine's own cancel where it has one, else terminate the host. */
  private async stop(host: HostHandle, running: Promise<unknown>): Promise<void> {
    let stopped = false;
    if (this.canCancel) {
      const grace = timer(this.options.cancelGraceMs ?? 750);
      void host.api.cancel().catch(() => false);
      stopped =
        (await Promise.race([
          running.then(
            () => true,
            () => true,
          ),
          grace.promise,
        ])) === true;
      grace.cancel();
    }
    if (!stopped) this.kill('stopped');
  }

  explain(sql: string, options?: ExplainOptions): Promise<Outcome<PlanSummary>> {
    return this.serialize(async () => {
      try {
        const host = await this.ready();
        const budget = timer(this.options.cancelGraceMs ?? 5000);
        const result = await Promise.race([host.api.explain(sql, options), budget.promise]);
        budget.cancel();
        if (result === TIMED_OUT) {
          this.kill('explain timeout');
          return fail('sandbox.timeout', 'Planning the query took too long.');
        }
        return result;
      } catch (thrown) {
        return fail('execution.error', messageOf(thrown));
      }
    });
  }

  contentDigest(): Promise<Outcome<string>> {
    return this.serialize(async () => {
      try {
        const host = await this.ready();
        return await host.api.contentDigest();
      } catch (thrown) {
        return fail('execution.error', messageOf(thrown));
      }
    });
  }

  /** The engine state a query could leave behind (see EngineSession.sandboxState). */
  sandboxState(): Promise<Outcome<Record<string, string>>> {
    return this.serialize(async () => {
      try {
        const host = await this.ready();
        return await host.api.sandboxState();
      } catch (thrown) {
        return fail('execution.error', messageOf(thrown));
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.dropSpare();
    await this.queue.catch(() => undefined);
    this.host?.terminate();
    this.host = null;
    const starting = this.starting;
    this.starting = null;
    if (starting)
      void starting.then(
        (s) => s.host.terminate(),
        () => undefined,
      );
    for (const host of [...this.live]) host.terminate();
    // Native hosts are drained before they end (endHost): the process must not exit while one still runs.
    await Promise.all([...this.ending]);
  }
}
