/**
 * Sharded runs and their exact merge (SPEC 8).
 *
 * `run --shard K/N` grades the cases at corpus positions i with i mod N = K-1
 * (round-robin over corpus order). Round-robin rather than a hash of the id:
 * shard sizes differ by at most one case, a benchmark's difficulty and
 * database mix (Spider's pairs come grouped by database and by system) spread
 * evenly over the shards, cases of one database stay in corpus order inside a
 * shard (an engine pool reloads nothing extra), and the merge puts cases back
 * in corpus order from the shard numbers alone: the j-th case of shard K is
 * corpus case (j·N + K-1). A corpus change re-assigns cases, which the merge
 * refuses anyway (one corpus digest for all shards).
 *
 * `mergeRunReports` is pure and depends only on the set of reports given
 * (commutative), and merging merged reports gives what merging all of them at
 * once gives (associative): a partial merge is a report of a set of shards.
 * When the shards cover the corpus the result is the single-process report —
 * byte for byte once `normalizeRunReport` drops what measures time.
 */
import { reportVersionProblem } from '../gate/report-version.ts';
import { fail, ok, type Outcome } from '../errors.ts';
import type { LoadedCorpus } from '../corpus/types.ts';
import type { CaseResult } from '../gate/outcome.ts';
import { checkReportSummary } from '../gate/report-file.ts';
import { summarizeRun } from '../gate/summary.ts';
import { summarizeJudgments, type CaseJudgment } from '../judge/index.ts';
import type { CaseReport, RunReport } from '../run/grade-run.ts';
import type { CrossEngineVerdict } from '../oracle/cross-engine.ts';
import { CrossEngineTally, type CrossEngineRunSummary } from '../run/cross-engine-summary.ts';

export const SHARD_METHOD = 'round-robin';

/** One shard of N, K from 1. */
export interface ShardSpec {
  index: number;
  count: number;
}

/** What a shard report (or a merge of some of the shards) records. */
export interface ReportShard {
  method: typeof SHARD_METHOD;
  /** N. */
  count: number;
  /** The shards this report holds (K from 1), ascending. */
  shards: number[];
  /** Cases in the whole corpus. */
  corpus_size: number;
}

/** A run report, possibly of some shards only. */
export type ShardedRunReport = RunReport & { shard?: ReportShard };

/** "K/N" → the shard; a message naming the flag otherwise. */
export function parseShard(text: string): Outcome<ShardSpec> {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || !Number.isSafeInteger(count) || count < 1 || index < 1 || index > count)
    return fail('input.invalid', `--shard must be K/N with 1 ≤ K ≤ N (e.g. 2/4), got "${text}".`, {
      location: '--shard',
    });
  return ok({ index, count });
}

/** Corpus positions held by a set of shards of N, ascending (the order of their cases in the report). */
export function shardPositions(corpusSize: number, count: number, shards: readonly number[]): number[] {
  const held = new Set(shards);
  const out: number[] = [];
  for (let i = 0; i < corpusSize; i++) if (held.has((i % count) + 1)) out.push(i);
  return out;
}

/** The corpus restricted to one shard's cases, in corpus order (the corpus digest and file stay the whole corpus's). */
export function selectShard(loaded: LoadedCorpus, shard: ShardSpec): LoadedCorpus {
  const cases = loaded.corpus.cases.filter((_, i) => i % shard.count === shard.index - 1);
  return { ...loaded, corpus: { ...loaded.corpus, cases } };
}

/** The shard field of a report graded on `selectShard(corpus, shard)`. */
export function shardOf(shard: ShardSpec, corpusSize: number): ReportShard {
  return { method: SHARD_METHOD, count: shard.count, shards: [shard.index], corpus_size: corpusSize };
}

/** Fields that measure time, not the verdict: dropped at any depth by `normalizeRunReport`. */
export const TIMING_FIELDS = [
  'timings_ms',
  'execution_time_expected_ms',
  'execution_time_actual_ms',
  'execution_time_ratio',
  'latency_ms',
  'elapsedMs',
] as const;

/**
 * The documented normalisation (docs/ci.md, "Sharded runs"): a report without
 * its timings — run_metadata.started_at and run_metadata.elapsed_ms, and at
 * any depth timings_ms, execution_time_expected_ms, execution_time_actual_ms,
 * execution_time_ratio, latency_ms (the judge's) and elapsedMs (an execution
 * error's). Everything else, verdicts, evidence, summary, case order, stays.
 */
export function normalizeRunReport<T>(report: T): T {
  const timing = new Set<string>(TIMING_FIELDS);
  const walk = (value: unknown, top: boolean): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v, false));
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (timing.has(key)) continue;
      if (top && key === 'run_metadata' && v && typeof v === 'object') {
        const { started_at: _s, elapsed_ms: _e, ...rest } = v as Record<string, unknown>;
        out[key] = walk(rest, false);
        continue;
      }
      out[key] = walk(v, false);
    }
    return out;
  };
  return walk(report, true) as T;
}

export interface MergeInput {
  /** Where the report came from, for messages. */
  file: string;
  /** The parsed report. */
  report: unknown;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Top-level fields the merge combines; every other field must be the same in every report. */
const COMBINED = new Set([
  'cases',
  'summary',
  'self_check',
  'fixtures',
  'judge_summary',
  'run_metadata',
  'shard',
  'corpus',
  'cross_engine',
]);

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'undefined';
}

/** The first field two values differ at (`corpus.sha256`), or null. */
function differsAt(a: unknown, b: unknown, at: string): string | null {
  if (isObject(a) && isObject(b)) {
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const d = differsAt(a[key], b[key], at ? `${at}.${key}` : key);
      if (d) return d;
    }
    return null;
  }
  return canonical(a) === canonical(b) ? null : at;
}

interface Checked {
  file: string;
  report: ShardedRunReport;
  shard: ReportShard;
  positions: number[];
}

function bad(file: string, field: string, message: string): Outcome<never> {
  return fail('input.invalid', `${file} (field ${field}): ${message}`, { location: `${file}#${field}` });
}

/** What a case report and its summary entry both state. */
const CASE_FIELDS = [
  'outcome',
  'reason',
  'reason_code',
  'query',
  'arm',
  'stratum',
  'shape',
  'difficulty',
  'fixture',
] as const;

function checkOne(input: MergeInput): Outcome<Checked> {
  const { file, report: r } = input;
  if (!isObject(r) || r.kind !== 'run')
    return bad(file, 'kind', 'not a run report (the JSON "sql-verdict run --out" writes).');
  // As the gate reads a report: a version this code did not write may mean fields it does not know.
  const version = reportVersionProblem(r.report_version);
  if (version) return bad(file, 'report_version', version);
  const s = r.shard;
  if (s === undefined)
    return bad(
      file,
      'shard',
      'not a shard report: it has no shard field, so it holds every case of the corpus and there is nothing to merge it with (grade shards with "sql-verdict run --shard K/N").',
    );
  if (!isObject(s)) return bad(file, 'shard', 'must be an object {method, count, shards, corpus_size}.');
  if (s.method !== SHARD_METHOD)
    return bad(file, 'shard.method', `must be "${SHARD_METHOD}", got ${JSON.stringify(s.method) ?? 'nothing'}.`);
  const count = s.count;
  if (!Number.isSafeInteger(count) || (count as number) < 1)
    return bad(file, 'shard.count', 'must be the number of shards N (a whole number ≥ 1).');
  const shards = s.shards;
  if (
    !Array.isArray(shards) ||
    shards.length === 0 ||
    !shards.every(
      (k, i) => Number.isSafeInteger(k) && k >= 1 && k <= (count as number) && (i === 0 || k > shards[i - 1]),
    )
  )
    return bad(file, 'shard.shards', `must list the shards held, ascending, each from 1 to ${String(count)}.`);
  if (!Number.isSafeInteger(s.corpus_size) || (s.corpus_size as number) < 0)
    return bad(file, 'shard.corpus_size', 'must be the number of cases in the corpus.');
  if (r.policy_preset !== undefined)
    return bad(
      file,
      'policy_preset',
      'reports graded under a benchmark policy preset (--policy) cannot be merged yet; shard a run under the sql-verdict policy.',
    );
  if (!Array.isArray(r.cases)) return bad(file, 'cases', 'must be the list of case reports.');
  if (!isObject(r.summary) || !Array.isArray(r.summary.cases))
    return bad(file, 'summary.cases', 'must be the list of per-case results.');
  if (!isObject(r.corpus) || !isObject(r.run_metadata) || !isObject(r.self_check) || !Array.isArray(r.fixtures))
    return bad(
      file,
      isObject(r.corpus)
        ? isObject(r.run_metadata)
          ? isObject(r.self_check)
            ? 'fixtures'
            : 'self_check'
          : 'run_metadata'
        : 'corpus',
      'is missing or malformed.',
    );
  const shard = s as unknown as ReportShard;
  const positions = shardPositions(shard.corpus_size, shard.count, shard.shards);
  if (r.cases.length !== positions.length)
    return bad(
      file,
      'cases',
      `shard${shard.shards.length > 1 ? 's' : ''} ${shard.shards.join(',')} of ${shard.count} over ${shard.corpus_size} cases hold ${positions.length} cases, the report has ${r.cases.length} (a truncated or edited report?).`,
    );
  if (r.summary.cases.length !== r.cases.length)
    return bad(file, 'summary.cases', `${r.summary.cases.length} entries for ${r.cases.length} case reports.`);
  for (const [i, k] of r.cases.entries()) {
    if (!isObject(k) || typeof k.id !== 'string') return bad(file, `cases[${i}].id`, 'every case report needs its id.');
    const sk = r.summary.cases[i] as unknown;
    if (!isObject(sk) || sk.id !== k.id)
      return bad(file, `summary.cases[${i}].id`, `must be ${JSON.stringify(k.id)}, the id of cases[${i}].`);
    // The merge is built from summary.cases and writes cases: a shard whose two disagree was edited.
    for (const field of CASE_FIELDS)
      if (field in k && canonical(k[field] ?? null) !== canonical(sk[field] ?? null))
        return bad(
          file,
          `cases[${i}].${field}`,
          `${JSON.stringify(k[field]) ?? 'missing'} here, ${JSON.stringify(sk[field]) ?? 'missing'} in summary.cases[${i}] (case ${k.id}): the report was edited or is corrupt; re-run the shard.`,
        );
  }

  if (r.summary.corpus && isObject(r.summary.corpus) && r.summary.corpus.size !== r.cases.length)
    return bad(file, 'summary.corpus.size', `must be ${r.cases.length}, the number of cases in the report.`);
  return ok({ file, report: r as unknown as ShardedRunReport, shard, positions });
}

/** Fields that every report must agree on: [field, where it is]. */
function sameAcross(a: Checked, b: Checked): string | null {
  const ra = a.report as unknown as Json;
  const rb = b.report as unknown as Json;
  for (const key of [...new Set([...Object.keys(ra), ...Object.keys(rb)])].sort()) {
    if (COMBINED.has(key)) continue;
    const d = differsAt(ra[key], rb[key], key);
    if (d) return d;
  }
  const { size: _a, ...corpusA } = a.report.corpus;
  const { size: _b, ...corpusB } = b.report.corpus;
  const checks: [string, unknown, unknown][] = [
    ['corpus', corpusA, corpusB],
    ['shard.method', a.shard.method, b.shard.method],
    ['shard.count', a.shard.count, b.shard.count],
    ['shard.corpus_size', a.shard.corpus_size, b.shard.corpus_size],
    ['run_metadata.tool_version', a.report.run_metadata.tool_version, b.report.run_metadata.tool_version],
    ['run_metadata.config', a.report.run_metadata.config, b.report.run_metadata.config],
    ['summary.summary_version', a.report.summary.summary_version, b.report.summary.summary_version],
    ['summary.corpus.name', a.report.summary.corpus?.name, b.report.summary.corpus?.name],
    ['summary.corpus.version', a.report.summary.corpus?.version, b.report.summary.corpus?.version],
    ['summary.corpus.sha256', a.report.summary.corpus?.sha256, b.report.summary.corpus?.sha256],
    ['summary.run', a.report.summary.run, b.report.summary.run],
    ['summary.reliability.c', a.report.summary.reliability?.c, b.report.summary.reliability?.c],
    ['judge_summary', judgeSettings(a.report), judgeSettings(b.report)],
    ['cross_engine.graded_engine', crossEngineOf(a.report), crossEngineOf(b.report)],
  ];
  for (const [field, x, y] of checks) {
    const d = differsAt(x, y, field);
    if (d) return d;
  }
  return null;
}

/** What a judge run's summary says about its settings (the figures are recomputed from the cases). */
function judgeSettings(r: RunReport): unknown {
  const j = r.judge_summary;
  return j === null || j === undefined
    ? null
    : {
        prompt_version: j.prompt_version,
        provider: j.provider,
        model: j.model,
        threshold: j.threshold,
        concurrency: j.concurrency,
      };
}

const CROSS_ENGINE_VERDICTS: ReadonlySet<string> = new Set<CrossEngineVerdict>([
  'pass',
  'fail',
  'undecided',
  'not_comparable',
  'dialect_error',
]);

/** What a cross-engine run's summary says about its setting (the figures are recomputed from the cases). */
function crossEngineOf(r: RunReport): unknown {
  const x = r.cross_engine as unknown;
  return isObject(x) ? x.graded_engine : null;
}

/** config.cross_engine over the merged cases: tallied again in corpus order, the engines that could not load from every shard. */
function mergedCrossEngine(
  checked: readonly Checked[],
  cases: readonly CaseReport[],
): Outcome<CrossEngineRunSummary | undefined> {
  const withSummary = checked.filter((c) => c.report.cross_engine !== undefined);
  if (withSummary.length === 0) return ok(undefined);
  const first = withSummary[0]!;
  for (const c of checked) {
    const x = c.report.cross_engine as unknown;
    if (!isObject(x) || typeof x.graded_engine !== 'string')
      return bad(c.file, 'cross_engine', 'must be the cross-engine summary {graded_engine, cases, engines, …}.');
    if (x.unavailable !== undefined && !Array.isArray(x.unavailable))
      return bad(c.file, 'cross_engine.unavailable', 'must be a list of {fixture, engine, message}.');
  }
  const tally = new CrossEngineTally(first.report.cross_engine!.graded_engine);
  for (const [i, k] of cases.entries()) {
    const x = k.cross_engine as unknown;
    if (x === undefined) continue;
    const verdicts = isObject(x) ? x.verdicts : undefined;
    if (
      !isObject(x) ||
      typeof x.engine_dependent !== 'boolean' ||
      !isObject(verdicts) ||
      !Object.values(verdicts).every((v) => typeof v === 'string' && CROSS_ENGINE_VERDICTS.has(v))
    )
      return fail(
        'input.invalid',
        `merge: case ${k.id} (field cross_engine): must be {engine_dependent, verdicts: {engine: ${[...CROSS_ENGINE_VERDICTS].join(' | ')}}}.`,
        { location: `${k.id}#cross_engine` },
      );
    tally.add(k, i);
  }
  const unavailable = new Map<string, NonNullable<CrossEngineRunSummary['unavailable']>[number]>();
  for (const c of checked)
    for (const u of c.report.cross_engine!.unavailable ?? [])
      if (!unavailable.has(`${u.fixture}\u0000${u.engine}`)) unavailable.set(`${u.fixture}\u0000${u.engine}`, u);
  const summary = tally.summary();
  return ok(unavailable.size ? { ...summary, unavailable: [...unavailable.values()] } : summary);
}

function valueAt(r: unknown, field: string): unknown {
  let v = r;
  for (const key of field.split('.')) v = isObject(v) ? v[key] : undefined;
  return v;
}

/**
 * Merge shard reports of one run into one report. The inputs must be shards
 * of the same run: one corpus (digest), one run file, one tool version, one
 * configuration, one N, each shard at most once, and the same fixture digests
 * where they share a fixture. Errors name the file and the field.
 */
export function mergeRunReports(inputs: readonly MergeInput[]): Outcome<ShardedRunReport> {
  if (inputs.length === 0) return fail('input.invalid', 'merge: give at least one shard report.');
  // A whole report (all shards already merged, or one run) alone is its own merge: merging stays associative.
  const only = inputs[0]!;
  if (inputs.length === 1 && isObject(only.report) && only.report.kind === 'run' && only.report.shard === undefined)
    return ok(only.report as unknown as ShardedRunReport);
  const checked: Checked[] = [];
  for (const input of inputs) {
    const c = checkOne(input);
    if (!c.ok) return c;
    checked.push(c.value);
  }
  const first = checked[0]!;
  const owner = new Map<number, string>();
  for (const c of checked) {
    const d = sameAcross(first, c);
    if (d)
      return bad(
        c.file,
        d,
        `differs from ${first.file} (${JSON.stringify(valueAt(c.report, d)) ?? 'missing'} here, ${JSON.stringify(valueAt(first.report, d)) ?? 'missing'} there): shards of one run share the corpus, the run file, the tool version and the configuration.`,
      );
    for (const k of c.shard.shards) {
      const other = owner.get(k);
      if (other !== undefined)
        return bad(
          c.file,
          'shard.shards',
          `shard ${k}/${c.shard.count} is also in ${other}: each shard may be merged once.`,
        );
      owner.set(k, c.file);
    }
  }
  // A shard's own figures must be those of its cases (as the gate checks a report): else it was edited.
  // After the checks across shards, which name a setting that differs more precisely.
  for (const c of checked) {
    const own = checkReportSummary(c.report);
    if (!own.ok) return bad(c.file, own.error.location ?? 'summary', own.error.message);
  }
  // Ascending by first shard: the result does not depend on the order of the inputs.
  checked.sort((a, b) => a.shard.shards[0]! - b.shard.shards[0]!);
  const { count, corpus_size: corpusSize } = first.shard;
  const shards = [...owner.keys()].sort((a, b) => a - b);

  // Cases back in corpus order.
  const byPosition = new Map<number, { report: CaseReport; result: CaseResult }>();
  for (const c of checked)
    c.positions.forEach((p, j) =>
      byPosition.set(p, { report: c.report.cases[j]!, result: c.report.summary.cases[j]! }),
    );
  const positions = shardPositions(corpusSize, count, shards);
  const cases = positions.map((p) => byPosition.get(p)!.report);
  const results = positions.map((p) => byPosition.get(p)!.result);
  const seen = new Set<string>();
  for (const k of cases) {
    if (seen.has(k.id))
      return fail(
        'input.invalid',
        `merge: case ${k.id} is in more than one shard report (the shards were not cut from one corpus).`,
        { location: k.id },
      );
    seen.add(k.id);
  }

  // Fixtures in the order their first case uses them (as a single run lists them).
  const fixtureOf = new Map<string, { entry: RunReport['fixtures'][number]; file: string }>();
  for (const c of checked)
    for (const [i, f] of c.report.fixtures.entries()) {
      const known = fixtureOf.get(f.name);
      if (!known) fixtureOf.set(f.name, { entry: f, file: c.file });
      else if (
        known.entry.content_digest_before !== f.content_digest_before ||
        known.entry.content_digest_after !== f.content_digest_after
      )
        return bad(
          c.file,
          `fixtures[${i}].content_digest_before`,
          `fixture ${f.name} has another content digest in ${known.file}: the shards ran on different databases.`,
        );
      else if (known.entry.as_of !== f.as_of)
        return bad(
          c.file,
          `fixtures[${i}].as_of`,
          `fixture ${f.name} was graded as of ${f.as_of ?? 'the real clock'} here and as of ${known.entry.as_of ?? 'the real clock'} in ${known.file}: the shards read different clocks (run --as-of).`,
        );
    }
  const fixtureOrder = [...new Set(cases.map((k) => k.fixture))];
  for (const name of fixtureOf.keys()) if (!fixtureOrder.includes(name)) fixtureOrder.push(name);
  const fixtures = fixtureOrder.filter((n) => fixtureOf.has(n)).map((n) => fixtureOf.get(n)!.entry);

  const whole = shards.length === count;
  const size = positions.length;
  const base = first.report;
  const summary = summarizeRun(results, { ...base.summary.corpus, size }, base.summary.run, {
    reliabilityPenalty: base.summary.reliability.c,
  });
  if (!summary.ok)
    return fail(
      'input.invalid',
      `merge: ${summary.error.message}`,
      summary.error.location ? { location: summary.error.location } : {},
    );

  let judgeSummary = base.judge_summary;
  if (judgeSummary) {
    const j = judgeSummary;
    const judgments = cases.map((k) => k.report?.judge).filter((x): x is CaseJudgment => !!x);
    // Provider and model as the shards state them (validated equal above); every figure from the cases.
    judgeSummary = {
      ...summarizeJudgments(judgments, { threshold: j.threshold, concurrency: j.concurrency }),
      provider: j.provider,
      model: j.model,
    };
  }

  const crossEngine = mergedCrossEngine(checked, cases);
  if (!crossEngine.ok) return crossEngine;

  // Wall clock of the whole: first start to last end.
  const startOf = (r: RunReport) => Date.parse(r.run_metadata.started_at);
  const start = Math.min(...checked.map((c) => startOf(c.report)));
  const end = Math.max(...checked.map((c) => startOf(c.report) + c.report.run_metadata.elapsed_ms));
  const valid = Number.isFinite(start) && Number.isFinite(end);

  const merged: ShardedRunReport = {
    ...(base as RunReport),
    corpus: { ...base.corpus, size },
    self_check: {
      passed: checked.every((c) => c.report.self_check.passed),
      checked: checked.reduce((n, c) => n + c.report.self_check.checked, 0),
      findings: checked.flatMap((c) => c.report.self_check.findings),
    },
    fixtures,
    summary: summary.value,
    judge_summary: judgeSummary,
    cases,
    // In the place a single run's report has it (base's key order).
    ...(crossEngine.value ? { cross_engine: crossEngine.value } : {}),
    run_metadata: {
      ...base.run_metadata,
      started_at: valid ? new Date(start).toISOString() : base.run_metadata.started_at,
      elapsed_ms: valid ? end - start : base.run_metadata.elapsed_ms,
      resumed_cases: checked.reduce((n, c) => n + c.report.run_metadata.resumed_cases, 0),
    },
  };
  delete merged.shard;
  if (!whole) merged.shard = { method: SHARD_METHOD, count, shards, corpus_size: corpusSize };
  return ok(merged);
}
