/**
 * Benchmarks as they are: `run --format spider|bird|csv` grades the original
 * files (imported in core, then graded exactly as `import` + `run` would),
 * optionally under the benchmark's own policy (`--policy spider|bird`);
 * `import` writes the native corpus and run files.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { hasErrors, problemLines, type LoadProblem } from '../../core/corpus/problems.ts';
import { percent } from '../../core/gate/interval.ts';
import { loadCorpus } from '../../core/corpus/load-corpus.ts';
import type { LoadedCorpus } from '../../core/corpus/types.ts';
import { loadRun, type LoadedRun } from '../../core/corpus/load-run.ts';
import {
  BENCHMARK_FORMATS,
  corpusYaml,
  runJsonl,
  type BenchmarkFormat,
  type ImportedBenchmark,
  type ImportResult,
  type InputFile,
} from '../../core/import/common.ts';
import { importBird } from '../../core/import/bird.ts';
import { importCsv } from '../../core/import/csv.ts';
import { importSpider } from '../../core/import/spider.ts';
import { sha256Hex } from '../../core/digest/sha256.ts';
import { gradeRun, type RunReport } from '../../core/run/grade-run.ts';
import { applyPreset, POLICY_PRESETS, type PolicyPresetName } from '../../core/run/preset-grade.ts';
import { presetLines } from '../../core/run/preset-lines.ts';
import { oneOf, parseFlags, positiveInteger } from '../args.ts';
import { CliError, EXIT } from '../cli-error.ts';
import { DbDirPool, listDbDir, type ListedFolder } from '../db-dir.ts';
import { shardOption, withShard } from '../shard.ts';
import type { Io } from '../io.ts';
import { outputs, writeSummaryExports } from '../outputs.ts';
import { prettyJson } from '../json.ts';

export const BENCH_RUN_HELP = `Usage: sql-verdict run --format spider|bird|csv [files] --db-dir DIR [options]

Grade a benchmark's own files, unconverted:
  spider  --gold GOLD.sql (SQL<TAB>db_id per line) and/or --questions dev.json,
          --pred PRED.txt (one SQL per line, aligned; blank lines separate
          interactions, as in the test-suite's evaluation_examples)
  bird    --questions dev.json|mini_dev_*.json (question, evidence, SQL, difficulty),
          --pred predict_dev.json ({"0": "SQL\\t----- bird -----\\tdb_id", ...})
  csv     --questions QUESTIONS.csv (question, query, db_name; {a, b} alternatives),
          --pred PRED.csv (generated_query column, aligned by row), or that
          column in the questions CSV (then no --pred)
--format is detected from the files when left out (and the choice is printed).

Options:
  --db-dir DIR         every database: DIR/<db>/<db>.sqlite (or DIR/<db>.sqlite)
  --policy P           sql-verdict (default), spider (the official Spider execution
                       match) or bird (BIRD's EX, set comparison); with a preset the
                       report keeps SQL Verdict's own verdict per case beside it
  --keep-distinct      with --policy spider: compare with DISTINCT kept (--keep_distinct)
  --ves-iterations N   with --policy bird: time each correct prediction and its gold N times
                       for R-VES (BIRD's reward bands) and VES; Soft-F1 is always reported
  --agent NAME         system name (default: the predictions file's name)
  --model ID           model identity of the run
  --timeout-ms N       per-query budget (default 5000; 30000 under a preset)
  --reliability-c C    penalty c of RS(c) (default 1)
  --shard K/N          grade only shard K of N (corpus positions i with i mod N = K-1);
                       "sql-verdict merge" combines the N reports; exit 0 once graded
  --out FILE           write the JSON run report
  --markdown FILE      write a Markdown summary
  --junit FILE         write JUnit XML
  --csv FILE           write a CSV of cases
  --json               print the JSON run report on stdout
  -h, --help           show this help

Exit status: 0 every case correct, 1 any failure, 2 bad input.`;

export const IMPORT_HELP = `Usage: sql-verdict import --format spider|bird|csv [files] --out corpus.yaml [--run-out run.jsonl] [--db-dir DIR]

Write a benchmark's files (see "sql-verdict run --format --help" for the inputs)
as a native corpus (YAML) and run (JSONL). With --db-dir every db_id is checked.
\`sql-verdict run --corpus corpus.yaml --run run.jsonl --fixture ...\` then grades
them; \`run --format\` grades exactly these files directly.

Exit status: 0 written, 2 bad input (each problem names file, line and field).`;

const FLAGS = {
  format: { type: 'string' },
  gold: { type: 'string' },
  questions: { type: 'string' },
  pred: { type: 'string' },
  'db-dir': { type: 'string' },
  agent: { type: 'string' },
  model: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function readInput(file: string, io: Io, what: string): InputFile {
  try {
    return { file, bytes: new Uint8Array(readFileSync(path.resolve(io.cwd, file))) };
  } catch (thrown) {
    throw new CliError(`Cannot read ${what} ${file}: ${(thrown as NodeJS.ErrnoException).code ?? String(thrown)}.`);
  }
}

/** The format the files are in, when they say so unambiguously. */
function detectFormat(
  values: { gold?: string | undefined; questions?: string | undefined; pred?: string | undefined },
  io: Io,
): { format: BenchmarkFormat; why: string } {
  const q = values.questions?.toLowerCase() ?? '';
  if (q.endsWith('.csv')) return { format: 'csv', why: `${values.questions} is a CSV` };
  if (values.gold && !values.questions) return { format: 'spider', why: `${values.gold} is a gold file` };
  if (values.pred?.toLowerCase().endsWith('.json') && values.questions)
    return { format: 'bird', why: `${values.pred} is a JSON predictions file` };
  if (values.questions) {
    const head = new TextDecoder().decode(readInput(values.questions, io, 'questions file').bytes.subarray(0, 4096));
    const bird = /"SQL"\s*:|"evidence"\s*:/.test(head);
    const spider = /"query"\s*:/.test(head);
    if (bird && !spider) return { format: 'bird', why: `${values.questions} has BIRD's SQL/evidence fields` };
    if (spider && !bird) return { format: 'spider', why: `${values.questions} has Spider's query field` };
  }
  throw new CliError('Cannot tell the benchmark format from these files: give --format spider, bird or csv.');
}

interface Read {
  imported: ImportedBenchmark;
  folder: ListedFolder | null;
  sources: { role: string; file: string; sha256: string }[];
}

function report(problems: LoadProblem[], io: Io): void {
  for (const line of problemLines(problems)) io.err(line);
}

async function readBenchmark(
  values: Record<string, string | boolean | undefined>,
  io: Io,
  command: string,
): Promise<Read> {
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  let format = oneOf('--format', str('format'), BENCHMARK_FORMATS);
  if (!format) {
    const detected = detectFormat({ gold: str('gold'), questions: str('questions'), pred: str('pred') }, io);
    format = detected.format;
    io.err(`format: ${format} (detected: ${detected.why}; give --format to state it)`);
  }
  const folder = str('db-dir') ? listDbDir(str('db-dir')!, io.cwd) : null;
  const gold = str('gold') ? readInput(str('gold')!, io, 'gold file') : undefined;
  const questions = str('questions') ? readInput(str('questions')!, io, 'questions file') : undefined;
  const pred = str('pred') ? readInput(str('pred')!, io, 'predictions file') : undefined;
  const common = {
    ...(folder ? { databases: folder } : {}),
    ...(str('agent') ? { agent: str('agent')! } : {}),
    ...(str('model') ? { model: str('model')! } : {}),
  };
  let result: ImportResult;
  if (format === 'spider') {
    if (!gold && !questions)
      throw new CliError(
        `${command} --format spider: give --gold GOLD.sql (SQL<TAB>db_id per line) or --questions dev.json.`,
      );
    result = importSpider({
      ...(gold ? { gold } : {}),
      ...(questions ? { questions } : {}),
      ...(pred ? { pred } : {}),
      ...common,
    });
  } else {
    if (!questions)
      throw new CliError(
        `${command} --format ${format}: --questions is required (${format === 'bird' ? 'dev.json' : 'a questions CSV'}).`,
      );
    if (gold)
      throw new CliError(`${command} --format ${format}: --gold is for Spider; the questions file carries the gold.`);
    result =
      format === 'bird'
        ? importBird({ questions, ...(pred ? { pred } : {}), ...common })
        : importCsv({ questions, ...(pred ? { pred } : {}), ...common });
  }
  report(result.problems, io);
  if (!result.ok || hasErrors(result.problems))
    throw new CliError(
      `The ${format} files have errors (listed above); nothing was ${command === 'import' ? 'written' : 'graded'}.`,
    );
  const sources = [];
  for (const [role, input] of [
    ['gold', gold],
    ['questions', questions],
    ['predictions', pred],
  ] as const)
    if (input) sources.push({ role, file: input.file, sha256: await sha256Hex(input.bytes) });
  return { imported: result.imported, folder, sources };
}

/** The benchmark files a command reads, by flag: no output may name one. */
function benchInputFiles(values: {
  gold?: string | undefined;
  questions?: string | undefined;
  pred?: string | undefined;
}) {
  return { '--gold': values.gold, '--questions': values.questions, '--pred': values.pred };
}

const BENCH_RUN_FLAGS = {
  ...FLAGS,
  policy: { type: 'string' },
  'keep-distinct': { type: 'boolean' },
  'ves-iterations': { type: 'string' },
  'timeout-ms': { type: 'string' },
  'reliability-c': { type: 'string' },
  shard: { type: 'string' },
  out: { type: 'string' },
  markdown: { type: 'string' },
  junit: { type: 'string' },
  csv: { type: 'string' },
  json: { type: 'boolean' },
} as const;

type BenchRunFlags = ReturnType<typeof parseFlags<typeof BENCH_RUN_FLAGS>>['values'];

/** `run --format`: the benchmark's files → gradeRun on its database folder (then a policy preset) → the report. */
export async function benchRunCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags('run', argv, BENCH_RUN_FLAGS);
  if (values.help) {
    io.out(BENCH_RUN_HELP);
    return EXIT.ok;
  }
  if (positionals.length) throw new CliError(`run: unexpected argument "${positionals[0]}".`);
  const options = benchRunOptions(values);
  // Output paths are checked before any work (as `run --corpus` does), not found unwritable after grading.
  const outs = outputs(
    'run',
    io,
    { out: values.out, markdown: values.markdown, junit: values.junit, csv: values.csv },
    { json: values.json, inputs: benchInputFiles(values) },
  );
  const { imported, folder, sources, corpus, run } = await benchInputs(values, options.pred, io);
  const pool = new DbDirPool(folder.files);
  try {
    const result = await gradeBenchmark(corpus, run, pool, options, io);
    const full = withShard(
      { ...result, benchmark: { format: imported.format, files: sources, db_dir: folder.dir } },
      options.shard,
      corpus,
    );
    outs.write(values.out, () => prettyJson(full));
    await writeSummaryExports(outs, values, full);
    outs.print(values.json ? prettyJson(full) : summarizeBenchReport(result, imported.format));
    if (options.shard) return EXIT.ok;
    return result.summary.failures.length === 0 ? EXIT.ok : EXIT.failed;
  } finally {
    await pool.close();
  }
}

/** Every flag of `run --format` checked before a file is read (in this order: the first bad one is named). */
function benchRunOptions(values: BenchRunFlags) {
  const policy = oneOf('--policy', values.policy, ['sql-verdict', ...POLICY_PRESETS] as const, 'sql-verdict')!;
  if (values['keep-distinct'] && policy !== 'spider') throw new CliError('--keep-distinct goes with --policy spider.');
  const preset = policy === 'sql-verdict' ? null : (policy as PolicyPresetName);
  const shard = shardOption(values.shard);
  if (shard && preset)
    throw new CliError("--shard goes with the sql-verdict policy: a preset's figures (--policy) are not merged yet.");
  if (values['ves-iterations'] !== undefined && policy !== 'bird')
    throw new CliError('--ves-iterations goes with --policy bird.');
  const vesIterations =
    values['ves-iterations'] === undefined ? 0 : positiveInteger('--ves-iterations', values['ves-iterations'], 0);
  const timeoutMs = positiveInteger('--timeout-ms', values['timeout-ms'], preset ? 30_000 : 5000);
  const reliabilityC = values['reliability-c'] === undefined ? 1 : Number(values['reliability-c']);
  if (!Number.isFinite(reliabilityC) || reliabilityC < 0)
    throw new CliError(`--reliability-c must be a number ≥ 0, got "${values['reliability-c']}".`);
  // A questions CSV may hold the predictions itself (a generated_query column; docs/benchmark-files.md):
  // it was refused here before the file was read.
  if (!values.pred && !csvQuestions(values))
    throw new CliError('run --format: --pred is required (the predictions to grade).');
  if (!values['db-dir'])
    throw new CliError('run --format: --db-dir DIR is required (DIR/<db>/<db>.sqlite for every db_id).');
  const keepDistinct = values['keep-distinct'] ?? false;
  const pred = values.pred ?? values.questions!;
  return { preset, keepDistinct, shard, vesIterations, timeoutMs, reliabilityC, pred };
}

/** Whether the questions are a CSV (--format csv, or detected from the name), which may carry the predictions. */
function csvQuestions(values: { format?: string | undefined; questions?: string | undefined }): boolean {
  return values.format === 'csv' || (!values.format && !!values.questions?.toLowerCase().endsWith('.csv'));
}

const NO_CSV_PREDICTIONS = `no predictions: give --pred PRED.csv, or a generated_query (or sql, predicted_sql, prediction) column in the questions CSV.`;

type BenchRunOptions = ReturnType<typeof benchRunOptions>;

/** The files imported (as `import` writes them), read back as the corpus and run that `run --corpus` would grade. */
async function benchInputs(values: BenchRunFlags, pred: string, io: Io) {
  const { imported, folder, sources } = await readBenchmark(values, io, 'run');
  if (!imported.run) throw new CliError(`run --format ${imported.format}: ${NO_CSV_PREDICTIONS}`);
  const corpusText = corpusYaml(imported);
  const label = sources.find((s) => s.role === 'gold' || s.role === 'questions')!.file;
  const corpus = await loadCorpus(new TextEncoder().encode(corpusText), { file: `${label} (imported)` });
  report(
    corpus.problems.filter((p) => p.severity === 'error'),
    io,
  );
  if (!corpus.ok) throw new CliError(`Internal: the imported corpus does not load (listed above).`);
  const run = await loadRun(new TextEncoder().encode(runJsonl(imported)), {
    file: pred,
    format: 'jsonl',
    caseIds: corpus.loaded.corpus.cases.map((k) => k.id),
  });
  // Metadata warnings (no model, no created_at) say nothing about the files the user gave.
  report(
    run.problems.filter((p) => p.severity === 'error'),
    io,
  );
  if (!run.ok) throw new CliError('Internal: the imported run does not load (listed above).');
  // --db-dir is required (benchRunOptions), so the folder was listed.
  return { imported, folder: folder!, sources, corpus: corpus.loaded, run: run.run };
}

/** gradeRun on the folder's databases (progress on stderr every 2 s and at the end), then the preset's verdicts. */
async function gradeBenchmark(
  corpus: LoadedCorpus,
  run: LoadedRun,
  pool: DbDirPool,
  options: BenchRunOptions,
  io: Io,
): Promise<RunReport> {
  let last = 0;
  const config = { query_timeout_ms: options.timeoutMs };
  const graded = await gradeRun({
    corpus: options.shard ? options.shard.select(corpus) : corpus,
    run,
    engineFor: pool.engineFor,
    engineSwitching: true,
    config,
    reliabilityPenalty: options.reliabilityC,
    onProgress: (p) => {
      const now = Date.now();
      if (p.step === 'done' && (now - last > 2000 || p.index + 1 === p.total)) {
        last = now;
        io.err(`graded ${p.index + 1}/${p.total} (${p.id})`);
      }
    },
  });
  if (!graded.ok) throw new CliError(graded.error.message);
  if (!options.preset) return graded.value;
  const withPreset = await applyPreset({
    report: graded.value,
    corpus,
    run,
    engineFor: pool.engineFor,
    preset: { name: options.preset, keepDistinct: options.keepDistinct },
    config,
    reliabilityPenalty: options.reliabilityC,
    vesIterations: options.vesIterations,
  });
  if (!withPreset.ok) throw new CliError(withPreset.error.message);
  return withPreset.value;
}

function pct(n: number, d: number): string {
  return d === 0 ? '—' : percent(n / d);
}

/** The human summary: accuracy (under the preset, SQL Verdict's beside it), per difficulty, the first failures. */
export function summarizeBenchReport(report: RunReport, format: BenchmarkFormat): string {
  const s = report.summary;
  const a = s.answer_accuracy;
  const p = report.policy_preset;
  const lines = [
    `${format} · ${report.corpus.name} (${report.corpus.size} cases, corpus sha256 ${report.corpus.sha256.slice(0, 12)}…) · run ${report.run.agent ?? '?'} / ${report.run.model ?? 'no model'}`,
  ];
  if (p) lines.push(...presetLines(report));
  else lines.push(`Answer accuracy: ${a.correct}/${a.total} (${pct(a.correct, a.total)})`);
  const levels = s.difficulty_pyramid.filter((l) => l.total > 0);
  if (levels.length)
    lines.push(`By difficulty: ${levels.map((l) => `${l.difficulty} ${l.correct}/${l.total}`).join(', ')}`);
  const failures = s.failures;
  if (failures.length) {
    lines.push(`Failures (${failures.length}${failures.length > 10 ? ', first 10; --json or --out for all' : ''}):`);
    for (const f of failures.slice(0, 10))
      lines.push(`  ${f.id} [${f.reason_code ?? f.outcome}] ${(f.reason ?? '').slice(0, 160)}`);
  }
  return lines.join('\n');
}

// The preset's lines live in core so the app's results view prints the same text.
export { presetLines };

export async function importCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags('import', argv, {
    ...FLAGS,
    out: { type: 'string' },
    'run-out': { type: 'string' },
  });
  if (values.help) {
    io.out(IMPORT_HELP);
    return EXIT.ok;
  }
  if (positionals.length) throw new CliError(`import: unexpected argument "${positionals[0]}".`);
  if (!values.out)
    throw new CliError('import: --out corpus.yaml is required.\nRun "sql-verdict import --help" for usage.');
  if (values['run-out'] && !values.pred && !csvQuestions(values))
    throw new CliError('import: --run-out needs --pred (the predictions to write as a run).');
  // The predictions were read and checked, then dropped without a word: only the corpus was written.
  if (values.pred && !values['run-out'])
    throw new CliError(
      'import: --pred needs --run-out FILE (where to write the predictions as a run); leave out --pred to write only the corpus.',
    );
  // Both paths checked before reading: a bad --run-out once came to light after the corpus was written.
  const outs = outputs(
    'import',
    io,
    { out: values.out, 'run-out': values['run-out'] },
    { inputs: benchInputFiles(values) },
  );
  const { imported } = await readBenchmark(values, io, 'import');
  if (values['run-out'] && !imported.run) throw new CliError(`import --run-out: ${NO_CSV_PREDICTIONS}`);
  outs.write(values.out, () => corpusYaml(imported));
  const wrote = [
    `${values.out} (${imported.corpus.cases.length} cases, ${imported.databases.length} database(s): ${imported.databases.slice(0, 8).join(', ')}${imported.databases.length > 8 ? ', ...' : ''})`,
  ];
  if (values['run-out']) {
    outs.write(values['run-out'], () => runJsonl(imported));
    wrote.push(`${values['run-out']} (${imported.records.length} records)`);
  }
  // With --out - (or --run-out -) stdout carries that file only: the note goes to stderr.
  outs.print(
    `Wrote ${wrote
      .join(' and ')
      .replace(/^- /, 'stdout ')
      .replace(/ and - /, ' and stdout ')}.`,
  );
  return EXIT.ok;
}
