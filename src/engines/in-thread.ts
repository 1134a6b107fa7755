/**
 * An engine session used in the calling thread (a grading worker): the
 * core's `Engine` with no message per query. sql.js and DuckDB's blocking
 * bundle run a query synchronously, so nothing in this thread can stop one:
 * before each query the thread writes its deadline and text to a shared
 * buffer (`QueryWatch`), and the thread that started it terminates this one
 * past the deadline (src/engines/grading-pool.ts). The query is then known
 * to time out: the replacement thread answers it at once with the same
 * `sandbox.timeout` outcome a supervised engine gives (src/engines/supervisor.ts).
 */
import {
  thrownExecution,
  DEFAULT_MAX_ROWS,
  DEFAULT_TIMEOUT_MS,
  type Engine,
  type EngineName,
  type ExecuteOptions,
  type ExecuteOutcome,
  type ExplainOptions,
  type FixtureInfo,
  type FixtureSource,
  type PlanSummary,
} from '../core/engine.ts';
import { fail, messageOf, type Outcome } from '../core/errors.ts';
import type { EngineSession } from './host-api.ts';

/** Layout of the shared buffer: [deadline (epoch ms, 0 idle), timeout ms] as BigInt64, then the text's length and UTF-8 bytes. */
const HEADER_BYTES = 24;
export const WATCH_TEXT_BYTES = 64 * 1024;
export const WATCH_BYTES = HEADER_BYTES + WATCH_TEXT_BYTES;

/** The epoch in milliseconds, the same in every thread (a SQLite fixture's frozen clock replaces Date.now). */
export const epochMs = (): number => performance.timeOrigin + performance.now();

/** The key of a query that timed out (or crashed its thread): fixture content and text. */
export const stoppedKey = (contentDigest: string, sql: string, timeoutMs: number): string =>
  `${contentDigest}\u0000${timeoutMs}\u0000${sql}`;

/** What a supervised engine allows planning (its cancel grace). */
const EXPLAIN_BUDGET_MS = 5000;

export type StoppedHow = 'timeout' | 'crash';

/** One thread's view of the shared buffer: the watched thread writes, the watcher reads. */
export class QueryWatch {
  private readonly clock: BigInt64Array;
  private readonly length: Int32Array;
  private readonly text: Uint8Array;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.clock = new BigInt64Array(buffer, 0, 2);
    this.length = new Int32Array(buffer, 16, 1);
    this.text = new Uint8Array(buffer, HEADER_BYTES, WATCH_TEXT_BYTES);
  }

  static create(): QueryWatch {
    return new QueryWatch(new SharedArrayBuffer(WATCH_BYTES));
  }

  /** Watched side: the key and deadline of the query about to run. */
  begin(key: string, timeoutMs: number): void {
    const bytes = new TextEncoder().encode(key);
    // A key too long to record cannot be named after a kill: the case is graded again and the query runs again.
    const fits = bytes.length <= WATCH_TEXT_BYTES;
    if (fits) this.text.set(bytes);
    Atomics.store(this.length, 0, fits ? bytes.length : -1);
    Atomics.store(this.clock, 1, BigInt(timeoutMs));
    Atomics.store(this.clock, 0, BigInt(Math.ceil(epochMs() + timeoutMs)));
  }

  end(): void {
    Atomics.store(this.clock, 0, 0n);
  }

  /** Watcher side: the running query's deadline (0 when idle). */
  deadline(): number {
    return Number(Atomics.load(this.clock, 0));
  }

  /** Watcher side: the running query's key, or null when idle or unrecorded. */
  current(): string | null {
    if (this.deadline() === 0) return null;
    const length = Atomics.load(this.length, 0);
    return length < 0 ? null : new TextDecoder().decode(this.text.slice(0, length));
  }
}

export function timeoutOutcome(timeoutMs: number, elapsedMs: number): ExecuteOutcome {
  return {
    ok: false,
    error: {
      code: 'sandbox.timeout',
      category: 'timeout',
      message: `The query ran past its ${timeoutMs} ms budget and was stopped.`,
      elapsedMs,
    },
  };
}

function crashOutcome(): ExecuteOutcome {
  const why = 'the thread running it stopped';
  return {
    ok: false,
    error: {
      code: 'sandbox.engine_crashed',
      category: 'resource_exhausted',
      message: `The engine stopped while running the query (${why}); it is restarted with the fixture reloaded before the next query.`,
      raw: why,
      elapsedMs: 0,
    },
  };
}

export class InThreadEngine implements Engine {
  private info: FixtureInfo | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly name: EngineName,
    private readonly session: EngineSession,
    private readonly watch: QueryWatch,
    /** Queries known to have been stopped (shared by every engine of the thread). */
    private readonly stopped: ReadonlyMap<string, StoppedHow>,
  ) {}

  version(): Promise<string> {
    return this.session.version();
  }

  /**
   * Calls run one at a time, as on a supervised engine (supervisor.ts): the
   * diagnosis stage queues all of a case's transplants at once, and a DuckDB
   * connection streams one result at a time, so a second query started while
   * the first was being read would take over its stream (the transplants then
   * got each other's rows).
   */
  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  load(fixture: FixtureSource): Promise<Outcome<FixtureInfo>> {
    return this.serialize(() => this.loadNow(fixture));
  }

  private async loadNow(fixture: FixtureSource): Promise<Outcome<FixtureInfo>> {
    try {
      const loaded = await this.session.load(fixture);
      this.info = loaded.ok ? loaded.value : null;
      return loaded;
    } catch (thrown) {
      return fail('fixture.load_failed', messageOf(thrown), { raw: messageOf(thrown) });
    }
  }

  get fixture(): FixtureInfo | null {
    return this.info;
  }

  execute(sql: string, options: ExecuteOptions = {}): Promise<ExecuteOutcome> {
    return this.serialize(() => this.executeNow(sql, options));
  }

  private async executeNow(sql: string, options: ExecuteOptions): Promise<ExecuteOutcome> {
    if (options.signal?.aborted)
      return { ok: false, error: { code: 'run.cancelled', message: 'The query was cancelled.', elapsedMs: 0 } };
    if (!this.info)
      return { ok: false, error: { code: 'fixture.not_loaded', message: 'Load a fixture before running queries.' } };
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const key = stoppedKey(this.info.contentDigest, String(sql), timeoutMs);
    const stopped = this.stopped.get(key);
    if (stopped) return stopped === 'timeout' ? timeoutOutcome(timeoutMs, timeoutMs) : crashOutcome();
    const started = performance.now();
    this.watch.begin(key, timeoutMs);
    let outcome: ExecuteOutcome;
    try {
      outcome = await this.session.execute(String(sql), {
        maxRows: options.maxRows ?? DEFAULT_MAX_ROWS,
        ...(options.maxResultBytes !== undefined ? { maxResultBytes: options.maxResultBytes } : {}),
      });
    } catch (thrown) {
      outcome = thrownExecution(thrown);
    } finally {
      this.watch.end();
    }
    // Finished, but past the budget before the watcher saw it: a supervised engine would have stopped it.
    const elapsed = performance.now() - started;
    return elapsed > timeoutMs ? timeoutOutcome(timeoutMs, elapsed) : outcome;
  }

  contentDigest(): Promise<Outcome<string>> {
    return this.serialize(async () => {
      try {
        return await this.session.contentDigest();
      } catch (thrown) {
        return fail('execution.error', messageOf(thrown));
      }
    });
  }

  /** Planning runs the query under analyze: watched like a query, with the supervisor's planning budget. */
  explain(sql: string, options?: ExplainOptions): Promise<Outcome<PlanSummary>> {
    return this.serialize(async () => {
      const key = `explain\u0000${this.info?.contentDigest ?? ''}\u0000${options?.analyze === true}\u0000${sql}`;
      if (this.stopped.has(key)) return fail('sandbox.timeout', 'Planning the query took too long.');
      this.watch.begin(key, EXPLAIN_BUDGET_MS);
      try {
        return await this.session.explain(String(sql), { analyze: options?.analyze === true });
      } catch (thrown) {
        return fail('execution.error', messageOf(thrown));
      } finally {
        this.watch.end();
      }
    });
  }

  async close(): Promise<void> {
    this.info = null;
  }
}
