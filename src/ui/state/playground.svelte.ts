/**
 * The state of the query page: which fixture, which engine, the SQL, the
 * last run. Components render it and call its methods; all work happens in
 * the app worker.
 */
import type { EngineName, FixtureSource } from '../../core/engine.ts';
import { messageOf, type VerdictError } from '../../core/errors.ts';
import type { AppExecuteOutcome, EngineStarted, FixtureLoaded } from '../../worker/app.worker.ts';
import type { AppClient } from './app-client.ts';
import { DEMO_FIXTURE_NAME, DEMO_QUERY, DEMO_SQL } from './demo-fixture.ts';
import { fixtureFromFiles, readPicked, type PickedFile } from './fixture-files.ts';

export type Backend = Pick<AppClient, 'startEngine' | 'loadFixture' | 'execute' | 'cancel'>;

export const ENGINE_LABEL: Record<EngineName, string> = {
  duckdb: 'DuckDB',
  sqlite: 'SQLite',
  pglite: 'PostgreSQL (PGlite)',
  postgres: 'PostgreSQL server',
};

export const MIN_TIMEOUT_SECONDS = 0.1;
export const MAX_TIMEOUT_SECONDS = 600;
/** Rows materialized per query on this page; more is reported as too large. */
export const PAGE_MAX_ROWS = 100_000;

export interface FixtureSelection {
  id: number;
  source: FixtureSource;
  /** Engines that can load it, preferred first. */
  engines: EngineName[];
  builtIn: boolean;
}

export interface RunView {
  /** 1, 2, 3… in the order runs were started on this page. */
  seq: number;
  sql: string;
  engine: EngineName;
  outcome: AppExecuteOutcome;
  /** Wall-clock time on the page, from Run to the answer. */
  roundTripMs: number;
}

type Loaded = FixtureLoaded & { selectionId: number };

export class Playground {
  selection = $state.raw<FixtureSelection | null>(null);
  engine = $state<EngineName>('duckdb');
  /** The fixture as loaded on the current engine. */
  loaded = $state.raw<Loaded | null>(null);
  fixtureError = $state.raw<VerdictError | null>(null);
  /** What is happening to the fixture right now ("Starting DuckDB…"), or null. */
  loadingStep = $state<string | null>(null);
  engineStarts = $state.raw<Partial<Record<EngineName, EngineStarted>>>({});
  sql = $state(DEMO_QUERY);
  timeoutSeconds = $state(5);
  running = $state(false);
  cancelRequested = $state(false);
  lastRun = $state.raw<RunView | null>(null);
  /** The app worker is gone: nothing works until the page is reloaded. */
  fatal = $state<string | null>(null);

  private selectionSeq = 0;
  private loadSeq = 0;
  private runSeq = 0;
  private activeRun: string | null = null;
  private loadedBy: Partial<Record<EngineName, Loaded>> = {};

  constructor(private readonly backend: Backend) {}

  get loading(): boolean {
    return this.loadingStep !== null;
  }

  get timeoutValid(): boolean {
    return (
      Number.isFinite(this.timeoutSeconds) &&
      this.timeoutSeconds >= MIN_TIMEOUT_SECONDS &&
      this.timeoutSeconds <= MAX_TIMEOUT_SECONDS
    );
  }

  get canRun(): boolean {
    return (
      this.loaded !== null &&
      !this.loading &&
      !this.running &&
      this.timeoutValid &&
      this.sql.trim() !== '' &&
      this.fatal === null
    );
  }

  /** The worker died: record why (called by whoever watches the worker). */
  fail(reason: string): void {
    this.fatal = reason;
    this.loadingStep = null;
    this.running = false;
  }

  useDemo(): Promise<void> {
    const bytes = new TextEncoder().encode(DEMO_SQL);
    return this.select(
      { name: DEMO_FIXTURE_NAME, files: [{ fileName: `${DEMO_FIXTURE_NAME}.sql`, format: 'sql', bytes }] },
      ['duckdb', 'sqlite', 'pglite'],
      true,
    );
  }

  /** Files picked or dropped by the user. */
  useFiles(files: PickedFile[]): Promise<void> {
    const choice = fixtureFromFiles(files);
    if (!choice.ok) {
      this.fixtureError = choice.error;
      return Promise.resolve();
    }
    const { name, files: fixtureFiles, engines } = choice.value;
    return this.select({ name, files: fixtureFiles }, engines, false);
  }

  /** Browser files from the picker or a drop. */
  async openFiles(files: File[]): Promise<void> {
    let picked: PickedFile[];
    try {
      picked = await readPicked(files);
    } catch (thrown) {
      // e.g. a folder was dropped
      this.fixtureError = { code: 'input.invalid', message: `The file could not be read: ${messageOf(thrown)}` };
      return;
    }
    await this.useFiles(picked);
  }

  async chooseEngine(engine: EngineName): Promise<void> {
    if (!this.selection?.engines.includes(engine) || engine === this.engine) return;
    this.engine = engine;
    await this.loadSelection();
  }

  private async select(source: FixtureSource, engines: EngineName[], builtIn: boolean): Promise<void> {
    this.selection = { id: ++this.selectionSeq, source, engines, builtIn };
    if (!engines.includes(this.engine)) this.engine = engines[0]!;
    await this.loadSelection();
  }

  private async loadSelection(): Promise<void> {
    const selection = this.selection;
    if (!selection) return;
    const engine = this.engine;
    const seq = ++this.loadSeq;
    const current = () => seq === this.loadSeq;
    this.fixtureError = null;
    this.loaded = null;
    const cached = this.loadedBy[engine];
    if (cached?.selectionId === selection.id) {
      this.loaded = cached;
      this.loadingStep = null;
      return;
    }
    try {
      if (!this.engineStarts[engine]) {
        this.loadingStep = `Starting ${ENGINE_LABEL[engine]}…`;
        const started = await this.backend.startEngine(engine);
        if (started.ok) this.engineStarts = { ...this.engineStarts, [engine]: started.value };
        else {
          if (current()) this.fixtureError = started.error;
          return;
        }
      }
      if (!current()) return;
      this.loadingStep = `Loading ${selection.source.name} on ${ENGINE_LABEL[engine]}…`;
      const result = await this.backend.loadFixture(engine, selection.source);
      if (!current()) return;
      if (result.ok) {
        const loaded = { ...result.value, selectionId: selection.id };
        this.loadedBy[engine] = loaded;
        this.loaded = loaded;
      } else {
        delete this.loadedBy[engine];
        this.fixtureError = result.error;
      }
    } catch (thrown) {
      if (current()) this.fail(messageOf(thrown));
    } finally {
      if (current()) this.loadingStep = null;
    }
  }

  async run(): Promise<void> {
    if (!this.canRun || !this.loaded) return;
    const seq = ++this.runSeq;
    const runId = `run-${seq}`;
    const sql = this.sql;
    const engine = this.engine;
    this.activeRun = runId;
    this.running = true;
    this.cancelRequested = false;
    const started = performance.now();
    try {
      const outcome = await this.backend.execute({
        engine,
        sql,
        timeoutMs: Math.round(this.timeoutSeconds * 1000),
        maxRows: PAGE_MAX_ROWS,
        runId,
      });
      this.lastRun = { seq, sql, engine, outcome, roundTripMs: performance.now() - started };
    } catch (thrown) {
      this.fail(messageOf(thrown));
    } finally {
      if (this.activeRun === runId) {
        this.activeRun = null;
        this.running = false;
        this.cancelRequested = false;
      }
    }
  }

  async cancel(): Promise<void> {
    if (!this.activeRun || this.cancelRequested) return;
    this.cancelRequested = true;
    try {
      await this.backend.cancel(this.activeRun);
    } catch (thrown) {
      this.fail(messageOf(thrown));
    }
  }
}
