/**
 * A pool of grading worker threads, sized to the cores: each grades whole
 * cases with its engines in its own thread (src/worker/grade.thread.ts),
 * so no message per query. This thread queues the cases and each worker
 * pulls the next when it has room (a case of a fixture it is home to first,
 * so its parses and execution cache are warm); gradeRun writes the results
 * in corpus order.
 *
 * A runaway query blocks its worker: every worker records the deadline and
 * key of its running query in a shared buffer; a watchdog here terminates a
 * worker past the deadline, remembers the query as timed out (every worker
 * then answers it at once with `sandbox.timeout`, as a supervised engine
 * does), starts a replacement and sends it the cases the old one held.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { CorpusCase } from '../core/corpus/types.ts';
import type {
  Engine,
  EngineName,
  ExecuteOptions,
  ExecuteOutcome,
  ExplainOptions,
  FixtureInfo,
  FixtureSource,
  PlanSummary,
} from '../core/engine.ts';
import { fail, ok, type Outcome } from '../core/errors.ts';
import type { EvaluationConfig } from '../core/evaluation/request.ts';
import type { CaseGrader, GradedCase } from '../core/run/case-grader.ts';
import type { EngineCall, GradeWorkerData, ToPool, ToWorker } from './grading-protocol.ts';
import type { HostSettings } from './host-api.ts';
import { epochMs, QueryWatch, type StoppedHow } from './in-thread.ts';
import { compileSqlJsWasm, type CompiledWasm } from './node-sessions.ts';
import { mark } from './timeline.ts';

const FROM_SOURCE = import.meta.url.endsWith('.ts');
const BOOT = new URL(FROM_SOURCE ? '../worker/thread-boot.mjs' : '../worker/grade.thread.js', import.meta.url);
const ENTRY = new URL('../worker/grade.thread.ts', import.meta.url).href;

/** Cases sent ahead to a worker, so it never waits for this thread between two. */
const PREFETCH = 2;
/** How far down the queue a free worker looks for a case of a fixture it is home to, before it takes the first. */
const LOOKAHEAD = 16;
/**
 * Cases in flight per worker (sent, queued here, or graded and waiting for
 * an earlier one): a slow case (a 1.5 s correlated subquery on world_1)
 * holds up the recording, and the other workers keep grading the cases
 * behind it until this many are done.
 */
const WINDOW_PER_WORKER = 256;
/** How often the watchdog looks, and the slack past a deadline before it stops a worker. */
const WATCH_EVERY_MS = 20;
const WATCH_SLACK_MS = 30;
/** A case that loses its worker this many times outside any query (a crash on load) is given up. */
const MAX_RETRIES = 3;

export interface GradingPoolOptions {
  /** Worker threads (default: the cores, os.availableParallelism()). */
  workers?: number;
  settings?: HostSettings;
  /**
   * Workers print each case's report at this indent, and this thread keeps
   * the text with the parsed report (see core/report/pretty-json.ts rememberPrinted).
   */
  print?: { indent: string; remember(report: object, indent: string, text: string): void };
}

type CallOptions = Omit<ExecuteOptions, 'signal'> & { analyze?: boolean };

interface Job {
  message: ToWorker & { job: number };
  fixture: string;
  retries: number;
  resolve(value: unknown): void;
}

interface Slot {
  worker: Worker;
  watch: QueryWatch;
  jobs: Map<number, Job>;
  /** Fixtures whose source this worker was sent. */
  fixtures: Set<string>;
  stopping: boolean;
}

export class GradingPool implements CaseGrader {
  private readonly slots: Slot[] = [];
  private readonly stopped = new Map<string, StoppedHow>();
  private readonly home = new Map<string, number>();
  /** Cases not yet sent to a worker, in corpus order: a worker takes one when it has room (work is pulled, not pushed). */
  private readonly queued: Job[] = [];
  private readonly engines = new Map<string, Promise<Outcome<Engine>>>();
  private wasm: Promise<CompiledWasm | undefined> | null = null;
  private watchdog: ReturnType<typeof setInterval> | null = null;
  private nextJob = 1;
  private closed = false;
  readonly size: number;
  /** Workers replaced after a timeout or a crash. */
  restarts = 0;

  constructor(
    private readonly engineName: EngineName,
    /** The fixture's files (read once here, sent to each worker that needs them). */
    private readonly sourceFor: (fixture: string) => Outcome<FixtureSource>,
    private readonly options: GradingPoolOptions = {},
  ) {
    this.size = Math.max(1, options.workers ?? availableParallelism());
  }

  get capacity(): number {
    return this.size * WINDOW_PER_WORKER;
  }

  private async ensureStarted(): Promise<void> {
    if (this.slots.length || this.closed) return;
    this.wasm ??= this.engineName === 'sqlite' ? compileSqlJsWasm().catch(() => undefined) : Promise.resolve(undefined);
    const wasm = await this.wasm;
    if (this.slots.length || this.closed) return;
    for (let i = 0; i < this.size; i++) this.slots.push(this.spawn(wasm));
    this.watchdog = setInterval(() => this.watchOnce(), WATCH_EVERY_MS);
    this.watchdog.unref();
  }

  private spawn(wasm: CompiledWasm | undefined): Slot {
    const watch = QueryWatch.create();
    const data: GradeWorkerData = {
      engine: this.engineName,
      ...(this.options.settings ? { settings: this.options.settings } : {}),
      watch: watch.buffer,
      stopped: [...this.stopped],
      ...(wasm ? { sqlJsWasm: wasm } : {}),
      ...(this.options.print ? { printIndent: this.options.print.indent } : {}),
      ...(FROM_SOURCE ? { entry: ENTRY } : {}),
    };
    // The engines log some errors to the console; the outcomes carry them already.
    mark('grading worker spawned');
    const worker = new Worker(BOOT, { workerData: data, stdout: true, stderr: true });
    worker.stdout.resume();
    worker.stderr.resume();
    worker.unref();
    const slot: Slot = { worker, watch, jobs: new Map(), fixtures: new Set(), stopping: false };
    worker.on('message', (message: ToPool) => this.received(slot, message));
    worker.on('error', () => undefined);
    worker.once('exit', () => this.exited(slot));
    return slot;
  }

  private received(slot: Slot, message: ToPool): void {
    if (message.type === 'ready') return mark(`grading worker ${slot.worker.threadId} ready`);
    const job = slot.jobs.get(message.job);
    if (!job) return;
    slot.jobs.delete(message.job);
    if (message.type === 'graded') job.resolve(message.graded ? this.parsed(message.graded) : null);
    else if (message.type === 'called') job.resolve(message.value);
    else job.resolve({ failed: message.message });
    this.dispatch();
  }

  private parsed(graded: { report: string; rest: string }): GradedCase {
    const report = JSON.parse(graded.report) as GradedCase['report'];
    const print = this.options.print;
    if (print) print.remember(report, print.indent, graded.report);
    return { report, ...(JSON.parse(graded.rest) as Omit<GradedCase, 'report'>) };
  }

  private watchOnce(): void {
    const now = epochMs();
    for (const slot of this.slots) {
      const deadline = slot.watch.deadline();
      if (deadline !== 0 && now > deadline + WATCH_SLACK_MS && !slot.stopping) this.replace(slot, 'timeout');
    }
  }

  /** Stop a worker (its running query timed out, or it died) and give its cases to a fresh one. */
  private replace(slot: Slot, how: StoppedHow): void {
    if (slot.stopping) return;
    slot.stopping = true;
    const key = slot.watch.current();
    slot.watch.end();
    void slot.worker.terminate();
    if (this.closed) return;
    this.restarts++;
    if (key !== null) {
      this.stopped.set(key, how);
      for (const other of this.slots)
        if (other !== slot) other.worker.postMessage({ type: 'stopped', entries: [[key, how]] } satisfies ToWorker);
    }
    const index = this.slots.indexOf(slot);
    void this.wasm!.then((wasm) => {
      const fresh = this.spawn(wasm);
      this.slots[index] = fresh;
      for (const job of slot.jobs.values()) {
        // Lost outside any query (a crash while loading): retried a few times, then given up.
        if (key === null && ++job.retries > MAX_RETRIES) {
          job.resolve(
            job.message.type === 'grade'
              ? null
              : fail('sandbox.engine_crashed', 'The grading worker stopped repeatedly.'),
          );
          continue;
        }
        this.post(fresh, job);
      }
      this.dispatch();
    });
  }

  private exited(slot: Slot): void {
    if (!slot.stopping && !this.closed) this.replace(slot, 'crash');
  }

  private post(slot: Slot, job: Job): void {
    if (!slot.fixtures.has(job.fixture)) {
      const source = this.sourceFor(job.fixture);
      if (!source.ok) {
        job.resolve(job.message.type === 'grade' ? null : source);
        return;
      }
      slot.worker.postMessage({ type: 'fixture', name: job.fixture, source: source.value } satisfies ToWorker);
      slot.fixtures.add(job.fixture);
    }
    slot.jobs.set(job.message.job, job);
    slot.worker.postMessage(job.message);
  }

  /** The fixture's worker (where its parses and results are cached), else the least busy one. */
  private route(fixture: string): Slot {
    const home = this.home.get(fixture);
    if (home !== undefined) return this.slots[home]!;
    const least = this.slots.reduce((a, b) => (b.jobs.size < a.jobs.size ? b : a));
    this.home.set(fixture, this.slots.indexOf(least));
    return least;
  }

  /**
   * Sends queued cases to workers with room: a case of a fixture the worker
   * is home to if one is near the front, else the first. A worker stuck on a
   * slow query so holds only its prefetch, and the others take the rest.
   */
  private dispatch(): void {
    if (this.closed) return;
    for (const [index, slot] of this.slots.entries()) {
      while (this.queued.length && slot.jobs.size < PREFETCH && !slot.stopping) {
        let near = 0;
        for (let i = 0; i < Math.min(LOOKAHEAD, this.queued.length); i++)
          if (this.home.get(this.queued[i]!.fixture) === index) {
            near = i;
            break;
          }
        const [job] = this.queued.splice(near, 1);
        if (!this.home.has(job!.fixture)) this.home.set(job!.fixture, index);
        this.post(slot, job!);
      }
    }
  }

  private async submit(fixture: string, message: ToWorker & { job: number }, slot?: Slot): Promise<unknown> {
    await this.ensureStarted();
    if (this.closed) return { failed: 'The grading pool is closed.' };
    return new Promise((resolve) => {
      const job = { message, fixture, retries: 0, resolve };
      // A call (the self-check, a digest) is short and goes to its worker at once; a case waits its turn.
      if (message.type !== 'grade') return this.post(slot ?? this.route(fixture), job);
      this.queued.push(job);
      this.dispatch();
    });
  }

  async grade(
    c: CorpusCase,
    sql: string,
    config: EvaluationConfig,
    dialect: 'duckdb' | 'sqlite',
  ): Promise<GradedCase | null> {
    const answer = await this.submit(c.fixture, { type: 'grade', job: this.nextJob++, c, sql, config, dialect });
    return answer && typeof answer === 'object' && 'failed' in answer ? null : (answer as GradedCase | null);
  }

  /** One engine call on a worker (the fixture's home by default). */
  async call<T>(
    fixture: string,
    method: EngineCall,
    args: { sql?: string; options?: CallOptions } = {},
    slot?: Slot,
  ): Promise<Outcome<T>> {
    const answer = await this.submit(fixture, { type: 'call', job: this.nextJob++, fixture, method, ...args }, slot);
    if (answer && typeof answer === 'object' && 'failed' in answer)
      return fail('sandbox.engine_crashed', String((answer as { failed: string }).failed));
    return answer as Outcome<T>;
  }

  /**
   * The fixture as an Engine (the self-check, the digests before and after).
   * Its content digest is every worker's copy's: copies that differ report
   * it, so a write in any worker shows as a changed fixture.
   */
  engineFor = (fixture: string): Promise<Outcome<Engine>> => {
    let pending = this.engines.get(fixture);
    if (!pending) {
      pending = this.openRemote(fixture);
      this.engines.set(fixture, pending);
    }
    return pending;
  };

  private async openRemote(fixture: string): Promise<Outcome<Engine>> {
    const info = await this.call<FixtureInfo>(fixture, 'info');
    mark(`fixture ${fixture}: info back on the main thread`);
    // As the supervised pool words it: a missing fixture as resolved, a failed load as "Fixture NAME: …".
    if (!info.ok) return info;
    return ok(new RemoteEngine(this, this.engineName, fixture, info.value.engineVersion));
  }

  /** Every worker holding the fixture, with its digest. */
  async digests(fixture: string): Promise<Outcome<string>> {
    await this.ensureStarted();
    const holders = this.slots.filter((s) => s.fixtures.has(fixture));
    const answers = await Promise.all(holders.map((s) => this.call<string>(fixture, 'digest', {}, s)));
    mark(`fixture ${fixture}: digests of ${holders.length} copies back`);
    const failed = answers.find((a) => !a.ok);
    if (failed) return failed;
    const distinct = [...new Set(answers.map((a) => (a.ok ? a.value : '')))];
    return ok(distinct.join(' / '));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.watchdog) clearInterval(this.watchdog);
    for (const job of this.queued.splice(0)) job.resolve({ failed: 'The grading pool is closed.' });
    await Promise.all(
      this.slots.map((s) => {
        s.stopping = true;
        return s.worker.terminate();
      }),
    );
  }
}

/** A fixture of the pool seen as one engine. */
class RemoteEngine implements Engine {
  constructor(
    private readonly pool: GradingPool,
    readonly name: EngineName,
    private readonly fixture: string,
    private readonly versionText: string,
  ) {}

  async version(): Promise<string> {
    return this.versionText;
  }

  async load(): Promise<Outcome<FixtureInfo>> {
    return fail('fixture.load_failed', 'A pooled fixture is loaded by the pool.');
  }

  async execute(sql: string, options: ExecuteOptions = {}): Promise<ExecuteOutcome> {
    if (options.signal?.aborted)
      return { ok: false, error: { code: 'run.cancelled', message: 'The query was cancelled.', elapsedMs: 0 } };
    const { signal: _signal, ...rest } = options;
    // The worker answers with the engine's ExecuteOutcome (an Outcome of a QueryResult).
    return (await this.pool.call(this.fixture, 'execute', { sql, options: rest })) as ExecuteOutcome;
  }

  contentDigest(): Promise<Outcome<string>> {
    return this.pool.digests(this.fixture);
  }

  explain(sql: string, options?: ExplainOptions): Promise<Outcome<PlanSummary>> {
    return this.pool.call<PlanSummary>(this.fixture, 'explain', { sql, ...(options ? { options } : {}) });
  }

  async close(): Promise<void> {}
}
