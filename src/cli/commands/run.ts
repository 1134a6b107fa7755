// Only what comes before the engines start is imported here: the grading code (the pipeline, its SQL grammars)
// and the report writers load while the first fixture's engine starts and loads (runCommand), not before.
import type { CaseReport, GradeRunInput, RunReport } from '../../core/run/grade-run.ts';
import type { LoadedCorpus } from '../../core/corpus/types.ts';
import type * as HtmlModule from '../../core/report/html.ts';
import type { HtmlCaseDetail } from '../../core/report/html.ts';
import { CASE_REPORT_INDENT, RunReportWriter } from '../report-stream.ts';
import { shardOption, withShard } from '../shard.ts';
import { openEngine } from '../../engines/node.ts';
import { asOfParts } from '../../core/engine.ts';
import { resolveCorpusFixture } from '../fixtures.ts';
import { INCLUDE_OPTIONS } from '../../core/report/include-options.ts';
import { byteSize, oneOf, parseFlags, positiveInteger } from '../args.ts';
import { CliError, EXIT } from '../cli-error.ts';
import { checkFixturesUsed, EnginePool, fixtureOverrides, gradingPoolFor, workersFromEnv } from '../engine-pool.ts';
import { duckDbDriverOf } from '../../engines/node-sessions.ts';
import { chooseDuckDb } from '../duckdb-choice.ts';
import { BUILT_IN_CORPORA, checkPortsUsed, readCorpus, readPorts, readRun, withPorts } from '../inputs.ts';
import type { Io } from '../io.ts';
import { judgeFromEnv } from '../judge-env.ts';
import { POLICY_PRESETS, type PolicyPresetName } from '../../core/run/policy-presets.ts';
import { listDbDir } from '../db-dir.ts';
import { prettyJson, printJson, rememberPrinted } from '../json.ts';
import {
  corpusFixtureAsOf,
  nodeCrossEngines,
  nodeNeighbourHost,
  ORACLE_FLAGS,
  ORACLE_HELP,
  oracleConfig,
} from '../oracle-flags.ts';
import { outputs, type Outputs, writeSummaryExports } from '../outputs.ts';
import { progressReporter } from '../progress.ts';
import { checkThresholds, parseThresholds, THRESHOLD_HELP } from '../thresholds.ts';
import { percent } from '../../core/gate/interval.ts';
import { mark, timelineOn } from '../../engines/timeline.ts';

export const RUN_HELP = `Usage: sql-verdict run --corpus FILE|NAME --run FILE [options]
       sql-verdict run --format spider|bird|csv ... --db-dir DIR   (benchmark files as they are;
                                                                  "run --format x --help")

Grade every case of a corpus against a run of the system under test. The oracle
self-check runs alongside (each case after its own reference): a reference that no
longer returns its frozen result refuses grading (exit 2, cases named, no report). Fixtures come from the built-ins (retail,
retail_monthly) or --fixture NAME=PATH.

Options:
  --corpus FILE|NAME     corpus YAML/JSON, or execution_goldens / refusal_battery
  --run FILE             run file (JSON or JSONL records {id, sql, declined, ...})
  --ports FILE           reference ports: the corpus's reference SQL in another engine's
                         dialect, graded on that engine (e.g. execution_goldens on PGlite:
                         fixtures/corpora/ports/execution_goldens.postgres.yaml)
  --fixture NAME=PATH    load fixture NAME from PATH (repeatable)
  --db-dir DIR           load every fixture NAME from DIR/NAME/NAME.sqlite (or DIR/NAME.sqlite)
  --as-of INSTANT        freeze the clock (current_date, now(), date('now')) of the fixtures
                         given with --fixture or --db-dir at this ISO date or instant (the
                         built-in fixtures keep their own)
  --timeout-ms N         per-query budget (default 5000)
  --max-result-bytes SIZE
                         memory budget of one query's decoded result, checked while rows
                         stream out of the engine (e.g. 64MiB; default 256MiB): past it the
                         query is resource_exhausted and the run goes on
  --reliability-c C      penalty c of the reliability score RS(c) (default 1)
  --out FILE             write the JSON run report ("-": stdout, for every output flag)
  --markdown FILE        write a Markdown summary (pull-request comment)
  --junit FILE           write JUnit XML (one test case per corpus case, named by its question)
  --csv FILE             write a CSV of cases
  --html FILE            write a standalone HTML report (no scripts: summary, breakdowns with
                         95% intervals, each failing case with its SQL and result samples)
${THRESHOLD_HELP}
  --judge                ask the configured AI judge (SQL_VERDICT_JUDGE_* variables) about
                         cases below the 0.92 score threshold; advisory only
  --judge-threshold X    judge only cases scoring below X (0–1, default 0.92)
  --judge-concurrency N  judge requests in flight at most (default 10)
  --include intermediates
                         add each case's ASTs, full result tables and result schemas
                         to its report (large); verdicts are unchanged
  --shard K/N            grade only shard K of N (cases at corpus positions i with
                         i mod N = K-1); "sql-verdict merge" combines the N reports.
                         Exit 0 once graded: verdicts and thresholds belong to the merge
  --engine duckdb-wasm   DuckDB corpora on DuckDB-WASM. By default they grade on native
                         DuckDB (@duckdb/node-api) where its binding loads (same sandbox,
                         verdicts and evidence; starts in milliseconds, no 4 GiB heap),
                         else on DuckDB-WASM; --engine duckdb-native insists on native
${ORACLE_HELP}
  --allow-corpus-mismatch
                         grade a run whose run.corpus / run.corpus_sha256 names another
                         corpus or version (refused by default, exit 2)
  --policy P             sql-verdict (default), spider or bird: grade under the benchmark's
                         own policy too; the report keeps SQL Verdict's verdict per case
                         beside it (docs/benchmark-files.md)
  --keep-distinct        with --policy spider: compare with DISTINCT kept
  --ves-iterations N     with --policy bird: time each correct prediction and its gold N
                         times for R-VES and VES
  --json                 print the JSON run report on stdout
  -h, --help             show this help

Exit status: 0 every case correct (with a threshold: every threshold met), 1 otherwise,
2 bad input or a broken oracle.`;

export const SELFCHECK_HELP = `Usage: sql-verdict selfcheck [--corpus FILE|NAME ...] [--ports FILE ...] [--fixture NAME=PATH ...] [--as-of INSTANT] [--json]

Execute every reference query on its fixture (twice) and compare it with its frozen
expected result under the comparison policy with zero tolerance, and lint the goldens:
empty results, clock-dependent or random functions, different results on two runs, a
LIMIT cutting through a tie, a reference over the time budget (--time-budget-ms, default
2000), fixture digests. Without --corpus, checks the built-in corpora. --ports FILE
checks the corpus it names with its references ported to another engine's dialect, on
that engine (e.g. fixtures/corpora/ports/execution_goldens.postgres.yaml: PGlite).
--as-of INSTANT freezes the clock of the fixtures given with --fixture, as for run.
Exit status: 0 clean (no finding), 1 findings (cases named), 2 bad input.`;

/** Failing cases the HTML report shows in full (their details are kept while grading). */
export const HTML_MAX_FAILURES = 500;

function pct(n: number, d: number): string {
  return d === 0 ? '—' : percent(n / d);
}

/** One case's neighbours, as the summary line needs them (kept while cases stream, or read from the report). */
export interface NeighbourTally {
  id: string;
  requested: number;
  base_seed: number;
  budget_ms: number;
  checked: number;
  cut_short: boolean;
  skipped: boolean;
  coincidental: boolean;
}

export function neighbourTally(k: CaseReport): NeighbourTally | null {
  const n = k.report?.evidence?.neighbours;
  if (!n) return null;
  return {
    id: k.id,
    requested: n.requested,
    base_seed: n.base_seed,
    budget_ms: n.budget_ms,
    checked: n.checked,
    cut_short: n.budget_exhausted && !n.counterexample,
    skipped: !!n.skipped,
    coincidental: !!n.counterexample,
  };
}

/**
 * What --neighbours did: how many passing cases were checked, how many failed as coincidental_match, and
 * which the budget cut short (their pass rests on fewer neighbours than asked, maybe none), so a budget
 * that ran out is not read as "checked on K neighbours".
 */
function neighbourLines(all: readonly NeighbourTally[]): string[] {
  if (!all.length) return [];
  const first = all[0]!;
  const short = all.filter((e) => e.cut_short);
  const skipped = all.filter((e) => e.skipped);
  const checked = all.reduce((sum, e) => sum + e.checked, 0);
  const names = (list: readonly NeighbourTally[]) =>
    list
      .slice(0, 20)
      .map((e) => e.id)
      .join(', ') + (list.length > 20 ? ` and ${list.length - 20} more` : '');
  return [
    `Neighbours (K = ${first.requested}, base seed ${first.base_seed}): ${all.length} cases passing on the fixture, ${all.filter((e) => e.coincidental).length} coincidental_match` +
      (short.length
        ? `; ${short.length} cut short by the budget (${first.budget_ms} ms), ${checked} neighbours checked in all: ${names(short)}`
        : `; ${checked} neighbours checked`) +
      (skipped.length ? `; ${skipped.length} not checked (neighbours_skipped): ${names(skipped)}` : ''),
  ];
}

/**
 * `flagged`: the cases with review flags, and `neighbours` their neighbour tallies, when the report does not hold
 * its cases (a streamed --out).
 */
export function summarizeRunReport(
  report: RunReport,
  flagged: Pick<CaseReport, 'id' | 'review_flags'>[] = report.cases.filter((k) => k.review_flags.length),
  neighbours: readonly NeighbourTally[] = report.cases.flatMap((k) => neighbourTally(k) ?? []),
): string {
  const s = report.summary;
  const lines = [
    `${report.corpus.name} v${report.corpus.version} (${report.corpus.size} cases, sha256 ${report.corpus.sha256.slice(0, 12)}…) · run ${report.run.agent ?? '?'} / ${report.run.model ?? 'no model'} / ${report.run.path ?? 'no path'}`,
    `Answer accuracy: ${s.answer_accuracy.correct}/${s.answer_accuracy.total} (${pct(s.answer_accuracy.correct, s.answer_accuracy.total)})`,
  ];
  if (s.refusal_recall.total)
    lines.push(
      `Refusal recall: ${s.refusal_recall.declined}/${s.refusal_recall.total} (${pct(s.refusal_recall.declined, s.refusal_recall.total)})`,
    );
  if (s.over_refusal.total)
    lines.push(
      `Over-refusal: ${s.over_refusal.declined}/${s.over_refusal.total} (${pct(s.over_refusal.declined, s.over_refusal.total)})`,
    );
  lines.push(
    `Reliability RS(${s.reliability.c}): ${s.reliability.sum} (mean ${s.reliability.mean === null ? '—' : s.reliability.mean.toFixed(3)})`,
  );
  if (s.failures.length) {
    lines.push(`Failures (${s.failures.length}):`);
    for (const f of s.failures)
      lines.push(
        `  ${f.id} [${f.outcome}] ${f.reason ?? ''}${f.query ? `\n    query: ${f.query.replace(/\s+/g, ' ').slice(0, 200)}` : ''}`,
      );
  }
  if (s.missed_refusals.length) lines.push(`Missed refusals: ${s.missed_refusals.join(', ')}`);
  lines.push(...neighbourLines(neighbours));
  const x = report.cross_engine;
  if (x) {
    lines.push(
      `Cross-engine (graded on ${x.graded_engine}; ${x.cases} cases ran on ${x.engines.map((e) => e.engine).join(', ')}): ${x.engine_dependent} engine_dependent${x.engine_dependent ? `: ${x.engine_dependent_ids.join(', ')}` : ''}`,
    );
    for (const e of x.engines)
      lines.push(
        `  ${e.engine}: ${e.pass} pass, ${e.fail} fail${e.undecided ? `, ${e.undecided} undecided` : ''}${e.not_comparable ? `, ${e.not_comparable} not comparable` : ''}, ${e.dialect_error} not its dialect${e.dialect_error ? ` (${e.dialect_error_ids.join(', ')})` : ''}`,
      );
  }
  const j = report.judge_summary;
  if (j) {
    const m = j.agreement_matrix;
    lines.push(
      `AI judge (advisory; ${j.provider ?? 'none'} / ${j.model ?? 'no model'}, prompt ${j.prompt_version}, threshold ${j.threshold}, concurrency ${j.concurrency}): ` +
        `${j.judged} judged, ${j.skipped.above_threshold} above the threshold, ${j.errors} errors`,
      `  agreement: deterministic pass → judge pass ${m.deterministic_pass.ai_pass} / fail ${m.deterministic_pass.ai_fail}; deterministic fail → judge pass ${m.deterministic_fail.ai_pass} / fail ${m.deterministic_fail.ai_fail}` +
        (j.agreement_rate === null ? '' : ` (${percent(j.agreement_rate)} agree)`),
      `  tokens ${j.usage.input_tokens} in / ${j.usage.output_tokens} out, ${j.usage.requests} requests, latency mean ${j.latency_ms.mean === null ? '—' : `${Math.round(j.latency_ms.mean)} ms`}` +
        (j.cost_estimate === null ? '' : `, cost ≈ ${j.cost_estimate.toFixed(4)}`),
    );
    if (j.review_queue.length) lines.push(`  review queue (judge disagrees): ${j.review_queue.join(', ')}`);
  }
  if (flagged.length)
    lines.push(
      `For review (${flagged.length}): ${flagged.map((k) => `${k.id} [${[...new Set(k.review_flags.map((f) => f.code))].join(', ')}]`).join('; ')}`,
    );
  return lines.join('\n');
}

const RUN_FLAGS = {
  corpus: { type: 'string' },
  run: { type: 'string' },
  ports: { type: 'string' },
  fixture: { type: 'string', multiple: true },
  'db-dir': { type: 'string' },
  'as-of': { type: 'string' },
  'timeout-ms': { type: 'string' },
  'max-result-bytes': { type: 'string' },
  'reliability-c': { type: 'string' },
  out: { type: 'string' },
  markdown: { type: 'string' },
  junit: { type: 'string' },
  csv: { type: 'string' },
  html: { type: 'string' },
  judge: { type: 'boolean' },
  'judge-threshold': { type: 'string' },
  'judge-concurrency': { type: 'string' },
  include: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  'allow-corpus-mismatch': { type: 'boolean' },
  shard: { type: 'string' },
  ...ORACLE_FLAGS,
  'min-accuracy': { type: 'string' },
  'min-refusal-recall': { type: 'string' },
  'max-over-refusal': { type: 'string' },
  policy: { type: 'string' },
  'keep-distinct': { type: 'boolean' },
  'ves-iterations': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type RunFlags = ReturnType<typeof parseFlags<typeof RUN_FLAGS>>['values'];

/** `sql-verdict run`: flags and files → gradeRun (then a policy preset) → the report and its exports. */
export async function runCommand(argv: string[], io: Io): Promise<number> {
  // A benchmark's own files (Spider, BIRD, CSV): see bench.ts.
  const has = (flag: string) => argv.some((a) => a === flag || a.startsWith(`${flag}=`));
  if (has('--format') || (has('--db-dir') && !has('--corpus')))
    return (await import('./bench.ts')).benchRunCommand(argv, io);
  const { values, positionals } = parseFlags('run', argv, RUN_FLAGS);
  if (values.help) {
    io.out(RUN_HELP);
    return EXIT.ok;
  }
  if (positionals.length) throw new CliError(`run: unexpected argument "${positionals[0]}".`);
  const options = runOptions(values, io);
  const out = outputs(
    'run',
    io,
    { out: values.out, markdown: values.markdown, junit: values.junit, csv: values.csv, html: values.html },
    // A built-in corpus name is no file; a file of that name in the folder would be.
    { json: values.json, inputs: { '--corpus': values.corpus, '--run': values.run, '--ports': values.ports } },
  );
  mark('run command loaded, flags parsed');
  const progress = progressReporter(io, { json: values.json });
  const { read, corpus, run } = await runInputs(values, io);
  mark('corpus and run read');
  const engines = runEngines(values, corpus, read, io);
  // --out FILE streams case reports as they are graded; only --json and --out - need them all in memory at the end.
  // Under a preset the cases are re-judged after grading, so the report is written whole at the end.
  const writer = values.out && values.out !== '-' && !options.preset ? new RunReportWriter(values.out, io) : null;
  const kept = new KeptForOutputs(!!values.html);
  try {
    // A shard is a selection of cases before the run loop (src/core/report/merge.ts).
    const gradedCorpus = options.shard ? options.shard.select(corpus) : corpus;
    // The first case's fixture starts loading now (its engine thread starts): the grading code loads meanwhile.
    const first = gradedCorpus.corpus.cases[0];
    if (first) void engines.pool.engineFor(first.fixture).catch(() => undefined);
    const [{ gradeRun }, html] = await Promise.all([
      import('../../core/run/grade-run.ts'),
      values.html ? import('../../core/report/html.ts') : null,
    ]);
    kept.html = html;
    mark('grading code loaded');
    const graded = await gradeRun({
      corpus: gradedCorpus,
      run,
      engineFor: engines.pool.engineFor,
      fixtureAsOf: engines.asOf,
      ...(engines.neighbourHost ? { neighbourHost: engines.neighbourHost } : {}),
      ...(engines.crossEngines ? { crossEngine: engines.crossEngines } : {}),
      ...(engines.grader ? { grader: engines.grader } : {}),
      ...gradeSettings(options, engines.oracle),
      retainCases: !!values.json || values.out === '-' || options.preset !== null,
      onCase: (k, index) => {
        writer?.add(k, index);
        kept.add(k, index);
      },
      onProgress: (p) => {
        if (timelineOn && p.index === 0) mark(`case 1: ${p.step}`);
        if (p.step === 'done') progress.update(p.index + 1, p.total, p.id);
      },
    });
    progress.end();
    if (!graded.ok) throw new CliError(graded.error.message);
    let report = withShard(graded.value, options.shard, corpus);
    const unavailable = engines.crossEngines?.unavailable ?? [];
    if (report.cross_engine && unavailable.length)
      report = { ...report, cross_engine: { ...report.cross_engine, unavailable } };
    if (options.preset) report = await withPreset(report, options, corpus, run, engines.pool.engineFor);
    if (writer) writer.finish(report);
    else if (values.out === '-') printJson(io.out, report);
    else if (values.out) out.write(values.out, () => prettyJson(report)); // under a preset: written whole
    return await exportsAndVerdict(report, values, options, out, kept, io);
  } finally {
    writer?.abort();
    await engines.close();
  }
}

/** The corpus (with its --ports) and the run, checked against each other. */
async function runInputs(values: RunFlags, io: Io) {
  const ports = readPorts(values.ports === undefined ? [] : [values.ports], io);
  const read = await readCorpus(values.corpus!, io);
  checkPortsUsed(ports, [read]);
  const corpus = withPorts(read, ports);
  const run = await readRun(
    values.run!,
    corpus.corpus.cases.map((k) => k.id),
    io,
    { corpus, allowMismatch: values['allow-corpus-mismatch'] === true },
  );
  return { read, corpus, run };
}

/** Every flag of `run` checked before anything is read (in this order: the first bad one is named). */
function runOptions(values: RunFlags, io: Io) {
  if (!values.corpus) throw new CliError('run: --corpus is required.\nRun "sql-verdict run --help" for usage.');
  if (!values.run) throw new CliError('run: --run is required.\nRun "sql-verdict run --help" for usage.');
  const reliabilityC = values['reliability-c'] === undefined ? 1 : Number(values['reliability-c']);
  if (!Number.isFinite(reliabilityC) || reliabilityC < 0)
    throw new CliError(`--reliability-c must be a number ≥ 0, got "${values['reliability-c']}".`);
  const timeoutMs = positiveInteger('--timeout-ms', values['timeout-ms'], 5000);
  const maxResultBytes = byteSize('--max-result-bytes', values['max-result-bytes']);
  const judge = values.judge ? judgeFromEnv(io.env) : null;
  const threshold = values['judge-threshold'] === undefined ? undefined : Number(values['judge-threshold']);
  if (threshold !== undefined && !(threshold >= 0 && threshold <= 1))
    throw new CliError(`--judge-threshold must be a number from 0 to 1, got "${values['judge-threshold']}".`);
  // Unset: the core's DEFAULT_JUDGE_CONCURRENCY (one definition; the help states it).
  const judgeConcurrency =
    values['judge-concurrency'] === undefined
      ? undefined
      : positiveInteger('--judge-concurrency', values['judge-concurrency'], 1);
  const include = [
    ...new Set(
      (values.include ?? []).flatMap((v) => v.split(',')).map((v) => oneOf('--include', v.trim(), INCLUDE_OPTIONS)!),
    ),
  ];
  const thresholds = parseThresholds(values);
  const policy = oneOf('--policy', values.policy, ['sql-verdict', ...POLICY_PRESETS] as const, 'sql-verdict')!;
  if (values['keep-distinct'] && policy !== 'spider') throw new CliError('--keep-distinct goes with --policy spider.');
  const preset = policy === 'sql-verdict' ? null : (policy as PolicyPresetName);
  if (values['ves-iterations'] !== undefined && policy !== 'bird')
    throw new CliError('--ves-iterations goes with --policy bird.');
  const vesIterations =
    values['ves-iterations'] === undefined ? 0 : positiveInteger('--ves-iterations', values['ves-iterations'], 0);
  const shard = shardOption(values.shard, thresholds);
  if (preset && shard)
    throw new CliError('--policy does not go with --shard (merge the shards, then grade under the preset).');
  const keepDistinct = values['keep-distinct'] ?? false;
  return {
    reliabilityC,
    timeoutMs,
    maxResultBytes,
    judge,
    threshold,
    judgeConcurrency,
    include,
    thresholds,
    preset,
    keepDistinct,
    vesIterations,
    shard,
  };
}

type RunOptions = ReturnType<typeof runOptions>;

/** What gradeRun is told besides the inputs: the comparison settings, the judge and RS(c)'s penalty. */
function gradeSettings(options: RunOptions, oracle: ReturnType<typeof oracleConfig>): Partial<GradeRunInput> {
  const { judge, threshold } = options;
  return {
    config: {
      query_timeout_ms: options.timeoutMs,
      ...(options.maxResultBytes !== undefined ? { max_result_bytes: options.maxResultBytes } : {}),
      ...(judge ? { enable_ai_judge: true } : {}),
      ...(options.include.length ? { include: options.include } : {}),
      ...oracle,
    },
    ...(judge
      ? {
          judge: {
            provider: judge.provider,
            options: { prices: judge.prices, policy: judge.policy, ...(threshold !== undefined ? { threshold } : {}) },
          },
          judgeConcurrency: options.judgeConcurrency,
        }
      : {}),
    reliabilityPenalty: options.reliabilityC,
  };
}

/**
 * The engines of a run. Worker threads sized to the cores grade whole cases, each with its own engines (see
 * engines/grading-pool.ts): the supervised engines' report with the same CPU and less than half the memory
 * (docs/benchmarks.md). Cases are graded here, on supervised engines one per fixture, with --neighbours (the
 * neighbour databases need scratch engines the workers do not have), --cross-engine, SQL_VERDICT_WORKERS=0, a
 * PostgreSQL corpus, and native DuckDB (the pool's watchdog stops a runaway by terminating its worker, which aborts
 * the process while a native query runs; a supervised native engine interrupts the query instead).
 */
/**
 * --as-of for the user's fixtures: an ISO date or instant, and only with a fixture it can apply to (the built-ins
 * keep their own; a flag that changes nothing would let a clock-dependent run look frozen).
 */
function asOfFlag(value: string | undefined, userFixtures: unknown): string | undefined {
  if (value === undefined) return undefined;
  const parts = asOfParts(value);
  if (!parts || Number.isNaN(Date.parse(`${parts.timestamp.replace(' ', 'T')}Z`)))
    throw new CliError(`--as-of ${value}: not an ISO date or UTC instant (e.g. 2025-12-31 or 2025-12-31T23:59:59Z).`);
  if (!userFixtures)
    throw new CliError(
      `--as-of ${value}: it freezes the clock of fixtures given with --fixture or --db-dir, and none is given (the built-in fixtures keep their own as-of instant).`,
    );
  return value;
}

function runEngines(values: RunFlags, corpus: LoadedCorpus, read: LoadedCorpus, io: Io) {
  const overrides = fixtureOverrides(
    values.fixture,
    io.cwd,
    asOfFlag(values['as-of'], values.fixture?.length || values['db-dir']),
  );
  checkFixturesUsed(
    values.fixture,
    corpus.corpus.cases.map((k) => k.fixture),
  );
  // --db-dir: every fixture the corpus names from one folder (<db>/<db>.sqlite); --fixture still wins.
  if (values['db-dir']) {
    const listed = listDbDir(values['db-dir'], io.cwd);
    // A database the corpus uses that is not SQLite is bad input now, not after the cases before it are graded.
    const used = new Set(corpus.corpus.cases.map((k) => k.fixture));
    for (const [id, why] of listed.notDatabase ?? [])
      if (used.has(id) && !overrides.has(id)) throw new CliError(`--db-dir: ${why}.`);
    for (const [id, file] of listed.files) if (!overrides.has(id)) overrides.set(id, file);
  }
  const oracle = oracleConfig(values);
  const neighbourHost = (oracle.neighbours as number | undefined)
    ? nodeNeighbourHost((name) => corpusFixtureAsOf(overrides, name, io.cwd))
    : null;
  // Unless told, DuckDB corpora grade on native DuckDB where its binding loads, else on DuckDB-WASM (duckdb-choice.ts).
  const engine = corpus.corpus.engine;
  if (engine === 'duckdb')
    chooseDuckDb(
      corpus.corpus.cases.map((k) => k.fixture),
      overrides,
      io,
    );
  const nativeDuckDb = engine === 'duckdb' && duckDbDriverOf({}) === 'native';
  // --cross-engine: the other dialects' engines per fixture, on this thread too (the pool's threads have none).
  const crossEngines = oracle.cross_engine ? nodeCrossEngines(corpus, read, overrides, io.cwd) : null;
  const grader =
    io.env.SQL_VERDICT_WORKERS !== '0' &&
    !neighbourHost &&
    !nativeDuckDb &&
    !crossEngines &&
    (engine === 'sqlite' || engine === 'duckdb')
      ? gradingPoolFor(engine, overrides, io.cwd, {
          ...workersFromEnv(io.env),
          print: { indent: CASE_REPORT_INDENT, remember: rememberPrinted },
        })
      : null;
  const pool =
    grader ??
    new EnginePool(engine, overrides, io.cwd, {
      // Native DuckDB stops a query past its timeout by interrupting it: its thread is replaced only after a
      // crash or an out-of-memory, so no spare loads beside the first fixture (it would slow it down).
      warmSpare: nativeDuckDb ? 'after-restart' : true,
    });
  return {
    oracle,
    neighbourHost,
    crossEngines,
    grader,
    pool,
    asOf: (name: string) => corpusFixtureAsOf(overrides, name, io.cwd),
    async close() {
      await pool.close();
      await neighbourHost?.close();
      await crossEngines?.close();
    },
  };
}

/**
 * What the exports need of each case, kept as the cases are graded instead of the case reports: JUnit's question
 * and time, the review flags, and (with --html) the SQL and result samples of the failing cases.
 */
class KeptForOutputs {
  readonly flagged: Pick<CaseReport, 'id' | 'review_flags'>[] = [];
  readonly neighbours: NeighbourTally[] = [];
  readonly failing: HtmlCaseDetail[] = [];
  readonly slim: {
    id: string;
    question: string;
    report: { run_metadata: { timings_ms: { total: number } } } | null;
  }[] = [];
  html: typeof HtmlModule | null = null;

  constructor(private readonly withHtml: boolean) {}

  add(k: CaseReport, index: number): void {
    const failed = k.outcome !== 'correct' && k.outcome !== 'correct_refusal';
    if (this.withHtml && failed && this.failing.length < HTML_MAX_FAILURES)
      this.failing.push(this.html!.htmlCaseDetail(k));
    if (k.review_flags.length) this.flagged[index] = { id: k.id, review_flags: k.review_flags };
    const tally = neighbourTally(k);
    if (tally) this.neighbours[index] = tally;
    this.slim[index] = {
      id: k.id,
      question: k.question,
      report: k.report ? { run_metadata: { timings_ms: { total: k.report.run_metadata.timings_ms.total } } } : null,
    };
  }
}

/** --policy spider|bird: the answered cases judged again under the benchmark's own rules. */
async function withPreset(
  report: RunReport,
  options: RunOptions,
  corpus: LoadedCorpus,
  run: Awaited<ReturnType<typeof runInputs>>['run'],
  engineFor: GradeRunInput['engineFor'],
): Promise<RunReport> {
  const { applyPreset } = await import('../../core/run/preset-grade.ts');
  const graded = await applyPreset({
    report,
    corpus,
    run,
    engineFor,
    preset: { name: options.preset!, keepDistinct: options.keepDistinct },
    config: { query_timeout_ms: options.timeoutMs },
    reliabilityPenalty: options.reliabilityC,
    vesIterations: options.vesIterations,
  });
  if (!graded.ok) throw new CliError(graded.error.message);
  return graded.value;
}

/** The Markdown, JUnit, CSV and HTML exports, the summary (or the report with --json), and the exit status. */
async function exportsAndVerdict(
  report: RunReport,
  values: RunFlags,
  options: RunOptions,
  out: Outputs,
  kept: KeptForOutputs,
  io: Io,
): Promise<number> {
  await writeSummaryExports(out, values, {
    summary: report.summary,
    run_metadata: report.run_metadata,
    cases: kept.slim,
  });
  out.write(values.html, () =>
    kept.html!.toHtml({
      summary: report.summary,
      details: kept.failing,
      maxFailures: HTML_MAX_FAILURES,
      generatedAt: new Date().toISOString(),
    }),
  );
  const verdicts = checkThresholds(report.summary, options.thresholds);
  if (values.json) printJson(io.out, report);
  else
    out.print(
      [
        summarizeRunReport(
          report,
          kept.flagged.filter((k) => k !== undefined),
          kept.neighbours.filter((k) => k !== undefined),
        ),
        ...(report.policy_preset ? (await import('../../core/run/preset-lines.ts')).presetLines(report) : []),
        ...verdicts.lines,
      ].join('\n'),
    );
  if (options.shard) return EXIT.ok;
  if (verdicts.lines.length) return verdicts.met ? EXIT.ok : EXIT.failed;
  return report.summary.failures.length === 0 ? EXIT.ok : EXIT.failed;
}

export async function selfcheckCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags('selfcheck', argv, {
    corpus: { type: 'string', multiple: true },
    ports: { type: 'string', multiple: true },
    fixture: { type: 'string', multiple: true },
    'as-of': { type: 'string' },
    'time-budget-ms': { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.out(SELFCHECK_HELP);
    return EXIT.ok;
  }
  if (positionals.length) throw new CliError(`selfcheck: unexpected argument "${positionals[0]}".`);
  const specs = values.corpus?.length ? values.corpus : BUILT_IN_CORPORA;
  const overrides = fixtureOverrides(values.fixture, io.cwd, asOfFlag(values['as-of'], values.fixture?.length));
  const timeBudgetMs = positiveInteger('--time-budget-ms', values['time-budget-ms'], 2000);
  const ports = readPorts(values.ports, io);
  const corpora = [];
  for (const spec of specs) corpora.push(await readCorpus(spec, io));
  checkPortsUsed(ports, corpora);
  checkFixturesUsed(
    values.fixture,
    corpora.flatMap((c) => c.corpus.cases.map((k) => k.fixture)),
  );
  const [{ formatSelfCheck, runSelfCheck }, { zeroTolerancePolicyCompare }] = await Promise.all([
    import('../../core/corpus/selfcheck.ts'),
    import('../../core/corpus/policy-compare.ts'),
  ]);
  const reports = [];
  for (const read of corpora) {
    const corpus = withPorts(read, ports);
    const engine = openEngine(corpus.corpus.engine);
    try {
      // The full self-check: oracle equality at zero tolerance, plus the golden lint
      // (empty result, clock, randomness, a second run, LIMIT through a tie, time budget, digests).
      const report = await runSelfCheck(corpus, engine, {
        compare: zeroTolerancePolicyCompare,
        timeBudgetMs,
        fixtures: (name) => {
          try {
            return { source: { ...resolveCorpusFixture(overrides, name, io.cwd).source, name } };
          } catch {
            return null;
          }
        },
      });
      reports.push(report);
    } finally {
      await engine.close();
    }
  }
  const passed = reports.every((r) => r.passed && r.findings.length === 0);
  if (values.json) io.out(prettyJson({ passed, corpora: reports }));
  else io.out(reports.map(formatSelfCheck).join('\n\n'));
  return passed ? EXIT.ok : EXIT.failed;
}
