/**
 * Grade a run against a corpus: every case through the pipeline (or the
 * refusal rules), each after the oracle self-check of its reference (a broken
 * oracle refuses the run: no report), the fixtures' content digests checked before and after, and the run
 * summary (accuracy, both refusal arms, the 2×2, RS(c), strata, pyramid).
 * A write, a runaway query or a crash in one case never stops the run.
 */
import type { SelfCheckFinding } from '../corpus/selfcheck.ts';
import type { CorpusCase, LoadedCorpus } from '../corpus/types.ts';
import type { LoadedRun, RunRecord } from '../corpus/load-run.ts';
import type { CancelSignal, Engine, EngineName } from '../engine.ts';
import { ok, type Outcome } from '../errors.ts';
import { DEFAULT_EVALUATION_CONFIG, type EvaluationConfig } from '../evaluation/request.ts';
import type { CaseResult } from '../gate/outcome.ts';
import { summarizeRun, type RunSummary } from '../gate/summary.ts';
import {
  DEFAULT_JUDGE_CONCURRENCY,
  DEFAULT_JUDGE_THRESHOLD,
  summarizeJudgments,
  type CaseJudgment,
  type JudgeRunSummary,
} from '../judge/index.ts';
import type { EvaluateOptions } from '../pipeline.ts';
import { TOOL_VERSION, type EvaluationReport } from '../report/report.ts';
import type { CaseGrader } from './case-grader.ts';
import { dialectOfEngine } from '../structure/grammar.ts';
import { parseSql } from '../structure/parse.ts';
import { caseDifficulty, type ReferenceMatch } from './case-references.ts';
import { CaseLoop } from './case-loop.ts';
import { FixtureDigests } from './fixture-digests.ts';
import { OracleCheck } from './oracle-check.ts';
import type { PresetCaseVerdict, PresetRunSummary } from './preset-grade.ts';
import type { ReviewFlag } from './review.ts';
import type { CaseCrossEngine, CrossEngineRunSummary } from './cross-engine-summary.ts';

export { caseResultOf } from './case-outcome.ts';

/**
 * 1.1.0: judge_summary, per-case reason_code and review_flags, run_metadata.resumed_cases.
 * 1.2.0: shard (a report of some shards of a run, src/core/report/merge.ts); summary.breakdowns, ci95 on every
 * summary rate, summary.cases[].tags.
 */
export const RUN_REPORT_VERSION = '1.2.0';

/** `policy`: after the grading, the answered cases judged again under a policy preset (applyPreset). */
export type GradeStep = 'selfcheck' | 'parse' | 'execute' | 'compare' | 'diagnose' | 'done' | 'policy';

export interface GradeProgress {
  index: number;
  total: number;
  id: string;
  step: GradeStep;
}

export interface GradeRunInput {
  corpus: LoadedCorpus;
  run: LoadedRun;
  /** The engine for a fixture name, with the fixture loaded. */
  engineFor(fixture: string): Promise<Outcome<Engine>>;
  /**
   * engineFor may reload one engine with another fixture (a pool over a
   * benchmark's database folder): fixtures are then used one at a time.
   */
  engineSwitching?: boolean;
  /**
   * Check every reference before the first case (the app: its progress shows one phase at a time and a review
   * pause holds everything). Otherwise a case waits only for its own reference's check.
   */
  selfCheckFirst?: boolean;
  config?: Partial<EvaluationConfig>;
  /** RS(c) penalty. */
  reliabilityPenalty?: number;
  onProgress?(event: GradeProgress): void;
  /** Each graded case, with its index in the corpus (with a judge, cases can finish out of order). */
  onCase?(result: CaseReport, index: number): void;
  /** The fixtures' content digests before anything ran (a resume needs them to trust earlier cases). */
  onStart?(info: { fixtureDigests: Record<string, string>; resumed: number }): void;
  /**
   * Review mode: called for each case with review flags; no further case
   * starts until the promise resolves (the human-in-the-loop pause).
   */
  onReview?(result: CaseReport, index: number): Promise<void> | void;
  /** Diagnosis or judge confidence below this is flagged for review. */
  reviewConfidence?: number;
  /**
   * Cases graded before an interruption, from the same corpus and run: they
   * are kept (not regraded) when the fixtures still have the recorded digests
   * and the run still has the same answer for them.
   */
  resume?: { cases: readonly CaseReport[]; fixtureDigests: Record<string, string> };
  signal?: CancelSignal;
  /** Skip the oracle self-check (never in a release gate). */
  skipSelfCheck?: boolean;
  /** The optional AI judge (advisory), used when config.enable_ai_judge. */
  judge?: EvaluateOptions['judge'];
  /** Scratch databases for config.neighbours (neighbours/host.ts). */
  neighbourHost?: EvaluateOptions['neighbourHost'];
  /** Judge requests in flight at most (default 4); grading goes on meanwhile. */
  judgeConcurrency?: number;
  /**
   * Cases graded at once (default 4) when there is no judge and no review
   * pause: one case's parsing overlaps another's queries in the engine
   * threads. Cases still finish (onCase, the report) in corpus order.
   */
  concurrency?: number;
  /**
   * Keep every case report in the returned run report (default true). A
   * caller that streams them from onCase passes false: memory then does not
   * grow with the corpus, and the report's `cases` is empty.
   */
  retainCases?: boolean;
  /**
   * Grades whole cases elsewhere (a pool of worker threads with their own
   * engines); used when there is no judge and no review pause. engineFor
   * still serves the self-check and the fixture digests.
   */
  grader?: CaseGrader;
  /**
   * config.cross_engine: the other engines of a case's fixture (loaded), and
   * the case's references on an engine when they are another text there (the
   * corpus before its ports, on the engines of other dialects).
   */
  crossEngine?: {
    enginesFor(fixture: string): Promise<Engine[]>;
    referencesOn?(c: CorpusCase, engine: EngineName): readonly string[] | undefined;
  };
}

export interface CaseReport {
  id: string;
  outcome: CaseResult['outcome'];
  reason: string | null;
  /** Machine-readable reason (null when correct). */
  reason_code: string | null;
  query: string | null;
  arm: CorpusCase['arm'] | null;
  stratum: string | null;
  shape: string | null;
  difficulty: string | null;
  fixture: string;
  question: string;
  enriched_question: string | null;
  /** The pipeline's report (null for refusal outcomes and no-query cases). */
  report: EvaluationReport | null;
  /** Why a human should look at it (ambiguous, low confidence, judge disagrees); never changes the outcome. */
  review_flags: ReviewFlag[];
  /** BIRD's external knowledge, when the case has it. */
  evidence?: string;
  /** With several accepted references: which one matched (or the closest one on a failure). */
  reference_match?: ReferenceMatch;
  /** The case's own comparison settings over the run's. */
  config_override?: Record<string, unknown>;
  /** Under a benchmark policy preset: its verdict, next to SQL Verdict's own (see run/preset-grade.ts). */
  policy_preset?: PresetCaseVerdict;
  /** config.cross_engine: the verdict per engine (details in report.evidence.cross_engine). */
  cross_engine?: CaseCrossEngine;
}

export interface RunReport {
  report_version: string;
  kind: 'run';
  corpus: { name: string; version: number; file: string; sha256: string; size: number; engine: string };
  run: {
    file: string;
    sha256: string;
    agent: string | null;
    model: string | null;
    path: string | null;
    created_at: string | null;
  };
  self_check: { passed: boolean; checked: number; findings: SelfCheckFinding[] };
  fixtures: { name: string; content_digest_before: string; content_digest_after: string; unchanged: boolean }[];
  summary: RunSummary;
  /** The AI judge's per-run figures (agreement matrix, review queue, tokens, latency, cost); null without a judge. */
  judge_summary: JudgeRunSummary | null;
  cases: CaseReport[];
  /** Graded under a benchmark's policy preset (spider, bird): which, and SQL Verdict's own figure beside it. */
  policy_preset?: PresetRunSummary;
  /** config.cross_engine: how many cases each engine decides, and which depend on the engine. */
  cross_engine?: CrossEngineRunSummary;
  run_metadata: {
    tool_version: string;
    started_at: string;
    elapsed_ms: number;
    config: Partial<EvaluationConfig>;
    /** Cases kept from before an interruption instead of being graded again. */
    resumed_cases: number;
  };
}

export async function gradeRun(input: GradeRunInput): Promise<Outcome<RunReport>> {
  const started = Date.now();
  const corpus = input.corpus.corpus;
  const config: EvaluationConfig = { ...DEFAULT_EVALUATION_CONFIG, ...input.config };

  // Each fixture's digest before any SQL runs on it: all of them first where something needs them all at the start
  // (a resume, onStart) or one engine is reloaded per fixture; else one after the other, the first case's first.
  const allFirst = input.engineSwitching || input.selfCheckFirst || !!input.onStart || !!input.resume?.cases.length;
  const digests = new FixtureDigests(corpus.cases, input.engineFor);
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
      );
  // An engine pool that reloads one engine per fixture cannot check one fixture's references under another's cases.
  if (input.engineSwitching || input.selfCheckFirst) await oracle?.finish(false);
  if (oracle?.findings.length && !input.signal?.aborted) return oracle.refusal();

  const records = new Map<string, RunRecord>(input.run.records.map((r) => [r.id, r]));
  const kept = keptCases(input, records, digests.before);
  input.onStart?.({ fixtureDigests: Object.fromEntries(digests.before), resumed: kept.size });
  if (!allFirst && !input.grader) parseFirstCase(input, records);

  const loop = new CaseLoop({ input, config, records, kept, digests, oracle, firstRecorded, firstRecordedNow });
  const graded = await loop.run();
  if (!graded.ok) return graded;
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
