/**
 * Grade a run against a corpus: every case through the pipeline (or the
 * refusal rules), each after the oracle self-check of its reference (a broken
 * oracle refuses the run: no report), the fixtures' content digests checked before and after, and the run
 * summary (accuracy, both refusal arms, the 2×2, RS(c), strata, pyramid).
 * A write, a runaway query or a crash in one case never stops the run.
 */
import type { RunRecord } from '../corpus/load-run.ts';
import { ok, type Outcome } from '../errors.ts';
import { DEFAULT_EVALUATION_CONFIG, type EvaluationConfig } from '../evaluation/request.ts';
import { RUN_REPORT_VERSION } from '../gate/report-version.ts';
import { summarizeRun } from '../gate/summary.ts';
import {
  DEFAULT_JUDGE_CONCURRENCY,
  DEFAULT_JUDGE_THRESHOLD,
  summarizeJudgments,
  type CaseJudgment,
} from '../judge/index.ts';
import { TOOL_VERSION } from '../report/report.ts';
import { dialectOfEngine } from '../structure/grammar.ts';
import { parseSql } from '../structure/parse.ts';
import { caseDifficulty } from './case-references.ts';
import { CaseLoop } from './case-loop.ts';
import { FixtureDigests } from './fixture-digests.ts';
import { OracleCheck } from './oracle-check.ts';
import type { CaseReport, GradeRunInput, RunReport } from './run-report.ts';

export { caseResultOf } from './case-outcome.ts';

// The version history lives with the readers' list of versions (gate/report-version.ts).
export { RUN_REPORT_VERSION } from '../gate/report-version.ts';

export type { CaseReport, GradeProgress, GradeRunInput, GradeStep, RunReport } from './run-report.ts';

export async function gradeRun(input: GradeRunInput): Promise<Outcome<RunReport>> {
  const started = Date.now();
  const corpus = input.corpus.corpus;
  const config: EvaluationConfig = { ...DEFAULT_EVALUATION_CONFIG, ...input.config };

  // Each fixture's digest before any SQL runs on it: all of them first where something needs them all at the start
  // (a resume, onStart) or one engine is reloaded per fixture; else one after the other, the first case's first.
  const allFirst = input.engineSwitching || input.selfCheckFirst || !!input.onStart || !!input.resume?.cases.length;
  const digests = new FixtureDigests(corpus.cases, input.engineFor, input.fixtureAsOf?.bind(input));
  const loaded = await digests.start(allFirst ? (input.engineSwitching ? 'one-by-one' : 'together') : 'chained');
  if (!loaded.ok) return loaded;

  // The first case is graded alone: the next case and the next reference check wait until it is recorded. Cases in
  // flight and the self-check share the engines' queues (and, on few cores, the processors): run beside the first
  // case they would delay it; from the second case on, grading goes on several cases at a time.
  let firstRecordedNow: (() => void) | null = null;
  const firstRecorded = allFirst ? null : new Promise<void>((resolve) => (firstRecordedNow = resolve));
  const oracle = input.skipSelfCheck
    ? null
    : new OracleCheck(
        corpus.cases,
        input.engineFor,
        (index, id) => input.onProgress?.({ index, total: corpus.cases.length, id, step: 'selfcheck' }),
        (fixture) => digests.taken(fixture),
        firstRecorded,
        !!input.selfCheckByFixture && !input.selfCheckFirst && !input.engineSwitching,
      );
  // An engine pool that reloads one engine per fixture cannot check one fixture's references under another's cases.
  if (input.engineSwitching || input.selfCheckFirst) await oracle?.finish(false);
  if (oracle?.findings.length && !input.signal?.aborted) return oracle.refusal();

  const records = new Map<string, RunRecord>(input.run.records.map((r) => [r.id, r]));
  const kept = keptCases(input, records, digests.before);
  const held = input.holdCasesUntilSelfChecked && oracle ? holdCases(input, oracle) : null;
  (held?.input ?? input).onStart?.({ fixtureDigests: Object.fromEntries(digests.before), resumed: kept.size });
  if (!allFirst && !input.grader) parseFirstCase(input, records);

  const loop = new CaseLoop({
    input: held?.input ?? input,
    config,
    records,
    kept,
    digests,
    oracle,
    firstRecorded,
    firstRecordedNow,
  });
  const graded = await loop.run();
  if (!graded.ok) return graded;
  held?.release();
  const fixtures = await digests.after();
  if (!fixtures.ok) return fixtures;
  return assembleRunReport(input, config, loop, {
    started,
    checked: oracle?.checked ?? 0,
    fixtures: fixtures.value,
    resumed: kept.size,
  });
}

/**
 * holdCasesUntilSelfChecked: onStart and the cases recorded before the last reference is checked are told once it
 * has been and none failed (the cases in the order they were recorded: corpus order), the later ones as they are
 * recorded. A refused or cancelled run tells none of them, as when every reference is checked first.
 */
function holdCases(input: GradeRunInput, oracle: OracleCheck): { input: GradeRunInput; release(): void } {
  const { onCase, onStart } = input;
  let started: Parameters<NonNullable<GradeRunInput['onStart']>>[0] | null = null;
  let held: [CaseReport, number][] | null = [];
  const release = () => {
    if (!held || oracle.findings.length || input.signal?.aborted) return;
    const told = held;
    held = null;
    if (started) onStart?.(started);
    for (const [report, index] of told) onCase?.(report, index);
  };
  void oracle.done.then(release, () => undefined);
  return {
    input: {
      ...input,
      onStart: (info) => (held ? (started = info) : onStart?.(info)),
      onCase: (report, index) => (held ? held.push([report, index]) : onCase?.(report, index)),
    },
    release,
  };
}

/**
 * While the first case's fixture loads, its texts are parsed here (the parse cache keeps them, structure/memo.ts):
 * its grading then starts from its queries. Graded elsewhere (a grading pool), it is parsed there.
 */
function parseFirstCase(input: GradeRunInput, records: Map<string, RunRecord>): void {
  const firstCase = input.corpus.corpus.cases[0];
  if (!firstCase) return;
  const dialect = dialectOfEngine(input.corpus.corpus.engine);
  const sql = records.get(firstCase.id)?.sql;
  if (sql?.trim() && firstCase.referenceSql) {
    parseSql(sql, dialect);
    caseDifficulty(firstCase, dialect);
  }
}

/** The run report around the graded cases: the summary, the judge's figures, what ran and how. */
function assembleRunReport(
  input: GradeRunInput,
  config: EvaluationConfig,
  loop: CaseLoop,
  run: { started: number; checked: number; fixtures: RunReport['fixtures']; resumed: number },
): Outcome<RunReport> {
  const { corpus: loaded, run: answers } = input;
  const corpus = loaded.corpus;
  const total = corpus.cases.length;
  const summary = summarizeRun(
    loop.results,
    { name: corpus.name, version: corpus.version, size: total, sha256: loaded.sha256 },
    {
      agent: answers.metadata.agent ?? null,
      model: answers.metadata.model ?? null,
      path: answers.metadata.path ?? null,
      created_at: answers.metadata.createdAt ?? null,
    },
    { reliabilityPenalty: input.reliabilityPenalty ?? 1 },
  );
  if (!summary.ok) return summary;
  const judgeSummary =
    config.enable_ai_judge && input.judge
      ? summarizeJudgments(
          loop.judgments.filter((j): j is CaseJudgment => !!j),
          {
            provider: input.judge.provider,
            threshold: input.judge.options?.threshold ?? DEFAULT_JUDGE_THRESHOLD,
            concurrency: input.judgeConcurrency ?? DEFAULT_JUDGE_CONCURRENCY,
          },
        )
      : null;
  return ok({
    report_version: RUN_REPORT_VERSION,
    kind: 'run',
    corpus: {
      name: corpus.name,
      version: corpus.version,
      file: loaded.file,
      sha256: loaded.sha256,
      size: total,
      engine: corpus.engine,
    },
    run: {
      file: answers.file,
      sha256: answers.sha256,
      agent: answers.metadata.agent ?? null,
      model: answers.metadata.model ?? null,
      path: answers.metadata.path ?? null,
      created_at: answers.metadata.createdAt ?? null,
    },
    self_check: { passed: true, checked: run.checked, findings: [] },
    fixtures: run.fixtures,
    summary: summary.value,
    judge_summary: judgeSummary,
    cases: loop.cases,
    ...(loop.crossTally ? { cross_engine: loop.crossTally.summary() } : {}),
    run_metadata: {
      tool_version: TOOL_VERSION,
      started_at: new Date(run.started).toISOString(),
      elapsed_ms: Date.now() - run.started,
      config: input.config ?? {},
      resumed_cases: run.resumed,
    },
  });
}

/**
 * The earlier cases a resume may keep: only when every fixture has the digest
 * recorded then, and only those whose answer in the run is still the same.
 */
function keptCases(
  input: GradeRunInput,
  records: Map<string, RunRecord>,
  before: Map<string, string>,
): Map<string, CaseReport> {
  const kept = new Map<string, CaseReport>();
  const resume = input.resume;
  if (!resume?.cases.length) return kept;
  for (const [name, digest] of before) if (resume.fixtureDigests[name] !== digest) return kept;
  const ids = new Set(input.corpus.corpus.cases.map((c) => c.id));
  for (const c of resume.cases) {
    if (!c || !ids.has(c.id) || !('reason_code' in c) || !Array.isArray(c.review_flags)) continue;
    const record = records.get(c.id);
    if ((record?.sql ?? null) !== c.query) continue;
    kept.set(c.id, c);
  }
  return kept;
}
