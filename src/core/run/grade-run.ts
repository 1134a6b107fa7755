/**
 * Grade a run against a corpus: every case through the pipeline (or the
 * refusal rules), each after the oracle self-check of its reference (a broken
 * oracle refuses the run: no report), the fixtures' content digests checked before and after, and the run
 * summary (accuracy, both refusal arms, the 2×2, RS(c), strata, pyramid).
 * A write, a runaway query or a crash in one case never stops the run.
 */
import { expectedMismatch, hasOracle, type OracleCase, type SelfCheckFinding } from '../corpus/selfcheck.ts';
import type { CorpusCase, LoadedCorpus } from '../corpus/types.ts';
import type { LoadedRun, RunRecord } from '../corpus/load-run.ts';
import type { CancelSignal, Engine, EngineName } from '../engine.ts';
import { fail, messageOf, ok, type Outcome } from '../errors.ts';
import { DEFAULT_EVALUATION_CONFIG, type EvaluationConfig } from '../evaluation/request.ts';
import { classifyOutcome, type CaseResult } from '../gate/outcome.ts';
import { summarizeRun, type RunSummary } from '../gate/summary.ts';
import {
  createSemaphore,
  DEFAULT_JUDGE_CONCURRENCY,
  DEFAULT_JUDGE_THRESHOLD,
  summarizeJudgments,
  type CaseJudgment,
  type JudgeRunSummary,
} from '../judge/index.ts';
import type { EvaluateOptions, StagedEvaluation } from '../pipeline.ts';
import { TOOL_VERSION, type EvaluationReport } from '../report/report.ts';
import { asEvaluation, type CaseGrader } from './case-grader.ts';
import { dialectOfEngine } from '../structure/grammar.ts';
import { parseSql } from '../structure/parse.ts';
import { caseDifficulty, evaluateCase, type CaseEvaluation, type ReferenceMatch } from './case-references.ts';
import type { PresetCaseVerdict, PresetRunSummary } from './preset-grade.ts';
import { reviewFlags, type ReviewFlag } from './review.ts';
import {
  caseCrossEngine,
  CrossEngineTally,
  type CaseCrossEngine,
  type CrossEngineRunSummary,
} from './cross-engine-summary.ts';

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

/**
 * One reference before its cases are graded: its fixture loads, it runs, and it reproduces its frozen result
 * (the self-check's oracle check, `expectedMismatch`). The finding, or null.
 */
async function checkReference(c: OracleCase, engineFor: GradeRunInput['engineFor']): Promise<SelfCheckFinding | null> {
  const at = { case_id: c.id, fixture: c.fixture, severity: 'error' as const };
  const engine = await engineFor(c.fixture);
  if (!engine.ok)
    return {
      ...at,
      code: 'fixture_unavailable',
      message: `Fixture "${c.fixture}" did not load: ${engine.error.message}`,
    };
  const run = await engine.value.execute(c.referenceSql);
  if (!run.ok) return { ...at, code: 'reference_failed', message: `The reference does not run: ${run.error.message}` };
  const mismatch = expectedMismatch(c, run.value);
  return mismatch && { ...mismatch, message: `${mismatch.message} ${mismatch.evidence?.[0] ?? ''}`.trim() };
}

/**
 * The self-check of a run, alongside the grading: every reference, in corpus
 * order, one at a time (`checkReference`), while the cases are
 * graded. A case starts only once its own reference is checked (`until`),
 * so the first case waits for one reference instead of all of them; after a
 * finding no further case starts, the other references are still checked and
 * the run is refused naming the same references as checking them all first.
 */
class OracleCheck {
  checked = 0;
  readonly findings: SelfCheckFinding[] = [];
  /** Cases before this index have had their reference checked. */
  private through = 0;
  private waiters: { index: number; resolve: () => void }[] = [];
  readonly done: Promise<void>;

  private stopped = false;

  constructor(
    cases: readonly CorpusCase[],
    engineFor: GradeRunInput['engineFor'],
    onProgress: (index: number, id: string) => void,
    /** Waits for the fixture's digest before (false: it failed, nothing more is checked). */
    digestTaken: (fixture: string) => Promise<boolean>,
    /** After the first reference, further ones wait for this (the first case then has the engine to itself). */
    afterFirst: Promise<void> | null = null,
  ) {
    this.done = (async () => {
      for (const [index, c] of cases.entries()) {
        if (this.stopped) break;
        if (hasOracle(c)) {
          if (this.checked > 0 && afterFirst) await afterFirst;
          if (this.stopped) break;
          if (!(await digestTaken(c.fixture))) {
            this.stopped = true;
            break;
          }
          onProgress(index, c.id);
          this.checked++;
          const finding = await checkReference(c, engineFor);
          if (finding) this.findings.push(finding);
        }
        this.advance(index + 1);
      }
    })().finally(() => this.advance(Infinity));
    // Observed here so a throw waits for `finish` (which rethrows it) instead of being an unhandled rejection.
    this.done.catch(() => undefined);
  }

  /** Waits for the last check; `stop`: check no further reference (the run was cancelled or failed). */
  async finish(stop: boolean): Promise<void> {
    if (stop) this.stopped = true;
    await this.done;
  }

  private advance(through: number): void {
    this.through = through;
    const ready = this.waiters.filter((w) => w.index < through);
    this.waiters = this.waiters.filter((w) => w.index >= through);
    for (const w of ready) w.resolve();
  }

  /** Resolves once the reference of case `index` is checked (at once for a case without one). */
  until(index: number): Promise<void> {
    if (index < this.through) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ index, resolve }));
  }

  refusal(): Outcome<never> {
    return fail(
      'input.invalid',
      `The oracle self-check failed, grading refused: ${this.findings.map((f) => `${f.case_id} (${f.message})`).join('; ')}`,
      {
        location: this.findings.map((f) => f.case_id).join(', '),
      },
    );
  }
}

export async function gradeRun(input: GradeRunInput): Promise<Outcome<RunReport>> {
  const started = Date.now();
  const { corpus: loaded, run } = input;
  const corpus = loaded.corpus;
  const config: EvaluationConfig = { ...DEFAULT_EVALUATION_CONFIG, ...input.config };
  const total = corpus.cases.length;

  // Each fixture's content digest before any SQL runs on it (a fixture's reference and cases wait for it).
  const fixtureNames = [...new Set(corpus.cases.map((c) => c.fixture))];
  const before = new Map<string, string>();
  const digestOf = async (name: string): Promise<Outcome<void>> => {
    const engine = await input.engineFor(name);
    if (!engine.ok) return fail(engine.error.code, `Fixture ${name}: ${engine.error.message}`, { location: name });
    const digest = await engine.value.contentDigest();
    if (!digest.ok)
      return fail(
        'sandbox.digest_changed',
        `Fixture ${name}: cannot compute its content digest (${digest.error.message}).`,
      );
    before.set(name, digest.value);
    return ok(undefined);
  };
  // All of them first where something needs them all at the start (a resume, onStart), or where one engine is
  // reloaded per fixture. Otherwise the first case's fixture is loaded first, alone, and each further one after the
  // one before it: a fixture loading beside the first one would slow it down on a machine with few cores, and
  // the first case needs only its own. A fixture that fails to load fails the run, with the same message either way.
  const allFirst = input.engineSwitching || input.selfCheckFirst || !!input.onStart || !!input.resume?.cases.length;
  const digested = new Map<string, Promise<Outcome<void>>>();
  if (allFirst) {
    const outcomes = [];
    if (input.engineSwitching) for (const name of fixtureNames) outcomes.push(await digestOf(name));
    else outcomes.push(...(await Promise.all(fixtureNames.map(digestOf))));
    const failed = outcomes.find((o) => !o.ok);
    if (failed) return failed;
  } else {
    let previous: Promise<unknown> = Promise.resolve();
    for (const name of fixtureNames) {
      const next = previous.then(() => digestOf(name));
      // Awaited when a case or reference of the fixture comes up; a throw is rethrown there, not unhandled now.
      next.catch(() => undefined);
      digested.set(name, next);
      previous = next;
    }
  }
  // The first fixture (in corpus order) that failed to load, once it is known.
  let fixtureFailure: Outcome<never> | null = null;
  /** Whether the fixture's digest before is taken (false: it failed, and the run fails). */
  const digestTaken = async (name: string): Promise<boolean> => {
    const outcome = await digested.get(name);
    if (!outcome || outcome.ok) return true;
    for (const n of fixtureNames) {
      const o = await digested.get(n);
      if (o && !o.ok) {
        fixtureFailure ??= o;
        break;
      }
    }
    return false;
  };

  // The first case is graded alone: the next case and the next reference check wait until it is recorded. Cases in
  // flight and the self-check share the engines' queues (and, on few cores, the processors): run beside the first
  // case they would delay it; from the second case on, grading goes on several cases at a time.
  let firstRecordedNow!: () => void;
  const firstRecorded = allFirst ? null : new Promise<void>((resolve) => (firstRecordedNow = resolve));
  const oracle = input.skipSelfCheck
    ? null
    : new OracleCheck(
        corpus.cases,
        input.engineFor,
        (index, id) => input.onProgress?.({ index, total, id, step: 'selfcheck' }),
        digestTaken,
        firstRecorded,
      );
  // An engine pool that reloads one engine per fixture cannot check one fixture's references under another's cases.
  if (input.engineSwitching || input.selfCheckFirst) await oracle?.finish(false);
  if (oracle?.findings.length && !input.signal?.aborted) return oracle.refusal();

  const records = new Map<string, RunRecord>(run.records.map((r) => [r.id, r]));
  const kept = keptCases(input, records, before);
  input.onStart?.({ fixtureDigests: Object.fromEntries(before), resumed: kept.size });
  // While the first case's fixture loads, its texts are parsed here (the parse cache keeps them, structure/memo.ts):
  // its grading then starts from its queries. Graded elsewhere (a grading pool), it is parsed there.
  const firstCase = corpus.cases[0];
  if (firstCase && !allFirst && !input.grader) {
    const dialect = dialectOfEngine(corpus.engine);
    const sql = records.get(firstCase.id)?.sql;
    if (sql?.trim() && firstCase.referenceSql) {
      parseSql(sql, dialect);
      caseDifficulty(firstCase, dialect);
    }
  }

  const results: CaseResult[] = new Array(total);
  const retain = input.retainCases ?? true;
  const cases: CaseReport[] = retain ? new Array(total) : [];
  // By corpus index: with a judge, cases can finish out of order.
  const judgments: (CaseJudgment | undefined)[] = new Array(total);
  let graded = 0;
  const judgeSlots = createSemaphore(input.judgeConcurrency ?? DEFAULT_JUDGE_CONCURRENCY);
  const judging: Promise<void>[] = [];
  // Review mode: flagged cases are shown one after the other; the next case waits for the last decision.
  let reviews: Promise<void> = Promise.resolve();
  // Flagged cases not yet answered (several can queue up while judge answers arrive).
  let openReviews = 0;
  let failure: Outcome<never> | null = null;

  const crossTally = config.cross_engine && input.crossEngine ? new CrossEngineTally(corpus.engine) : null;
  const record_ = (index: number, caseReport: CaseReport, record: RunRecord | undefined): void => {
    crossTally?.add(caseReport, index);
    results[index] = caseResultOf(caseReport, record, corpus.cases[index]?.tags);
    if (retain) cases[index] = caseReport;
    if (caseReport.report?.judge) judgments[index] = caseReport.report.judge;
    graded++;
    firstRecordedNow?.();
    input.onCase?.(caseReport, index);
  };

  const finish = (
    index: number,
    c: CorpusCase,
    record: RunRecord | undefined,
    report: EvaluationReport | null,
    extra?: CaseEvaluation,
  ): void => {
    const sql = record?.sql ?? null;
    const declined = record?.declined ?? false;
    const classified = classifyOutcome({
      hasReference: !!(c.referenceSql || c.expected),
      ...(c.arm ? { arm: c.arm } : {}),
      declined,
      sql,
      deterministicPass: report?.deterministic_verdict === 'pass',
      brokenReference: report?.blocked_reason === 'broken_reference',
    });
    if (!classified.ok) {
      failure ??= fail('input.invalid', `Case ${c.id}: ${classified.error.message}`, { location: c.id });
      return;
    }
    const outcome = classified.value;
    const reason = reasonFor(outcome, record, report);
    const caseReport: CaseReport = {
      id: c.id,
      outcome,
      reason: reason?.text ?? null,
      reason_code: reason?.code ?? null,
      query: sql,
      arm: c.arm ?? null,
      stratum: c.stratum ?? null,
      shape: c.shape ?? null,
      // Computed as the case finishes: its reference is parsed (once, cached) while earlier cases run.
      difficulty:
        extra?.difficulty !== undefined
          ? extra.difficulty
          : (caseDifficulty(c, dialectOfEngine(corpus.engine)) ?? null),
      fixture: c.fixture,
      question: c.question,
      enriched_question: record?.enrichedQuestion ?? null,
      report,
      review_flags: reviewFlags(report, input.reviewConfidence),
      ...(c.evidence !== undefined ? { evidence: c.evidence } : {}),
      ...(extra?.reference ? { reference_match: extra.reference } : {}),
      ...(extra?.configOverride ? { config_override: extra.configOverride } : {}),
      ...(report?.evidence.cross_engine ? { cross_engine: caseCrossEngine(report.evidence.cross_engine) } : {}),
    };
    record_(index, caseReport, record);
    input.onProgress?.({ index, total, id: c.id, step: 'done' });
    if (caseReport.review_flags.length && input.onReview) {
      openReviews++;
      reviews = reviews
        .then(() => input.onReview!(caseReport, index))
        .catch(() => undefined)
        .then(() => {
          openReviews--;
        });
    }
  };

  // judgeCase records its own failures; anything else (the fix check's engine) is kept as a warning.
  const judged = (staged: StagedEvaluation): Promise<EvaluationReport> =>
    staged.judge!().catch((thrown: unknown) => ({
      ...staged.report,
      warnings: [...staged.report.warnings, { code: 'judge', message: `The judge step failed: ${messageOf(thrown)}` }],
    }));

  // A cancel also ends a pause: nobody has to answer the review first.
  const untilReviewed = (): Promise<void> => {
    const signal = input.signal;
    if (!signal) return reviews;
    if (signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const stop = () => resolve();
      signal.addEventListener('abort', stop);
      void reviews.then(() => {
        signal.removeEventListener('abort', stop);
        resolve();
      });
    });
  };

  // Without judge or review, several cases are in flight; they finish strictly in corpus order.
  // The grading pool's threads have no other engines: cross-engine cases are graded here.
  const crossHere = !!(config.cross_engine && input.crossEngine);
  const grader = input.judge || input.onReview || crossHere ? null : (input.grader ?? null);
  const window = input.judge || input.onReview ? 1 : Math.max(1, grader?.capacity ?? input.concurrency ?? 4);
  const inFlight: {
    index: number;
    c: CorpusCase;
    evaluated: Promise<CaseEvaluation | null> | null;
    /** Settles once the case is recorded (or, after a cancel or a finding, known not to be). */
    recorded: Promise<void>;
  }[] = [];
  // Cases in flight are recorded as soon as they and every case before them are done, in corpus order.
  let recording: Promise<void> = Promise.resolve();
  // After a finding or a fixture that failed to load, no further case is recorded.
  let stopRecording = false;
  const start = (
    index: number,
    c: CorpusCase,
    record: RunRecord | undefined,
    evaluated: Promise<CaseEvaluation | null>,
  ): void => {
    recording = recording.then(async () => {
      const done = await evaluated;
      // After a cancel no further case is recorded, as if it had not started.
      if (!input.signal?.aborted && !stopRecording)
        finish(index, c, record, done?.staged.report ?? null, done ?? undefined);
    });
    const recorded = recording;
    // Awaited by drain (which rethrows a failure); observed here so none is reported unhandled meanwhile.
    recorded.catch(() => undefined);
    inFlight.push({ index, c, evaluated, recorded });
  };
  const drain = async (keep: number): Promise<void> => {
    while (inFlight.length > keep) await inFlight.shift()!.recorded;
  };

  for (const [index, c] of corpus.cases.entries()) {
    // Waits that can let a judged case finish (and open a review) come before the review check below.
    if (index > 0 && firstRecorded) await firstRecorded;
    if (!(await digestTaken(c.fixture))) break;
    if (input.signal?.aborted || failure || fixtureFailure) break;
    if (oracle) {
      await oracle.until(index);
      if (oracle.findings.length) break;
    }
    // Last before the case starts: a judge answer that arrived during the waits above may have opened a review,
    // and another may arrive while one is pending.
    while (openReviews > 0 && !input.signal?.aborted) await untilReviewed();
    if (input.signal?.aborted || failure || fixtureFailure) break;
    const record = records.get(c.id);
    const previous = kept.get(c.id);
    if (previous) {
      await drain(0);
      record_(index, previous, record);
      continue;
    }
    input.onProgress?.({ index, total, id: c.id, step: 'parse' });
    const sql = record?.sql ?? null;
    const hasReference = !!(c.referenceSql || c.expected);
    const answered = !(record?.declined ?? false) && sql !== null && sql.trim() !== '';
    if (!answered || !hasReference || c.arm === 'must_refuse') {
      await drain(0);
      finish(index, c, record, null);
      continue;
    }
    if (grader) {
      const graded = grader
        .grade(c, sql, config, dialectOfEngine(corpus.engine))
        .then((g) => (g ? asEvaluation(g) : null));
      start(index, c, record, graded);
      await drain(window - 1);
      continue;
    }
    // Cases in flight share one fixture: an engine pool may reload one engine for another fixture (--db-dir).
    if (inFlight.some((f) => f.c.fixture !== c.fixture)) await drain(0);
    const engine = await input.engineFor(c.fixture);
    if (!engine.ok) {
      await drain(0);
      finish(index, c, record, null);
      continue;
    }
    input.onProgress?.({ index, total, id: c.id, step: 'execute' });
    const cross = config.cross_engine ? input.crossEngine : undefined;
    const others = cross ? await cross.enginesFor(c.fixture) : [];
    // Several references, the case's own settings and BIRD's evidence: see case-references.ts.
    const evaluation = evaluateCase(c, sql, engine.value, config, {
      ...(input.judge ? { judge: input.judge } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
      ...(input.neighbourHost ? { neighbourHost: input.neighbourHost } : {}),
      ...(others.length
        ? {
            otherEngines: others.map((o) => {
              const references = cross!.referencesOn?.(c, o.name);
              return { engine: o, ...(references ? { references } : {}) };
            }),
          }
        : {}),
    });
    if (window > 1) {
      start(index, c, record, evaluation);
      await drain(window - 1);
      continue;
    }
    const evaluated = await evaluation;
    const staged = evaluated.staged;
    if (!staged.judge) {
      finish(index, c, record, staged.report, evaluated);
      continue;
    }
    if (!staged.asksJudge) {
      finish(index, c, record, await judged(staged), evaluated);
      continue;
    }
    // Bounded concurrency: wait for a free slot, then grade the next case while this request is in flight.
    const release = await judgeSlots.acquire(input.signal);
    if (!release) {
      finish(index, c, record, staged.report, evaluated);
      continue;
    }
    judging.push(
      judged(staged)
        .then((report) => finish(index, c, record, report, evaluated))
        .finally(release),
    );
  }
  // No case waits for the first one any more (a run that stopped before recording it).
  firstRecordedNow?.();
  if (fixtureFailure || (oracle?.findings.length && !input.signal?.aborted)) stopRecording = true;
  // A fixture that failed to load: what is in flight settles, the remaining references are not checked.
  if (fixtureFailure) {
    await Promise.allSettled([...inFlight.map((f) => f.evaluated), ...judging]);
    await oracle?.finish(true);
    return fixtureFailure;
  }
  // A cancelled run's references may have been stopped mid-check: that is the cancellation, not a finding.
  if (oracle?.findings.length && !input.signal?.aborted) {
    // Grading stops: what is in flight settles (and is not recorded) while the other references are checked.
    await Promise.allSettled([...inFlight.map((f) => f.evaluated), ...judging]);
    await oracle.finish(false);
    return oracle.refusal();
  }
  await drain(0);
  await Promise.all(judging);
  if (openReviews > 0) await untilReviewed();
  // The last case can finish before the last references are checked.
  await oracle?.finish(!!input.signal?.aborted || failure !== null);
  if (oracle?.findings.length && !input.signal?.aborted) return oracle.refusal();
  if (failure) return failure;
  if (graded < total) return fail('run.cancelled', `The run was cancelled after ${graded} of ${total} cases.`);
  // Every fixture was used by a case, so its digest is taken (or the run failed above).
  for (const name of fixtureNames) if (!(await digestTaken(name)) && fixtureFailure) return fixtureFailure;

  const fixtures = [];
  for (const name of fixtureNames) {
    const engine = await input.engineFor(name);
    const after = engine.ok ? await engine.value.contentDigest() : null;
    const digest = after?.ok ? after.value : 'unavailable';
    fixtures.push({
      name,
      content_digest_before: before.get(name)!,
      content_digest_after: digest,
      unchanged: digest === before.get(name),
    });
  }
  const changed = fixtures.filter((f) => !f.unchanged);
  if (changed.length)
    return fail(
      'sandbox.digest_changed',
      `The content of fixture ${changed.map((f) => f.name).join(', ')} changed during the run: results are not trustworthy.`,
    );

  const summary = summarizeRun(
    results,
    { name: corpus.name, version: corpus.version, size: total, sha256: loaded.sha256 },
    {
      agent: run.metadata.agent ?? null,
      model: run.metadata.model ?? null,
      path: run.metadata.path ?? null,
      created_at: run.metadata.createdAt ?? null,
    },
    { reliabilityPenalty: input.reliabilityPenalty ?? 1 },
  );
  if (!summary.ok) return summary;
  const judgeSummary =
    config.enable_ai_judge && input.judge
      ? summarizeJudgments(
          judgments.filter((j): j is CaseJudgment => !!j),
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
      file: run.file,
      sha256: run.sha256,
      agent: run.metadata.agent ?? null,
      model: run.metadata.model ?? null,
      path: run.metadata.path ?? null,
      created_at: run.metadata.createdAt ?? null,
    },
    self_check: { passed: true, checked: oracle?.checked ?? 0, findings: [] },
    fixtures,
    summary: summary.value,
    judge_summary: judgeSummary,
    cases,
    ...(crossTally ? { cross_engine: crossTally.summary() } : {}),
    run_metadata: {
      tool_version: TOOL_VERSION,
      started_at: new Date(started).toISOString(),
      elapsed_ms: Date.now() - started,
      config: input.config ?? {},
      resumed_cases: kept.size,
    },
  });
}

/** The summary's view of a graded case. */
export function caseResultOf(c: CaseReport, record: RunRecord | undefined, tags?: readonly string[]): CaseResult {
  return {
    id: c.id,
    outcome: c.outcome,
    ...(c.reason !== null && c.reason_code !== null ? { reason: c.reason, reason_code: c.reason_code } : {}),
    query: c.query,
    ...(c.arm ? { arm: c.arm } : {}),
    ...(c.stratum ? { stratum: c.stratum } : {}),
    ...(c.shape ? { shape: c.shape } : {}),
    ...(c.difficulty ? { difficulty: c.difficulty as NonNullable<CaseResult['difficulty']> } : {}),
    fixture: c.fixture,
    ...(tags?.length ? { tags: [...tags] } : {}),
    ...(c.report ? { severity: c.report.severity } : {}),
    ...(record?.declineReason ? { decline_reason: record.declineReason } : {}),
    ...(c.report?.validity.parser_unsupported_actual || c.report?.validity.parser_unsupported_expected
      ? { parser_unsupported: true as const }
      : {}),
  };
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

const DEFAULT_BROKEN = 'The reference query does not run: a broken oracle; excluded from accuracy.';

function reasonFor(
  outcome: CaseResult['outcome'],
  record: RunRecord | undefined,
  report: EvaluationReport | null,
): { code: string; text: string } | null {
  switch (outcome) {
    case 'correct':
    case 'correct_refusal':
      return null;
    case 'no_query':
      return record
        ? { code: 'run.no_query', text: 'The system produced no query (sql is null and it did not decline).' }
        : { code: 'run.no_record', text: 'The run has no record for this case.' };
    case 'missed_refusal':
      return { code: 'refusal.missed', text: 'The system answered a question it must refuse (a fabricated answer).' };
    case 'over_refusal':
      return {
        code: 'refusal.over',
        text: `The system declined an answerable question${record?.declineReason ? `: "${record.declineReason}"` : ''}.`,
      };
    case 'broken_reference':
      return { code: 'oracle.broken_reference', text: report?.explanations[0] ?? DEFAULT_BROKEN };
    case 'declined_unarmed':
      return {
        code: 'refusal.declined_answerable',
        text: `The system declined an answerable golden question${record?.declineReason ? `: "${record.declineReason}"` : ''} (scored as a failure, recorded distinctly).`,
      };
    case 'wrong': {
      if (!report) return { code: 'result.not_evaluated', text: 'The answer could not be evaluated.' };
      const code = report.blocked_reason
        ? `validation.${report.blocked_reason}`
        : `result.${report.evidence.result?.reasons[0]?.code ?? 'mismatch'}`;
      return { code, text: report.explanations[0] ?? 'The result does not match the reference.' };
    }
  }
  return null;
}
