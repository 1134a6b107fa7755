/**
 * The app's pipeline worker: the page talks only to this (comlink). It holds
 * the engines (each a supervised engine host worker), loads fixtures and runs
 * SQL with a timeout. Everything crossing is plain data; failures come back
 * as `{ok: false, error}`, never as a throw.
 */
import { expose } from 'comlink';
import { glanceAtCorpus } from '../core/corpus/glance.ts';
import { loadCorpus } from '../core/corpus/load-corpus.ts';
import { corpusMismatch } from '../core/corpus/binding.ts';
import { loadRun, type LoadedRun } from '../core/corpus/load-run.ts';
import { portCorpusWith } from '../core/corpus/dialect-ports.ts';
import { describeCorpus, type CorpusDescription } from '../core/corpus/describe.ts';
import { parseSchemaDescription, type SchemaDescription } from '../core/corpus/schema-description.ts';
import { formatProblem, hasErrors, type LoadProblem } from '../core/corpus/problems.ts';
import type { CorpusCase, LoadedCorpus } from '../core/corpus/types.ts';
import { runSelfCheck, type SelfCheckReport } from '../core/corpus/selfcheck.ts';
import {
  thrownExecution,
  browserEngineFor,
  crossEngineNames,
  DEFAULT_TIMEOUT_MS,
  enginesForFormat,
  ENGINE_NAMES,
  type Engine,
  type EngineName,
  type ExecuteOutcome,
  type FixtureInfo,
  type FixtureSource,
} from '../core/engine.ts';
import { fail, messageOf, ok, type Outcome, type VerdictError } from '../core/errors.ts';
import { parseEvaluationRequest } from '../core/evaluation/request.ts';
import {
  createProvider,
  standardRuntime,
  type JudgeProvider,
  type ProviderConfig,
  type StandardGlobals,
} from '../core/judge/index.ts';
import { evaluate } from '../core/pipeline.ts';
import type { EvaluationReport } from '../core/report/report.ts';
import {
  compareWithRowDiff,
  type CompareOptions,
  type ComparisonConfig,
  type ResultComparison,
  type RowDiff,
} from '../core/result/index.ts';
import { encodeResultTable, type JsonResultTable } from '../core/value/json-codec.ts';
import type { ResultTable } from '../core/value/kind.ts';
import {
  gradeRun,
  type CaseReport,
  type GradeProgress,
  type GradeRunInput,
  type RunReport,
} from '../core/run/grade-run.ts';
import { evaluateStef, evaluateStefWithJudge, type StefInput, type StefReport } from '../core/stef/index.ts';
import { BUILT_IN_FIXTURES, builtInAsOf, fetchBuiltInFixture } from './built-in-fixtures.ts';
import { openRunReport, type OpenedReport } from '../core/gate/open-report.ts';
import { corpusYaml, runJsonl, type BenchmarkFormat, type DatabaseFolder } from '../core/import/common.ts';
import { importBird } from '../core/import/bird.ts';
import { importCsv } from '../core/import/csv.ts';
import { importSpider } from '../core/import/spider.ts';
import { monitorLog, type MonitorInput, type MonitorListener, type MonitoredLog } from './stef-monitor.ts';
import { applyPreset, type PolicyPreset } from '../core/run/preset-grade.ts';
import { ExecutionCache } from '../core/run/execution-cache.ts';
import { openEngine } from '../engines/browser.ts';
import { EnginePool } from '../engines/engine-pool.ts';
import { createNeighbourHost, type NeighbourHost } from '../core/neighbours/host.ts';
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
/** Scratch engine hosts for neighbour databases (config.neighbours), started on first use. */
let neighbours: NeighbourHost | null = null;
const neighbourHost = (): NeighbourHost => (neighbours ??= createNeighbourHost({ open: (name) => openEngine(name) }));
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
  return fail('input.invalid', `Unknown engine "${String(value)}"; expected one of ${ENGINE_NAMES.join(', ')}.`, {
    location: 'engine',
  });
}

/** A file the page read (picker, drop, built-in asset). */
export interface InputFile {
  file: string;
  bytes: Uint8Array;
}

export interface GradeInput {
  /** Names this grading for `cancelGrade`. */
  gradeId: string;
  corpus: InputFile;
  run: InputFile;
  /** Fixtures the user loaded, by the name the corpus uses; the rest come from the built-ins. */
  fixtures?: Record<string, FixtureSource>;
  /** Per-query budget (default 5000 ms). */
  timeoutMs?: number;
  reliabilityPenalty?: number;
  /** An AI judge for the cases below the threshold (advisory). Requests go to its base URL only. */
  judge?: ProviderConfig & { threshold?: number; concurrency?: number };
  /** Review mode: pause at each flagged case until the listener's `review` resolves. */
  review?: boolean;
  /** Cases graded before a reload, and the fixture digests they were graded on. */
  resume?: { cases: CaseReport[]; fixtureDigests: Record<string, string> };
  /** Grade a run that declares another corpus or digest (the user chose to continue). */
  allowCorpusMismatch?: boolean;
  /** A benchmark folder's databases (the app's --db-dir): one engine, reloaded per database. */
  switchEngines?: boolean;
  /** Re-judge the graded run under a benchmark's policy (the CLI's --policy spider|bird), SQL Verdict's outcome kept per case. */
  preset?: PolicyPreset & { vesIterations?: number };
  /** Reference ports (the CLI's --ports): the corpus's references in another engine's dialect, graded on it. */
  ports?: InputFile;
}

/** A Spider, BIRD or defog-style CSV benchmark's text files and its database folder's ids (the database bytes stay on the page). */
export interface BenchmarkInput {
  format: BenchmarkFormat;
  gold?: InputFile;
  questions?: InputFile;
  pred?: InputFile;
  databases: DatabaseFolder;
}

/** The benchmark as the native files `sql-verdict import` writes: the corpus YAML and the run JSONL. */
export interface ImportedInputs {
  ok: boolean;
  problems: LoadProblem[];
  corpus: InputFile | null;
  run: InputFile | null;
  databases: string[];
}

/** What the worker streams while grading (a comlink proxy on the page). */
export interface GradeListener {
  progress(event: GradeProgress & { elapsedMs: number }): void;
  caseDone(report: CaseReport, index: number): void;
  /** The fixtures' digests before grading, and how many earlier cases were kept. */
  started?(info: { fixtureDigests: Record<string, string>; resumed: number }): void;
  /** Review mode: resolves when the reviewer has recorded a decision (or skipped it). */
  review?(report: CaseReport, index: number): Promise<void>;
}

export interface InputCheck {
  ok: boolean;
  problems: LoadProblem[];
  sha256: string;
  /** Corpus: name, engine, case count and the fixtures it names; run: metadata and record count. */
  summary: Record<string, string | number | null> | null;
  /** A corpus's case ids, in order. */
  caseIds?: string[];
  /**
   * Run: it declares another corpus or corpus digest than the one chosen
   * ("file (field run.corpus): it declares …"); grading needs allowCorpusMismatch.
   */
  corpusMismatch?: string;
}

export interface CompareInput {
  engine: EngineName;
  /** A built-in fixture name, or a fixture source. */
  fixture: string | FixtureSource;
  question: string;
  expectedSql: string;
  actualSql: string;
  orderMatters?: boolean;
  /** The case's shape (scalar, top_n, …), when it declares one. */
  shape?: string | null;
  /** Evaluation config fields (a shared case's); validated, over the defaults. */
  config?: Record<string, unknown> | null;
  timeoutMs?: number;
  /**
   * An AI judge to annotate the comparison (advisory: the deterministic
   * verdict never changes). Requests go from this worker to `baseUrl` only;
   * the deployment's CSP connect-src must admit that origin.
   */
  judge?: ProviderConfig;
}

export interface CaseResultsInput {
  engine: EngineName;
  /** A built-in fixture name, or a fixture source (a user fixture). */
  fixture: string | FixtureSource;
  expectedSql: string;
  actualSql: string;
  timeoutMs?: number;
  /** Rows materialized per side at most (default 100,000); past it the first rows are kept and the side says so. */
  maxRows?: number;
  /** The comparison policy of the report being viewed (so the marks agree with its verdict). */
  config?: Partial<ComparisonConfig>;
  orderKeys?: CompareOptions['orderKeys'];
}

export interface FullSide {
  table: JsonResultTable | null;
  error: VerdictError | null;
  /** The result had more than maxRows rows: only the first maxRows are here. */
  capped: boolean;
  elapsedMs: number;
}

export interface CaseResults {
  expected: FullSide;
  actual: FullSide;
  maxRows: number;
  /** The comparison of the rows held here, and its row alignment (null when a side failed). */
  comparison: ResultComparison | null;
  rows: RowDiff | null;
  compareMs: number;
}

/** Keep the first `maxRows` rows of a query that returns more (the engine refuses to materialize past the limit). */
function firstRows(sql: string, maxRows: number): string {
  const body = sql.trim().replace(/(;\s*)+$/, '');
  // The newline ends a trailing line comment before the closing parenthesis.
  return `SELECT * FROM (\n${body}\n) AS full_result_rows LIMIT ${maxRows}`;
}

/**
 * The engines of corpus runs, one pool per engine kind, kept for later runs. One engine per fixture for a whole
 * run: a warm spare from the start doubled the DuckDB-WASM starts and fixture loads of every run (the demo: 2 more
 * engines competing with the self-check) to save a reload after a timeout; it is kept only once a timeout happened.
 */
const gradePools = new Map<EngineName, EnginePool>();
const grades = new Map<string, AbortController>();
/** Log analyses of the Monitor view, by monitorId (cancelMonitor). */
const monitors = new Map<string, AbortController>();

/** Tells versions of a user's fixture apart (the same name, other files). */
function sourceKey(name: string, source: FixtureSource): string {
  const bytes = source.files.reduce((n, f) => n + f.bytes.length, 0);
  return `user:${name}:${source.files.map((f) => f.fileName).join(',')}:${bytes}`;
}

/**
 * config.cross_engine: the fixture on every other engine that loads it (a built-in SQL dump: DuckDB, SQLite and PGlite;
 * a given fixture: the engines all its files load on), pooled as the graded engine is.
 */
async function otherEngines(graded: EngineName, name: string, source?: FixtureSource): Promise<Outcome<Engine[]>> {
  const loadable = source
    ? ENGINE_NAMES.filter((n) => source.files.every((f) => enginesForFormat(f.format).includes(n)))
    : (['duckdb', 'sqlite', 'pglite'] as EngineName[]);
  const names = crossEngineNames(graded, loadable);
  if (!names.length)
    return fail(
      'input.invalid',
      `Cross-engine: fixture ${name} loads on ${graded} only, so there is no other engine.`,
      {
        location: 'config.cross_engine',
      },
    );
  // Side by side: PGlite's first start (initdb) is the longest.
  const opened = await Promise.all(names.map((n) => pooledEngine(n, name, source)));
  const engines: Engine[] = [];
  for (const [i, o] of opened.entries()) {
    if (!o.ok) return fail(o.error.code, `Cross-engine: ${names[i]} could not load the fixture: ${o.error.message}`);
    engines.push(o.value);
  }
  return ok(engines);
}

/** An engine holding `name` (a user fixture when given, else the built-in), kept for later runs. */
function pooledEngine(engine: EngineName, name: string, source?: FixtureSource): Promise<Outcome<Engine>> {
  let pool = gradePools.get(engine);
  if (!pool) {
    pool = new EnginePool({
      open: () => openEngine(engine, { warmSpare: 'after-restart' }),
      source: builtInFixture,
    });
    gradePools.set(engine, pool);
  }
  return pool.engineFor(name, source ? { key: sourceKey(name, source), source } : undefined);
}

async function builtInFixture(name: string): Promise<Outcome<FixtureSource>> {
  if (!BUILT_IN_FIXTURES.includes(name))
    return fail(
      'input.not_found',
      `Fixture "${name}" is neither built in (${BUILT_IN_FIXTURES.join(', ')}) nor loaded: add its file on the home page.`,
      { location: name },
    );
  return fetchBuiltInFixture(name);
}

/**
 * The app's `--db-dir`: a benchmark folder names dozens of databases, and an engine host worker per database would
 * cost a worker (and its wasm) each. One engine is reloaded with the database the next case needs, as the CLI's
 * DbDirPool does (cases come grouped by database, so reloading is rare).
 */
function switchingPool(engine: EngineName, sources: Record<string, FixtureSource>): EnginePool {
  return new EnginePool({
    open: () => openEngine(engine),
    source: (name) =>
      sources[name]
        ? ok(sources[name])
        : fail(
            'input.not_found',
            `No database file for ${name}: add ${name}.sqlite (or its folder) to the dropped files.`,
            { location: name },
          ),
    capacity: 1,
  });
}

/** A request's fixture: a built-in's name, or a user's fixture (its source, by its name). */
function fixtureOf(fixture: string | FixtureSource): { name: string; source: FixtureSource | undefined } {
  return typeof fixture === 'string' ? { name: fixture, source: undefined } : { name: fixture.name, source: fixture };
}

/** The engine, with every query of this grading stopped by its abort signal. */
function withSignal(engine: Engine, signal: AbortSignal): Engine {
  return {
    name: engine.name,
    version: () => engine.version(),
    load: (f) => engine.load(f),
    execute: (sql, options) => engine.execute(sql, { ...options, signal }),
    contentDigest: () => engine.contentDigest(),
    explain: (sql, options) => engine.explain(sql, options),
    close: () => engine.close(),
  };
}

type CorpusRead = { loaded: LoadedCorpus | null; check: InputCheck };

/**
 * The corpora read last, by file name and bytes: a corpus is read when chosen (checkCorpus), again to grade it
 * (gradeInputs), and the demo's once more ahead of the click (warmUp). Reading the 64-case demo corpus costs
 * 170–400 ms (its YAML and every reference parsed); the result is plain data no caller changes.
 */
const readCorpora: { file: string; bytes: Uint8Array; read: Promise<CorpusRead> }[] = [];
const READ_CORPORA_KEPT = 2;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function corpusFrom(input: InputFile): Promise<CorpusRead> {
  const kept = readCorpora.find((r) => r.file === input.file && sameBytes(r.bytes, input.bytes));
  if (kept) return kept.read;
  const read = readCorpus(input);
  // A read that threw is not kept (the next call reads again).
  read.catch(() => readCorpora.splice(readCorpora.findIndex((r) => r.read === read) >>> 0, 1));
  readCorpora.unshift({ file: input.file, bytes: input.bytes, read });
  readCorpora.length = Math.min(readCorpora.length, READ_CORPORA_KEPT);
  return read;
}

async function readCorpus(input: InputFile): Promise<CorpusRead> {
  const result = await loadCorpus(input.bytes, { file: input.file });
  if (!result.ok || hasErrors(result.problems))
    return {
      loaded: null,
      check: {
        ok: false,
        problems: result.problems,
        sha256: result.ok ? result.loaded.sha256 : result.sha256,
        summary: null,
      },
    };
  const c = result.loaded.corpus;
  return {
    loaded: result.loaded,
    check: {
      ok: true,
      problems: result.problems,
      sha256: result.loaded.sha256,
      summary: {
        name: c.name,
        version: c.version,
        engine: c.engine,
        cases: c.cases.length,
        fixtures: [...new Set(c.cases.map((k) => k.fixture))].join(', '),
      },
      caseIds: c.cases.map((k) => k.id),
    },
  };
}

/** The judge for a request, built from the settings the page sent (none: null). Requests go to its base URL only. */
function judgeProvider(config: ProviderConfig | undefined): Outcome<JudgeProvider | null> {
  return config ? createProvider(config, standardRuntime(globalThis as unknown as StandardGlobals)) : ok(null);
}

/** The corpus of a grading (with its ports) and its run, checked against each other: the first problem is told. */
async function gradeInputs(input: GradeInput): Promise<Outcome<{ corpus: LoadedCorpus; run: LoadedRun }>> {
  const read = await corpusFrom(input.corpus);
  if (!read.loaded)
    return fail('input.invalid', `Corpus ${input.corpus.file} has errors; nothing was graded.`, {
      location: input.corpus.file,
    });
  const ported = input.ports
    ? portCorpusWith(read.loaded, new TextDecoder().decode(input.ports.bytes), input.ports.file)
    : ok(read.loaded);
  if (!ported.ok) return ported;
  const corpus = ported.value;
  const caseIds = corpus.corpus.cases.map((c) => c.id);
  const run = await loadRun(input.run.bytes, { file: input.run.file, caseIds });
  if (!run.ok || hasErrors(run.problems))
    return fail('input.invalid', `Run file ${input.run.file} has errors; nothing was graded.`, {
      location: input.run.file,
    });
  const mismatch = corpusMismatch(run.run.metadata, { name: corpus.corpus.name, sha256: corpus.sha256 });
  if (mismatch && !input.allowCorpusMismatch)
    return fail(
      'input.invalid',
      `${input.run.file} (field ${mismatch.field}): ${mismatch.text}. Nothing was graded; choose "Grade anyway" to grade it against this corpus.`,
      { location: mismatch.field },
    );
  return ok({ corpus, run: run.run });
}

/**
 * A grading's engine for a fixture (the switching pool's, else a pooled one), its queries stopped by `signal`,
 * its repeatable results kept in `cache` (the self-check's references are the cases' references: run once).
 */
function gradeEngineFor(
  input: GradeInput,
  engine: EngineName,
  switching: EnginePool | null,
  signal: AbortSignal,
  cache: ExecutionCache,
): GradeRunInput['engineFor'] {
  return async (name) => {
    const pooled = switching
      ? await switching.engineFor(name)
      : await pooledEngine(engine, name, input.fixtures?.[name]);
    if (!pooled.ok) return pooled;
    // A built-in fixture's results are kept across gradings (builtInResults). Another fixture's are this grading's,
    // keyed by its name: within one grading a name holds one content (a digest would be one more call queued behind
    // the engine's running queries for every case).
    const builtIn = !switching && !input.fixtures?.[name];
    const engineOf = withSignal(pooled.value, signal);
    return ok(builtIn ? builtInResults.wrap(engineOf, builtInKey(name)) : cache.wrap(engineOf, name));
  };
}

/** Cells of results a grading keeps for its repeated queries (the page's memory, not the CLI's 1 M). */
const GRADE_CACHE_CELLS = 500_000;

/**
 * Repeatable results on the built-in fixtures, kept for every grading of this page: a built-in fixture is this
 * build's content, whichever grading loads it (a user's file of the same name is another engine of the pool).
 * The home page's warm-up runs the demo's references into it (warmReferences), so the click's self-check finds
 * them answered.
 */
const builtInResults = new ExecutionCache({ maxCells: GRADE_CACHE_CELLS });
const builtInKey = (name: string) => `built-in:${name}`;

/**
 * The references of `cases` on built-in fixtures, run into builtInResults as a grading's self-check runs them:
 * in corpus order, the fixtures side by side. Then each fixture's content digest, which those queries made the
 * engine forget: a grading takes it before its first query, and finds it ready. How many references ran.
 */
async function warmReferences(cases: readonly CorpusCase[], engine: EngineName): Promise<number> {
  const byFixture = new Map<string, string[]>();
  for (const c of cases)
    if (c.referenceSql && BUILT_IN_FIXTURES.includes(c.fixture))
      byFixture.set(c.fixture, [...(byFixture.get(c.fixture) ?? []), c.referenceSql]);
  const ran = await Promise.all(
    [...byFixture].map(async ([name, references]) => {
      const pooled = await pooledEngine(engine, name);
      if (!pooled.ok) return 0;
      const cached = builtInResults.wrap(pooled.value, builtInKey(name));
      let n = 0;
      for (const sql of references) if ((await cached.execute(sql)).ok) n++;
      await pooled.value.contentDigest();
      return n;
    }),
  );
  return ran.reduce((a, b) => a + b, 0);
}

/**
 * Cases in flight at once (without judge or review pause). Wide enough that, while a runaway query holds its
 * fixture's engine for the whole timeout, the cases of the other fixtures are graded on theirs; a case waiting
 * for an engine holds nothing but its request, and finished ones are recorded in corpus order.
 */
const APP_CASE_WINDOW = 64;

/** What gradeRun is told besides the inputs and engines: the timeout, the judge, RS(c)'s penalty, a resume. */
function gradeSettings(input: GradeInput, provider: JudgeProvider | null): Partial<GradeRunInput> {
  return {
    config: {
      query_timeout_ms: input.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      ...(provider ? { enable_ai_judge: true } : {}),
    },
    ...(provider
      ? {
          judge: {
            provider,
            options: input.judge?.threshold !== undefined ? { threshold: input.judge.threshold } : {},
          },
          ...(input.judge?.concurrency ? { judgeConcurrency: input.judge.concurrency } : {}),
        }
      : {}),
    reliabilityPenalty: input.reliabilityPenalty ?? 1,
    ...(input.resume ? { resume: input.resume } : {}),
    concurrency: APP_CASE_WINDOW,
  };
}

/** gradeRun's events, forwarded to the page; in review mode each flagged case waits for the reviewer. */
function gradeEvents(
  input: GradeInput,
  listener: GradeListener | undefined,
  progress: (event: GradeProgress) => void,
): Pick<GradeRunInput, 'onStart' | 'onProgress' | 'onCase' | 'onReview'> {
  return {
    onStart: (info) => void listener?.started?.(info),
    onProgress: progress,
    onCase: (report, index) => void listener?.caseDone(report, index),
    ...(input.review && listener?.review
      ? { onReview: (report: CaseReport, index: number) => listener.review!(report, index) }
      : {}),
  };
}

/** input.preset: the CLI's step after grading (run.ts, bench.ts), the same core function on the same engines. */
async function judgedAgain(
  report: RunReport,
  input: GradeInput,
  graded: Pick<GradeRunInput, 'corpus' | 'run' | 'engineFor'>,
  progress: (event: GradeProgress) => void,
  signal: AbortSignal,
): Promise<Outcome<RunReport>> {
  const { vesIterations, ...preset } = input.preset!;
  const judged = await applyPreset({
    report,
    ...graded,
    preset,
    config: { query_timeout_ms: input.timeoutMs ?? DEFAULT_TIMEOUT_MS },
    reliabilityPenalty: input.reliabilityPenalty ?? 1,
    ...(vesIterations ? { vesIterations } : {}),
    // The page shows "judging again under <preset>: case i of n" (it can take long with R-VES timings).
    onProgress: (index, total, id) => progress({ index, total, id, step: 'policy' }),
  });
  // Cancelled while judging again: the remaining cases' queries were refused, so their preset verdicts mean nothing.
  if (signal.aborted)
    return fail('run.cancelled', 'The run was cancelled while it was judged again under the policy preset.');
  return judged;
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
      return fail('sandbox.engine_crashed', `The ${name} engine could not start: ${messageOf(thrown)}`, {
        raw: messageOf(thrown),
      });
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
      return answer(
        fail('input.invalid', `The timeout must be between 1 and ${MAX_TIMEOUT_MS} ms (got ${timeoutMs}).`, {
          location: 'timeoutMs',
        }),
      );
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
      return answer(thrownExecution(thrown));
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

  /**
   * Ahead of a likely run (the home page, idle): read `corpus` and start, on its engine, an engine per built-in
   * fixture it names, loaded as a grading's pool has them (a grading then finds them ready, or joins the loads in
   * progress), then run its references on them into builtInResults, as a grading's self-check runs them first (a
   * grading then finds them answered, or waits for the one running). Nothing is graded. The fixtures started and
   * the references run, or why not.
   */
  async warmUp(corpus: InputFile): Promise<Outcome<{ engine: EngineName; fixtures: string[]; references: number }>> {
    // The built-in fixtures the corpus names start loading while it is read (the demo's YAML: about 0.5 s here).
    const glance = glanceAtCorpus(new TextDecoder().decode(corpus.bytes));
    if (glance && (ENGINE_NAMES as readonly string[]).includes(glance.engine))
      for (const name of glance.fixtures.filter((n) => BUILT_IN_FIXTURES.includes(n)))
        void pooledEngine(browserEngineFor(glance.engine as EngineName), name).catch(() => undefined);
    const read = await corpusFrom(corpus);
    if (!read.loaded) return fail('input.invalid', `Corpus ${corpus.file} has errors.`);
    const engine = browserEngineFor(read.loaded.corpus.engine);
    const names = [...new Set(read.loaded.corpus.cases.map((c) => c.fixture))].filter((n) =>
      BUILT_IN_FIXTURES.includes(n),
    );
    const loaded = await Promise.all(names.map((name) => pooledEngine(engine, name)));
    const failed = loaded.find((o) => !o.ok);
    if (failed && !failed.ok) return failed;
    return ok({ engine, fixtures: names, references: await warmReferences(read.loaded.corpus.cases, engine) });
  },

  /** Validate a corpus file: precise problems (file, line, case, field) or its summary. */
  async checkCorpus(input: InputFile): Promise<InputCheck> {
    return (await corpusFrom(input)).check;
  },

  /** Validate a run file against a corpus's case ids (and, given the corpus, the corpus it declares). */
  async checkRun(input: InputFile, caseIds?: string[], corpus?: { name: string; sha256: string }): Promise<InputCheck> {
    const result = await loadRun(input.bytes, { file: input.file, ...(caseIds ? { caseIds } : {}) });
    if (!result.ok || hasErrors(result.problems))
      return {
        ok: false,
        problems: result.problems,
        sha256: result.ok ? result.run.sha256 : result.sha256,
        summary: null,
      };
    const m = result.run.metadata;
    const mismatch = corpus ? corpusMismatch(m, corpus) : null;
    return {
      ...(mismatch ? { corpusMismatch: `${input.file} (field ${mismatch.field}): ${mismatch.text}` } : {}),
      ok: true,
      problems: result.problems,
      sha256: result.run.sha256,
      summary: {
        agent: m.agent ?? null,
        model: m.model ?? null,
        path: m.path ?? null,
        created_at: m.createdAt ?? null,
        records: result.run.records.length,
        missing: result.run.missingIds.length,
        notes: m.notes ?? null,
      },
    };
  },

  /**
   * Grade a run against a corpus (oracle self-check first), streaming progress
   * per step and each graded case. Cancel with `cancelGrade(gradeId)`.
   */
  async gradeCorpus(input: GradeInput, listener?: GradeListener): Promise<Outcome<RunReport>> {
    const started = performance.now();
    const inputs = await gradeInputs(input);
    if (!inputs.ok) return inputs;
    const { corpus, run } = inputs.value;
    const controller = new AbortController();
    grades.get(input.gradeId)?.abort();
    grades.set(input.gradeId, controller);
    const engine = browserEngineFor(corpus.corpus.engine);
    const judge = judgeProvider(input.judge);
    if (!judge.ok) return judge;
    const switching = input.switchEngines ? switchingPool(engine, input.fixtures ?? {}) : null;
    const cache = new ExecutionCache({ maxCells: GRADE_CACHE_CELLS });
    const engineFor = gradeEngineFor(input, engine, switching, controller.signal, cache);
    // Every progress event the page hears carries the time since this call.
    const progress = (event: GradeProgress): void =>
      void listener?.progress({ ...event, elapsedMs: performance.now() - started });
    try {
      const graded = await gradeRun({
        corpus,
        run,
        engineFor,
        // The clock each fixture's engine was given: an added file's own, else the built-in's.
        fixtureAsOf: (name) => (input.fixtures?.[name] ? input.fixtures[name].asOf : builtInAsOf(name)),
        ...(switching ? { engineSwitching: true } : {}),
        // Each fixture's references are checked on its own engine, side by side: a fixture's cases start once its
        // own references are checked, not every fixture's (the demo's runaway candidate, case 9 on retail, no longer
        // waits for retail_monthly's 24). The page hears of the cases only once every reference passed, so a broken
        // oracle is refused as before, with no case shown. A review pause or an AI judge (requests for a run that
        // may yet be refused) still waits for the whole self-check.
        ...(input.review || judge.value
          ? { selfCheckFirst: true }
          : { selfCheckByFixture: true, holdCasesUntilSelfChecked: true }),
        ...gradeSettings(input, judge.value),
        signal: controller.signal,
        ...gradeEvents(input, listener, progress),
      });
      if (!graded.ok || !input.preset) return graded;
      return await judgedAgain(graded.value, input, { corpus, run, engineFor }, progress, controller.signal);
    } catch (thrown) {
      return fail('execution.error', `Grading stopped: ${messageOf(thrown)}`, { raw: messageOf(thrown) });
    } finally {
      if (grades.get(input.gradeId) === controller) grades.delete(input.gradeId);
      await switching?.close();
    }
  },

  /** A run report the CLI wrote (JSON or JSONL), checked as the gate checks it, for the results views. */
  async openReport(input: InputFile): Promise<Outcome<OpenedReport>> {
    return openRunReport(input.file, input.bytes);
  },

  /** A dropped Spider/BIRD/CSV folder through the core importer: the corpus and run `sql-verdict import` would write. */
  async importBenchmark(input: BenchmarkInput): Promise<ImportedInputs> {
    const common = { databases: input.databases };
    const result =
      input.format === 'csv' && input.questions
        ? importCsv({ questions: input.questions, ...(input.pred ? { pred: input.pred } : {}), ...common })
        : input.format === 'spider'
          ? importSpider({
              ...(input.gold ? { gold: input.gold } : {}),
              ...(input.questions ? { questions: input.questions } : {}),
              ...(input.pred ? { pred: input.pred } : {}),
              ...common,
            })
          : input.questions
            ? importBird({ questions: input.questions, ...(input.pred ? { pred: input.pred } : {}), ...common })
            : {
                ok: false as const,
                problems: [
                  {
                    severity: 'error' as const,
                    code: 'missing_field' as const,
                    file: '(folder)',
                    message: 'BIRD needs its questions file (dev.json).',
                  },
                ],
              };
    if (!result.ok || hasErrors(result.problems))
      return { ok: false, problems: result.problems, corpus: null, run: null, databases: [] };
    const label = (input.gold ?? input.questions)!.file;
    return {
      ok: true,
      problems: result.problems,
      corpus: { file: `${label} (imported)`, bytes: new TextEncoder().encode(corpusYaml(result.imported)) },
      // JSONL whatever the predictions file was called (a .json name would be read as a JSON run).
      run: {
        file: `${input.pred?.file ?? 'predictions'} (imported)`,
        bytes: new TextEncoder().encode(runJsonl(result.imported)),
      },
      databases: result.imported.databases,
    };
  },

  /** Stop a grading: the running query is cancelled and no further case starts. */
  cancelGrade(gradeId: string): boolean {
    const controller = grades.get(gradeId);
    controller?.abort();
    return controller !== undefined;
  },

  /**
   * The self-check of a corpus (SPEC 4), the one `sql-verdict selfcheck` runs: every reference against its frozen
   * result at zero tolerance, and the golden lint. On its own engine, the user's fixtures by name, else the built-ins.
   */
  async selfCheckCorpus(input: InputFile, fixtures?: Record<string, FixtureSource>): Promise<Outcome<SelfCheckReport>> {
    const corpus = await corpusFrom(input);
    if (!corpus.loaded) return fail('input.invalid', `Corpus ${input.file} has errors.`);
    const engine = openEngine(browserEngineFor(corpus.loaded.corpus.engine));
    try {
      return ok(
        await runSelfCheck(corpus.loaded, engine, {
          fixtures: async (name) => {
            const own = fixtures?.[name];
            if (own) return { source: { ...own, name } };
            const builtIn = await fetchBuiltInFixture(name);
            return builtIn.ok ? { source: { ...builtIn.value, name } } : null;
          },
        }),
      );
    } catch (thrown) {
      return fail('execution.error', `The self-check of ${input.file} stopped: ${messageOf(thrown)}`, {
        raw: messageOf(thrown),
      });
    } finally {
      await engine.close();
    }
  },

  /** Content digest of a built-in fixture, recomputed here (to check it against its stamp). */
  async builtInDigest(engine: EngineName, name: string): Promise<Outcome<string>> {
    const pooled = await pooledEngine(engine, name);
    return pooled.ok ? pooled.value.contentDigest() : pooled;
  },

  /** Content digest of a fixture as grading would load it: the user's source when given, else the built-in. */
  async fixtureDigest(engine: EngineName, name: string, source?: FixtureSource): Promise<Outcome<string>> {
    if (!isEngineName(engine)) return unknownEngine(engine);
    try {
      const pooled = await pooledEngine(engine, name, source);
      return pooled.ok ? await pooled.value.contentDigest() : pooled;
    } catch (thrown) {
      return fail('fixture.load_failed', `Fixture ${name}: ${messageOf(thrown)}`, {
        location: name,
        raw: messageOf(thrown),
      });
    }
  },

  /** A corpus's cases with the difficulty each counts as, its counts and stamp (corpus browser). */
  async describeCorpus(input: InputFile): Promise<Outcome<CorpusDescription>> {
    try {
      const result = await loadCorpus(input.bytes, { file: input.file });
      if (!result.ok || hasErrors(result.problems)) {
        const errors = result.problems.filter((p) => p.severity === 'error');
        return fail(
          'input.invalid',
          `Corpus ${input.file} has ${errors.length} error(s):\n${errors.slice(0, 20).map(formatProblem).join('\n')}`,
          { location: input.file },
        );
      }
      return ok(describeCorpus(result.loaded, result.problems));
    } catch (thrown) {
      return fail('input.invalid', `Corpus ${input.file} could not be described: ${messageOf(thrown)}`, {
        location: input.file,
      });
    }
  },

  /** A fixture's schema description (YAML text) read for display; parsed here so the page bundle carries no YAML parser. */
  async parseSchema(yamlText: string, file: string): Promise<Outcome<SchemaDescription>> {
    return parseSchemaDescription(String(yamlText), String(file));
  },

  /** One comparison (SPEC 1.4): the full pipeline on a built-in or given fixture. */
  async compare(input: CompareInput): Promise<Outcome<EvaluationReport>> {
    if (!isEngineName(input.engine)) return unknownEngine(input.engine);
    const { name, source } = fixtureOf(input.fixture);
    const pooled = await pooledEngine(input.engine, name, source);
    if (!pooled.ok) return pooled;
    const judge = judgeProvider(input.judge);
    if (!judge.ok) return judge;
    const provider = judge.value;
    // The request is built and validated where every request is (evaluation/request.ts).
    // The app's own default timeout, unless the input (a shared case's config) sets one.
    const timeoutMs = input.timeoutMs ?? (input.config ? input.config.query_timeout_ms : DEFAULT_TIMEOUT_MS);
    const request = parseEvaluationRequest({
      user_query: input.question,
      actual_sql: input.actualSql,
      expected_sql: input.expectedSql,
      config: {
        ...input.config,
        ...(timeoutMs !== undefined ? { query_timeout_ms: timeoutMs } : {}),
        enable_ai_judge: provider !== null,
      },
      context: {
        fixture: name,
        order_matters: input.orderMatters ?? false,
        ...(input.shape ? { shape: input.shape } : {}),
      },
    });
    if (!request.ok) return request;
    const others = request.value.config.cross_engine ? await otherEngines(input.engine, name, source) : ok([]);
    if (!others.ok) return others;
    try {
      const report = await evaluate(request.value, pooled.value, {
        ...(provider ? { judge: { provider } } : {}),
        ...((request.value.config.neighbours ?? 0) > 0 ? { neighbourHost: neighbourHost() } : {}),
        ...(others.value.length ? { otherEngines: others.value.map((engine) => ({ engine })) } : {}),
      });
      return ok(report);
    } catch (thrown) {
      return fail('execution.error', messageOf(thrown), { raw: messageOf(thrown) });
    }
  },

  /**
   * Both whole results of one comparison, for the side-by-side view:
   * executes the reference and the candidate on the fixture (pooled engine),
   * and compares them under the given policy with the row alignment.
   */
  async caseResults(input: CaseResultsInput): Promise<Outcome<CaseResults>> {
    if (!isEngineName(input.engine)) return unknownEngine(input.engine);
    const maxRows = input.maxRows ?? DEFAULT_APP_MAX_ROWS;
    if (!Number.isInteger(maxRows) || maxRows < 1 || maxRows > 1_000_000)
      return fail('input.invalid', `maxRows must be a whole number from 1 to 1,000,000 (got ${maxRows}).`, {
        location: 'maxRows',
      });
    const { name, source } = fixtureOf(input.fixture);
    const pooled = await pooledEngine(input.engine, name, source);
    if (!pooled.ok) return pooled;
    const engine = pooled.value;
    const timeoutMs = input.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const run = async (sql: string): Promise<{ side: FullSide; rows: ResultTable | null }> => {
      const started = performance.now();
      let capped = false;
      let outcome = await engine.execute(sql, { timeoutMs, maxRows });
      if (!outcome.ok && outcome.error.code === 'sandbox.resource_exhausted' && /rows/.test(outcome.error.message)) {
        capped = true;
        outcome = await engine.execute(firstRows(sql, maxRows), { timeoutMs, maxRows });
      }
      const elapsedMs = performance.now() - started;
      if (!outcome.ok) return { side: { table: null, error: outcome.error, capped, elapsedMs }, rows: null };
      const table = { columns: outcome.value.columns, rows: outcome.value.rows };
      return { side: { table: encodeResultTable(table), error: null, capped, elapsedMs }, rows: table };
    };
    try {
      const expected = await run(input.expectedSql);
      const actual = await run(input.actualSql);
      if (!expected.rows || !actual.rows)
        return ok({
          expected: expected.side,
          actual: actual.side,
          maxRows,
          comparison: null,
          rows: null,
          compareMs: 0,
        });
      const started = performance.now();
      const { comparison, rows } = compareWithRowDiff(
        expected.rows,
        actual.rows,
        input.config ?? {},
        input.orderKeys !== undefined ? { orderKeys: input.orderKeys } : {},
      );
      return ok({
        expected: expected.side,
        actual: actual.side,
        maxRows,
        comparison,
        rows,
        compareMs: performance.now() - started,
      });
    } catch (thrown) {
      return fail('execution.error', messageOf(thrown), { raw: messageOf(thrown) });
    }
  },

  /**
   * One query graded schema-agnostically (STEF): no fixture, no engine. With
   * `judge`, the semantic verdict and its confidence are the judge's (the rules
   * answer when it fails, with `judge_error`); requests go to `baseUrl` only.
   */
  async stefScore(request: { input: StefInput; judge?: ProviderConfig }): Promise<Outcome<StefReport>> {
    const judge = judgeProvider(request.judge);
    if (!judge.ok) return judge;
    try {
      return await evaluateStefWithJudge(request.input, judge.value);
    } catch (thrown) {
      return fail('execution.error', messageOf(thrown), { raw: messageOf(thrown) });
    }
  },

  /**
   * STEF Φ of many queries under the deterministic rules (no judge, no engine): the
   * Compare page's Φ histograms. Off the page's thread: a query takes tens of ms to
   * parse and align. null where a query has no Φ (it does not parse, bad input).
   */
  stefPhis(inputs: StefInput[]): (number | null)[] {
    return inputs.map((input) => {
      try {
        const r = evaluateStef(input);
        return r.ok ? r.value.phi : null;
      } catch {
        return null;
      }
    });
  },

  /**
   * A production log monitored as the CLI's `stef --log` does (rules only), read as a stream here, with
   * progress; bad lines are named and the good ones still counted. Cancel with `cancelMonitor(monitorId)`.
   */
  async stefMonitor(input: MonitorInput, listener?: MonitorListener): Promise<Outcome<MonitoredLog>> {
    const controller = new AbortController();
    monitors.get(input.monitorId)?.abort();
    monitors.set(input.monitorId, controller);
    try {
      return await monitorLog(input, listener, controller.signal);
    } catch (thrown) {
      return fail('execution.error', `The log could not be read: ${messageOf(thrown)}`, { raw: messageOf(thrown) });
    } finally {
      if (monitors.get(input.monitorId) === controller) monitors.delete(input.monitorId);
    }
  },

  cancelMonitor(monitorId: string): boolean {
    const controller = monitors.get(monitorId);
    controller?.abort();
    return controller !== undefined;
  },

  /** Stop every engine (their workers end). */
  async close(): Promise<void> {
    for (const controller of inFlight.values()) controller.abort();
    for (const controller of grades.values()) controller.abort();
    const closing = [...[...engines.values()].map((e) => e.close()), ...[...gradePools.values()].map((p) => p.close())];
    engines.clear();
    gradePools.clear();
    await Promise.allSettled(closing);
  },
};

export type AppApi = typeof api;

expose(api);
