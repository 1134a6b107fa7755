/**
 * The state of the corpus views: which corpus, run and fixtures are chosen,
 * the grading in progress (streamed from the app worker), the runs kept in
 * IndexedDB, and the reviewers' decisions. Components render it and call its
 * methods; all grading happens in the worker.
 */
import { proxy } from 'comlink';
import { formatProblem } from '../../core/corpus/problems.ts';
import { messageOf, type VerdictError } from '../../core/errors.ts';
import { looksLikeRunReport } from '../../core/gate/report-kind.ts';
import { detectBenchmarkFolder, type BenchmarkFolder } from '../../core/import/folder.ts';
import type { FixtureSource } from '../../core/engine.ts';
import type { ProviderConfig } from '../../core/judge/index.ts';
import type { CaseReport, GradeProgress } from '../../core/run/grade-run.ts';
import type { LiveProgress } from './run-progress.ts';
import type { InputCheck, InputFile } from '../../worker/app.worker.ts';
import type { AppClient } from './app-client.ts';
import {
  BUILT_IN_CORPORA,
  BUILT_IN_PORTS,
  BUILT_IN_RUNS,
  DEMO_CORPUS,
  DEMO_RUN,
  fetchAsset,
  type BuiltInAsset,
} from './builtins.ts';
import { fixtureFromFiles, readPicked, type PickedFile } from './fixture-files.ts';
import { runPhis } from './run-phi.ts';
import { runStore, type Review, type StoredRun } from './store.ts';

export type Backend = Pick<
  AppClient,
  'checkCorpus' | 'checkRun' | 'gradeCorpus' | 'cancelGrade' | 'openReport' | 'importBenchmark' | 'stefPhis'
> &
  Partial<Pick<AppClient, 'warmUp'>>;

/** A dropped benchmark folder: what played which part, and its databases loaded by name. */
export interface ChosenBenchmark {
  format: BenchmarkFolder['format'];
  roles: BenchmarkFolder['roles'];
  databases: string[];
}

/** A flagged case the run is paused at (review mode). */
export interface PendingReview {
  runId: string;
  index: number;
  report: CaseReport;
}

export interface ChosenInput {
  input: InputFile;
  builtIn: boolean;
  check: InputCheck | null;
}

/** What a file looks like it is, from its name and its first bytes. */
export function classifyFile(file: PickedFile): 'corpus' | 'run' | 'report' | 'fixture' | 'unknown' {
  const name = file.name.toLowerCase();
  if (/\.(ya?ml)$/.test(name)) return 'corpus';
  if (name.endsWith('.json') || name.endsWith('.jsonl')) {
    const head = new TextDecoder().decode(file.bytes.subarray(0, 4096));
    if (looksLikeRunReport(head)) return 'report';
    if (name.endsWith('.jsonl')) return 'run';
    return /"cases"\s*:/.test(head) && /"corpus"\s*:/.test(head) && !/"records"\s*:/.test(head) ? 'corpus' : 'run';
  }
  if (/\.(sql|sqlite3?|db|duckdb|ddb|csv|tsv|parquet)$/.test(name)) return 'fixture';
  return 'unknown';
}

/**
 * A defog-style benchmark CSV (questions: question, query, db_name; predictions: generated_query or predicted_sql),
 * told apart from a one-table CSV fixture by its header. With its questions CSV it is a benchmark folder
 * (core/import/folder.ts); alone it was loaded as a fixture named after the file, silently.
 */
export function isBenchmarkCsv(file: PickedFile): boolean {
  if (!/\.csv$/i.test(file.name)) return false;
  const head = new TextDecoder().decode(file.bytes.subarray(0, 4096)).replace(/^\uFEFF/, '');
  const header = (head.split(/\r?\n/, 1)[0] ?? '').split(',').map((c) => c.trim().replace(/^"|"$/g, '').toLowerCase());
  const has = (c: string) => header.includes(c);
  return (has('question') && (has('query') || has('db_name'))) || has('generated_query') || has('predicted_sql');
}

/** The policy a run is judged by: SQL Verdict's own, or a benchmark's (the CLI's --policy). */
export type PolicyChoice = 'sql-verdict' | 'spider' | 'spider-keep-distinct' | 'bird';

export const POLICY_CHOICES: { value: PolicyChoice; label: string }[] = [
  { value: 'sql-verdict', label: 'SQL Verdict (default)' },
  { value: 'spider', label: 'Spider (execution match, DISTINCT removed)' },
  { value: 'spider-keep-distinct', label: 'Spider, keep DISTINCT' },
  { value: 'bird', label: 'BIRD (EX, Soft-F1, R-VES)' },
];

/** The preset a choice stands for (null: SQL Verdict's own policy). */
export function presetOf(choice: PolicyChoice, vesIterations: number): StoredRun['preset'] | null {
  if (choice === 'sql-verdict') return null;
  if (choice === 'bird') return { name: 'bird', ...(vesIterations > 0 ? { vesIterations } : {}) };
  return { name: 'spider', keepDistinct: choice === 'spider-keep-distinct' };
}

const isoNow = () => new Date(Date.now()).toISOString();

/** localStorage key prefix of the cases a run in progress had graded when the page went away (see grade()). */
const PENDING_CASES = 'sql-verdict-pending-cases:';

function dropPendingCases(id: string): void {
  try {
    localStorage.removeItem(PENDING_CASES + id);
  } catch {
    // No storage: nothing was kept there.
  }
}

/** A run interrupted by a reload with the cases saved as the page went away, when they are more than IndexedDB has. */
function withPendingCases(run: StoredRun): StoredRun {
  let pending: unknown = null;
  try {
    pending = JSON.parse(localStorage.getItem(PENDING_CASES + run.id) ?? 'null');
  } catch {
    pending = null;
  }
  dropPendingCases(run.id);
  if (run.status !== 'running' || !Array.isArray(pending) || pending.length <= run.cases.length) return run;
  return { ...run, cases: pending as CaseReport[] };
}

export class Workspace {
  corpus = $state.raw<ChosenInput | null>(null);
  run = $state.raw<ChosenInput | null>(null);
  /** Fixtures the user loaded, by the name a corpus refers to (file name without extension). */
  fixtures = $state.raw<Record<string, FixtureSource>>({});
  /** Problems with the files last picked or dropped. */
  fileErrors = $state.raw<VerdictError[]>([]);
  busy = $state<string | null>(null);
  timeoutSeconds = $state(5);
  /** The benchmark folder the corpus and run were imported from (null: native files). */
  benchmark = $state.raw<ChosenBenchmark | null>(null);
  /** The policy of the next run; a benchmark folder sets its own preset (the user may change it). */
  policy = $state<PolicyChoice>('sql-verdict');
  /**
   * Grade a built-in corpus that ships reference ports on PostgreSQL (PGlite), its references ported (the CLI's
   * --ports); null: on the corpus's own engine. Ignored for a corpus without ports.
   */
  portTo = $state<'pglite' | null>(null);
  /** BIRD: timed repetitions per correct case for R-VES (0: no R-VES, as the CLI without --ves-iterations). */
  vesIterations = $state(0);
  /**
   * New files are being read and checked that may replace the chosen corpus or run: the home page
   * shows "checking…" in those boxes at once, not the old files' "ok" until the new check ends.
   */
  checking = $state.raw<{ corpus: boolean; run: boolean }>({ corpus: false, run: false });

  /** Every stored run, newest first (without their bytes in the list view). */
  runs = $state.raw<StoredRun[]>([]);
  /** The run being graded right now. */
  activeId = $state<string | null>(null);
  progress = $state.raw<LiveProgress | null>(null);
  cancelRequested = $state(false);
  /** performance.now() of the first graded case of this page (bench figure). */
  firstCaseAt = $state<number | null>(null);
  /** Review mode for the next run: pause at each case flagged ambiguous or low-confidence. */
  reviewMode = $state(false);
  /** The chosen run declares another corpus (run.corpusMismatch) and the user chose to grade it anyway. */
  allowCorpusMismatch = $state(false);
  /** The case the active run waits on in review mode. */
  pendingReview = $state.raw<PendingReview | null>(null);
  private continueRun: (() => void) | null = null;

  /** `judge` gives the AI judge to use for a new run (null: none). */
  constructor(
    private readonly backend: Backend,
    private readonly judge: () => ProviderConfig | null = () => null,
  ) {}

  byId(id: string): StoredRun | undefined {
    return this.runs.find((r) => r.id === id);
  }

  /** The reference ports the chosen corpus ships with (a built-in corpus only), null when it has none. */
  get ports(): BuiltInAsset | null {
    return this.corpus?.builtIn ? (BUILT_IN_PORTS[this.corpus.input.file] ?? null) : null;
  }

  get canStart(): boolean {
    const bound = !this.run?.check?.corpusMismatch || this.allowCorpusMismatch;
    return !!this.corpus?.check?.ok && !!this.run?.check?.ok && bound && this.activeId === null && this.busy === null;
  }

  /** Load the stored runs; a run a reload interrupted is resumed. */
  async init(): Promise<void> {
    try {
      const all = (await runStore.all()).map(withPendingCases);
      this.runs = all.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    } catch (thrown) {
      this.fileErrors = [
        {
          code: 'input.invalid',
          message: `Stored runs are unavailable (IndexedDB: ${messageOf(thrown)}); runs will not survive a reload.`,
        },
      ];
      return;
    }
    const interrupted = this.runs.find((r) => r.status === 'running');
    if (interrupted) void this.resume(interrupted.id);
  }

  /**
   * Ahead of a click on the demo (the home page, when the browser is idle): the demo corpus and run fetched, the
   * corpus read in the worker and its engine started with the built-in fixtures loaded, then the demo's references
   * run (as the grading's self-check runs them first), so the demo run starts on ready engines with its references
   * answered. Nothing is chosen, shown or stored; a failure here is met again, and told, on the click.
   * Resolves with whether the engines are ready.
   */
  warmUp(): Promise<boolean> {
    if (this.warming) return this.warming;
    this.warmedUp = 'warming';
    this.warming = (async () => {
      const corpus = BUILT_IN_CORPORA.find((c) => c.file === DEMO_CORPUS);
      const run = BUILT_IN_RUNS.find((r) => r.file === DEMO_RUN);
      if (!corpus || !run || !this.backend.warmUp) return false;
      try {
        void this.assetBytes(run).catch(() => undefined);
        const started = await this.backend.warmUp({ file: corpus.file, bytes: await this.assetBytes(corpus) });
        if (started.ok) this.warmedReferences = started.value.references;
        return started.ok;
      } catch {
        return false;
      }
    })().then((ready) => {
      this.warmedUp = ready ? 'ready' : 'failed';
      return ready;
    });
    return this.warming;
  }

  /** How far warmUp() went (the browser test reads it): not asked, in progress, engines ready, or it failed. */
  warmedUp: 'idle' | 'warming' | 'ready' | 'failed' = 'idle';
  /** The demo's references the warm-up ran (their results then answer the click's self-check). */
  warmedReferences = 0;

  private warming: Promise<boolean> | null = null;
  /** The built-in files fetched so far (a few dozen KB each; the demo's are fetched by warmUp). */
  private readonly fetched: Record<string, Promise<Uint8Array>> = Object.create(null);

  private assetBytes(asset: BuiltInAsset): Promise<Uint8Array> {
    let bytes = this.fetched[asset.url];
    if (!bytes) {
      bytes = fetchAsset(asset);
      this.fetched[asset.url] = bytes;
      // A failed fetch is tried again next time.
      bytes.catch(() => delete this.fetched[asset.url]);
    }
    return bytes;
  }

  async chooseBuiltInCorpus(asset: BuiltInAsset): Promise<void> {
    // The chosen run is checked again against the new corpus.
    this.checking = { corpus: true, run: this.run !== null };
    await this.withBusy(`Reading ${asset.file}…`, async () => {
      const input = { file: asset.file, bytes: await this.assetBytes(asset) };
      await this.setCorpus(input, true);
    });
    this.checking = { corpus: false, run: false };
  }

  async chooseBuiltInRun(asset: BuiltInAsset): Promise<void> {
    this.checking = { corpus: false, run: true };
    await this.withBusy(`Reading ${asset.file}…`, async () => {
      await this.setRun({ file: asset.file, bytes: await this.assetBytes(asset) }, true);
    });
    this.checking = { corpus: false, run: false };
  }

  /**
   * Before any file is read: files that may be a corpus, a run or a benchmark's files mark both
   * boxes as being checked (databases alone, or a run report, leave the chosen corpus and run as they are).
   */
  private markChecking(names: string[]): void {
    const mayReplace = names.some((n) => !/\.(sqlite3?|db|duckdb|ddb|parquet)$/i.test(n));
    if (mayReplace) this.checking = { corpus: true, run: true };
  }

  /**
   * Files from the picker or a drop: corpora, runs and fixtures, told apart by
   * name and content; a run report the CLI wrote opens as a finished run (its
   * id is returned); a Spider or BIRD folder is imported as its corpus and run.
   */
  async openFiles(files: File[] | PickedFile[]): Promise<string | null> {
    // Synchronously, before reading a byte (a benchmark folder's databases can take a while).
    this.markChecking(files.map((f) => f.name));
    let picked: PickedFile[];
    try {
      picked = files.length && files[0] instanceof File ? await readPicked(files as File[]) : (files as PickedFile[]);
    } catch (thrown) {
      this.fileErrors = [{ code: 'input.invalid', message: `The file could not be read: ${messageOf(thrown)}` }];
      this.checking = { corpus: false, run: false };
      return null;
    }
    return this.usePicked(picked);
  }

  async usePicked(picked: PickedFile[]): Promise<string | null> {
    this.markChecking(picked.map((f) => f.name));
    try {
      return await this.checkPicked(picked);
    } finally {
      this.checking = { corpus: false, run: false };
    }
  }

  private async checkPicked(picked: PickedFile[]): Promise<string | null> {
    const errors: VerdictError[] = [];
    let opened: string | null = null;
    await this.withBusy('Checking files…', async () => {
      const detected = detectBenchmarkFolder(picked.map((f) => ({ path: f.path ?? f.name, bytes: f.bytes })));
      if (detected.kind === 'problem') {
        errors.push({ code: 'input.invalid', message: detected.message });
        return;
      }
      if (detected.kind === 'benchmark') {
        errors.push(...(await this.useBenchmark(detected.folder)));
        return;
      }
      const fixtureFiles: PickedFile[] = [];
      for (const file of picked) {
        const kind = classifyFile(file);
        if (kind === 'report') {
          const result = await this.openReport(file);
          if (typeof result === 'string') opened = result;
          else errors.push(result);
        } else if (kind === 'corpus') await this.setCorpus({ file: file.name, bytes: file.bytes }, false);
        else if (kind === 'run') await this.setRun({ file: file.name, bytes: file.bytes }, false);
        else if (kind === 'fixture' && isBenchmarkCsv(file))
          errors.push({
            code: 'input.invalid',
            message: `${file.name}: a defog-style benchmark CSV, not a fixture. Drop it together with the questions CSV (question, query, db_name), its predictions CSV (generated_query) and the databases db_name names (<db>.sqlite), or the folder that holds them.`,
            location: file.name,
          });
        else if (kind === 'fixture') fixtureFiles.push(file);
        else
          errors.push({
            code: 'input.invalid',
            message: `${file.name}: not a corpus (.yaml, .json), a run (.json, .jsonl) or a fixture (.sql, .sqlite, .db, .duckdb, .csv, .parquet).`,
            location: file.name,
          });
      }
      for (const file of fixtureFiles) {
        const choice = fixtureFromFiles([file]);
        if (!choice.ok) {
          errors.push(choice.error);
          continue;
        }
        const name = file.name.replace(/\.[^.]+$/, '');
        this.fixtures = { ...this.fixtures, [name]: { name, files: choice.value.files } };
      }
    });
    this.fileErrors = errors;
    return opened;
  }

  /**
   * A Spider or BIRD folder: the core importer (in the worker) turns it into
   * the corpus and run `sql-verdict import` writes, and every database is
   * loaded by its name (the app's --db-dir). Grading then goes as for native files.
   */
  private async useBenchmark(folder: BenchmarkFolder): Promise<VerdictError[]> {
    const imported = await this.backend.importBenchmark({
      format: folder.format,
      ...(folder.gold ? { gold: folder.gold } : {}),
      ...(folder.questions ? { questions: folder.questions } : {}),
      ...(folder.pred ? { pred: folder.pred } : {}),
      databases: folder.databases,
    });
    const problems = imported.problems.map((p) => ({
      code: 'input.invalid' as const,
      message: formatProblem(p),
      ...(p.file ? { location: p.file } : {}),
    }));
    if (!imported.ok || !imported.corpus || !imported.run) return problems;
    const fixtures: Record<string, FixtureSource> = {};
    for (const name of imported.databases) {
      const file = folder.databaseFiles[name];
      if (file)
        fixtures[name] = {
          name,
          files: [{ fileName: file.path.split('/').pop()!, format: 'sqlite', bytes: file.bytes }],
        };
    }
    this.fixtures = fixtures;
    this.benchmark = { format: folder.format, roles: folder.roles, databases: imported.databases };
    // defog's CSV has no execution-match policy of its own: SQL Verdict's, with its alternatives.
    this.policy = folder.format === 'csv' ? 'sql-verdict' : folder.format;
    this.corpus = null;
    this.run = null;
    await this.setCorpus(imported.corpus, false);
    await this.setRun(imported.run, false);
    return [];
  }

  /** STEF Φ of each case's query of a finished run (scored in the worker, kept per run). */
  stefPhis(run: StoredRun): Promise<Map<string, number>> {
    return runPhis(this.backend, run);
  }

  /** A run report the CLI wrote, checked as the gate checks it, stored as a finished run; its id, or the problem. */
  async openReport(file: PickedFile): Promise<string | VerdictError> {
    const opened = await this.backend.openReport({ file: file.path ?? file.name, bytes: file.bytes });
    if (!opened.ok) return opened.error;
    const report = opened.value.report;
    const now = isoNow();
    const stored: StoredRun = {
      id: `${now.replace(/[:.]/g, '-')}-${Math.random().toString(36).slice(2, 6)}`,
      createdAt: now,
      status: 'done',
      corpus: { file: report.corpus.file || report.corpus.name, bytes: new Uint8Array() },
      run: { file: report.run.file, bytes: new Uint8Array() },
      userFixtures: [],
      timeoutMs: Number(report.run_metadata.config?.query_timeout_ms ?? 0),
      total: report.cases.length,
      cases: report.cases,
      report,
      error: null,
      reviews: {},
      resumed: 0,
      fixtureDigests: Object.fromEntries(report.fixtures.map((f) => [f.name, f.content_digest_before])),
      openedFrom: { file: file.path ?? file.name, form: opened.value.form, startedAt: report.run_metadata.started_at },
    };
    await this.save(stored);
    return stored.id;
  }

  private async setCorpus(input: InputFile, builtIn: boolean): Promise<void> {
    // A corpus chosen by hand replaces an imported benchmark (its databases stay loaded by name).
    if (!input.file.endsWith(' (imported)') && this.benchmark) {
      this.benchmark = null;
      this.policy = 'sql-verdict';
    }
    const check = await this.backend.checkCorpus(input);
    this.corpus = { input, builtIn, check };
    // A chosen run is re-checked against the new corpus's ids.
    if (this.run) await this.setRun(this.run.input, this.run.builtIn);
  }

  private async setRun(input: InputFile, builtIn: boolean): Promise<void> {
    const ids = this.caseIds();
    const chosen = this.corpus?.check?.ok
      ? { name: String(this.corpus.check.summary?.name ?? ''), sha256: this.corpus.check.sha256 }
      : undefined;
    const check = await this.backend.checkRun(input, ids, chosen);
    this.run = { input, builtIn, check };
    // Grading anyway is chosen per run file and corpus, never carried over.
    this.allowCorpusMismatch = false;
  }

  private caseIds(): string[] | undefined {
    return this.corpus?.check?.ok ? this.corpus.check.caseIds : undefined;
  }

  /** One click: the demo corpus with the demo run. */
  async runDemo(): Promise<string | null> {
    const corpus = BUILT_IN_CORPORA.find((c) => c.file === DEMO_CORPUS);
    const run = BUILT_IN_RUNS.find((r) => r.file === DEMO_RUN);
    if (!corpus || !run) return null;
    await this.chooseBuiltInCorpus(corpus);
    await this.chooseBuiltInRun(run);
    return this.start();
  }

  /** Start grading the chosen corpus and run; returns the stored run's id. */
  async start(): Promise<string | null> {
    if (!this.canStart || !this.corpus || !this.run) return null;
    const now = isoNow();
    const preset = presetOf(this.policy, Math.max(0, Math.floor(this.vesIterations || 0)));
    const portsAsset = this.portTo ? this.ports : null;
    let ports: InputFile | null = null;
    if (portsAsset) {
      try {
        ports = { file: portsAsset.file, bytes: await fetchAsset(portsAsset) };
      } catch (thrown) {
        this.fileErrors = [{ code: 'input.not_found', message: `${portsAsset.file}: ${messageOf(thrown)}` }];
        return null;
      }
    }
    const stored: StoredRun = {
      id: `${now.replace(/[:.]/g, '-')}-${Math.random().toString(36).slice(2, 6)}`,
      createdAt: now,
      status: 'running',
      corpus: this.corpus.input,
      run: this.run.input,
      userFixtures: Object.keys(this.fixtures),
      timeoutMs: Math.round(this.timeoutSeconds * 1000),
      total: Number(this.corpus.check?.summary?.cases ?? 0),
      cases: [],
      report: null,
      error: null,
      reviews: {},
      resumed: 0,
      fixtureDigests: null,
      reviewMode: this.reviewMode,
      ...(this.allowCorpusMismatch ? { allowCorpusMismatch: true } : {}),
      judge: this.judgeRecord(this.judge()),
      keptOnResume: 0,
      ...(this.benchmark ? { switchEngines: true } : {}),
      ...(preset ? { preset } : {}),
      ...(ports ? { ports } : {}),
    };
    await this.save(stored);
    void this.grade(stored, this.judge());
    return stored.id;
  }

  private judgeRecord(config: ProviderConfig | null): StoredRun['judge'] {
    return config ? { kind: config.kind, baseUrl: config.baseUrl, model: config.model } : null;
  }

  /**
   * Go on with a run a reload interrupted: the cases graded before are kept
   * (when the fixtures' digests are unchanged) and grading starts at the first
   * missing case.
   */
  async resume(id: string): Promise<void> {
    const stored = this.byId(id);
    if (!stored || this.activeId) return;
    const missing = stored.userFixtures.filter((name) => !this.fixtures[name]);
    if (missing.length) {
      // Still resumable: it stays interrupted until the fixture is back.
      await this.save({
        ...stored,
        error: { code: 'input.not_found', message: `Load fixture ${missing.join(', ')} again, then resume this run.` },
      });
      return;
    }
    let judge: ProviderConfig | null = null;
    if (stored.judge) {
      judge = this.judge();
      const same =
        judge &&
        judge.kind === stored.judge.kind &&
        judge.baseUrl === stored.judge.baseUrl &&
        judge.model === stored.judge.model;
      if (!same) {
        await this.save({
          ...stored,
          error: {
            code: 'input.invalid',
            message: `This run used the AI judge ${stored.judge.kind} ${stored.judge.model} at ${stored.judge.baseUrl}: turn it on again (with its key), then resume.`,
          },
        });
        return;
      }
    }
    await this.save({ ...stored, status: 'running', error: null, resumed: stored.resumed + 1 });
    void this.grade(this.byId(id)!, judge);
  }

  private async grade(stored: StoredRun, judge: ProviderConfig | null): Promise<void> {
    this.activeId = stored.id;
    this.cancelRequested = false;
    // The run's clock is this page's, ticking between events: engines and fixtures load for seconds before the
    // first one, and a runaway query holds the line for its whole budget (the line read "elapsed 0.0 ms" meanwhile).
    const startedAt = performance.now();
    const elapsedMs = () => performance.now() - startedAt;
    const ticker = setInterval(() => {
      if (this.progress && this.activeId === stored.id) this.progress = { ...this.progress, elapsedMs: elapsedMs() };
    }, 250);
    this.progress = {
      index: 0,
      total: stored.total,
      id: '',
      step: 'selfcheck',
      elapsedMs: 0,
      done: stored.cases.length,
      // Until the worker says how many it keeps: the cases graded before are none of this session's time.
      kept: stored.cases.length,
    };
    let kept = stored.cases.length;
    // Graded cases by corpus index: with a judge they can finish out of order.
    const graded: (CaseReport | undefined)[] = [];
    let done = 0;
    const previous = stored.cases;
    const ordered = () => graded.filter((c): c is CaseReport => c !== undefined);
    // Earlier cases stay visible until this grading reaches (or keeps) them.
    const merged = () => {
      const now = ordered();
      const seen: Record<string, true> = Object.create(null);
      for (const c of now) seen[c.id] = true;
      return [...now, ...previous.filter((c) => !seen[c.id])];
    };
    let lastSave = 0;
    let trailingSave: ReturnType<typeof setTimeout> | null = null;
    // By corpus index: the latest step of a case started and not done (null once done); `earliest`: the first open one.
    const open: (GradeProgress | null)[] = [];
    let earliest = 0;
    const update = (patch: Partial<StoredRun>, persist: boolean) => {
      const current = this.byId(stored.id);
      if (!current) return;
      const next = { ...current, ...patch };
      this.replace(next);
      if (persist) void runStore.put(next).catch(() => undefined);
    };
    const listener = proxy({
      started: (info: { fixtureDigests: Record<string, string>; resumed: number }) => {
        update({ fixtureDigests: info.fixtureDigests, keptOnResume: info.resumed }, true);
        kept = info.resumed;
        if (this.progress) this.progress = { ...this.progress, kept };
      },
      progress: (event: GradeProgress) => {
        if (event.step === 'selfcheck' || event.step === 'policy') {
          // The references are checked beside the cases: while a case is in flight the line names it (the one the
          // run waits for), not the reference being checked meanwhile.
          if (event.step === 'selfcheck' && open[earliest]) return;
          this.progress = { ...event, elapsedMs: elapsedMs(), done, kept };
          return;
        }
        // Many cases are in flight and recorded in corpus order: the line names the earliest one not done yet,
        // the case the run is waiting for (a runaway query, say), not the last one started.
        open[event.index] = event.step === 'done' ? null : event;
        earliest = Math.min(earliest, event.index);
        while (earliest < open.length && !open[earliest]) earliest++;
        this.progress = { ...(open[earliest] ?? event), elapsedMs: elapsedMs(), done, kept };
      },
      caseDone: (report: CaseReport, index: number) => {
        this.firstCaseAt ??= performance.now();
        if (!graded[index]) done++;
        graded[index] = report;
        const cases = merged();
        const now = Date.now();
        const persist = now - lastSave > 1000;
        if (persist) lastSave = now;
        update({ cases }, persist);
        // Saved at most once a second, and at the latest a second later: a runaway query holding the next cases
        // for its whole budget must not leave the ones graded before it unsaved (a reload would lose them).
        trailingSave ??= persist
          ? null
          : setTimeout(() => {
              trailingSave = null;
              lastSave = Date.now();
              update({ cases: merged() }, true);
            }, 1000);
      },
      review: (report: CaseReport, index: number) =>
        new Promise<void>((resolve) => {
          // Persist what is graded so far: a reload during a pause loses nothing.
          update({ cases: merged() }, true);
          this.pendingReview = { runId: stored.id, index, report };
          this.continueRun = () => {
            this.pendingReview = null;
            this.continueRun = null;
            resolve();
          };
        }),
    });
    // A reload (or a closed tab) inside that second lost every case graded in it: a burst after a slow case can be
    // dozens. Chromium drops an IndexedDB write begun as the page goes away, so those cases go to localStorage
    // (synchronous), and init() takes them back.
    const flush = () => {
      if (!trailingSave) return;
      clearTimeout(trailingSave);
      trailingSave = null;
      const cases = merged();
      update({ cases }, true);
      try {
        localStorage.setItem(PENDING_CASES + stored.id, JSON.stringify(cases));
      } catch {
        // Over quota or no storage: the cases of that last second are graded again.
      }
    };
    addEventListener('pagehide', flush);
    const resumeFrom =
      stored.fixtureDigests && previous.length ? { cases: previous, fixtureDigests: stored.fixtureDigests } : undefined;
    try {
      const outcome = await this.backend.gradeCorpus(
        {
          gradeId: stored.id,
          corpus: stored.corpus,
          run: stored.run,
          fixtures: Object.fromEntries(stored.userFixtures.map((n) => [n, this.fixtures[n]!])),
          timeoutMs: stored.timeoutMs,
          ...(judge ? { judge } : {}),
          ...(stored.reviewMode ? { review: true } : {}),
          ...(stored.allowCorpusMismatch ? { allowCorpusMismatch: true } : {}),
          ...(resumeFrom ? { resume: resumeFrom } : {}),
          ...(stored.switchEngines ? { switchEngines: true } : {}),
          ...(stored.preset ? { preset: stored.preset } : {}),
          ...(stored.ports ? { ports: stored.ports } : {}),
        },
        listener,
      );
      const current = this.byId(stored.id) ?? stored;
      if (outcome.ok)
        await this.save({ ...current, status: 'done', cases: outcome.value.cases, report: outcome.value, error: null });
      else
        await this.save({
          ...current,
          status: outcome.error.code === 'run.cancelled' ? 'cancelled' : 'failed',
          cases: merged(),
          error: outcome.error,
        });
    } catch (thrown) {
      const current = this.byId(stored.id) ?? stored;
      await this.save({ ...current, status: 'failed', error: { code: 'execution.error', message: messageOf(thrown) } });
    } finally {
      clearInterval(ticker);
      removeEventListener('pagehide', flush);
      dropPendingCases(stored.id);
      if (trailingSave) clearTimeout(trailingSave);
      this.continueRun?.();
      this.activeId = null;
      this.progress = null;
      this.cancelRequested = false;
    }
  }

  /** Review mode: record the decision on the paused case and let the run go on. */
  async decideAndContinue(review: Omit<Review, 'at'> | null): Promise<void> {
    const pending = this.pendingReview;
    if (!pending) return;
    if (review) await this.review(pending.runId, pending.report.id, review);
    this.continueRun?.();
  }

  async cancel(): Promise<void> {
    if (!this.activeId || this.cancelRequested) return;
    this.cancelRequested = true;
    await this.backend.cancelGrade(this.activeId);
    // A paused run ends without waiting for the reviewer.
    this.continueRun?.();
  }

  /** Record a reviewer's decision next to the verdict. */
  async review(id: string, caseId: string, review: Omit<Review, 'at'>): Promise<void> {
    const stored = this.byId(id);
    if (!stored) return;
    await this.save({ ...stored, reviews: { ...stored.reviews, [caseId]: { ...review, at: isoNow() } } });
  }

  async remove(id: string): Promise<void> {
    if (id === this.activeId) return;
    this.runs = this.runs.filter((r) => r.id !== id);
    await runStore.delete(id);
  }

  private replace(run: StoredRun): void {
    const others = this.runs.filter((r) => r.id !== run.id);
    this.runs = [run, ...others].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  private async save(run: StoredRun): Promise<void> {
    this.replace(run);
    try {
      await runStore.put(run);
    } catch {
      // Not persisted (private mode, quota): the run still shows until the page closes.
    }
  }

  private async withBusy(label: string, work: () => Promise<void>): Promise<void> {
    this.busy = label;
    try {
      await work();
    } catch (thrown) {
      this.fileErrors = [{ code: 'input.invalid', message: messageOf(thrown) }];
    } finally {
      this.busy = null;
    }
  }
}
