/**
 * The cases of a run, graded in corpus order: each after its fixture's digest and its reference's check, several
 * in flight when there is no judge and no review pause (they are recorded strictly in corpus order), one at a
 * time otherwise; judge requests bounded, review pauses honoured, a cancel obeyed at once.
 */
import type { RunRecord } from '../corpus/load-run.ts';
import type { Engine } from '../engine.ts';
import type { CorpusCase } from '../corpus/types.ts';
import { fail, messageOf, ok, type Outcome } from '../errors.ts';
import type { EvaluationConfig } from '../evaluation/request.ts';
import { classifyOutcome, type CaseResult } from '../gate/outcome.ts';
import { createSemaphore, DEFAULT_JUDGE_CONCURRENCY, type CaseJudgment } from '../judge/index.ts';
import type { StagedEvaluation } from '../pipeline.ts';
import type { EvaluationReport } from '../report/report.ts';
import { dialectOfEngine } from '../structure/grammar.ts';
import { asEvaluation, type CaseGrader } from './case-grader.ts';
import { caseDifficulty, evaluateCase, type CaseEvaluation } from './case-references.ts';
import { caseCrossEngine, CrossEngineTally } from './cross-engine-summary.ts';
import type { FixtureDigests } from './fixture-digests.ts';
import { caseResultOf, reasonFor } from './case-outcome.ts';
import type { CaseReport, GradeRunInput } from './run-report.ts';
import type { OracleCheck } from './oracle-check.ts';
import { reviewFlags } from './review.ts';

export interface CaseLoopSetup {
  input: GradeRunInput;
  config: EvaluationConfig;
  records: Map<string, RunRecord>;
  /** Cases kept from before an interruption (a resume). */
  kept: Map<string, CaseReport>;
  digests: FixtureDigests;
  oracle: OracleCheck | null;
  /** Resolves once the first case is recorded (null: nothing waits for it). */
  firstRecorded: Promise<void> | null;
  firstRecordedNow: (() => void) | null;
}

interface InFlight {
  index: number;
  c: CorpusCase;
  evaluated: Promise<CaseEvaluation | null> | null;
  /** Settles once the case is recorded (or, after a cancel or a finding, known not to be). */
  recorded: Promise<void>;
}

export class CaseLoop {
  readonly results: CaseResult[];
  readonly cases: CaseReport[];
  /** By corpus index: with a judge, cases can finish out of order. */
  readonly judgments: (CaseJudgment | undefined)[];
  readonly crossTally: CrossEngineTally | null;
  private readonly input: GradeRunInput;
  private readonly total: number;
  private readonly retain: boolean;
  private graded = 0;
  private failure: Outcome<never> | null = null;
  private readonly judgeSlots;
  private readonly judging: Promise<void>[] = [];
  // Review mode: flagged cases are shown one after the other; the next case waits for the last decision.
  private reviews: Promise<void> = Promise.resolve();
  // Flagged cases not yet answered (several can queue up while judge answers arrive).
  private openReviews = 0;
  // Without judge or review, several cases are in flight; they finish strictly in corpus order.
  private readonly grader: CaseGrader | null;
  private readonly window: number;
  /**
   * The self-check runs by fixture and cases are in flight: a case waiting for its reference's check waits in flight,
   * so the cases after it (another fixture's, checked meanwhile on their engine) start as theirs are checked.
   */
  private readonly deferOracle: boolean;
  private readonly inFlight: InFlight[] = [];
  // Cases in flight are recorded as soon as they and every case before them are done, in corpus order.
  private recording: Promise<void> = Promise.resolve();
  // After a finding or a fixture that failed to load, no further case is recorded.
  private stopRecording = false;

  constructor(private readonly setup: CaseLoopSetup) {
    const input = setup.input;
    this.input = input;
    this.total = input.corpus.corpus.cases.length;
    this.retain = input.retainCases ?? true;
    this.results = new Array(this.total);
    this.cases = this.retain ? new Array(this.total) : [];
    this.judgments = new Array(this.total);
    this.judgeSlots = createSemaphore(input.judgeConcurrency ?? DEFAULT_JUDGE_CONCURRENCY);
    const cross = !!(setup.config.cross_engine && input.crossEngine);
    this.crossTally = cross ? new CrossEngineTally(input.corpus.corpus.engine) : null;
    // The grading pool's threads have no other engines: cross-engine cases are graded here.
    this.grader = input.judge || input.onReview || cross ? null : (input.grader ?? null);
    this.window = input.judge || input.onReview ? 1 : Math.max(1, this.grader?.capacity ?? input.concurrency ?? 4);
    this.deferOracle = !!setup.oracle?.byFixture && this.window > 1 && !this.grader && !input.engineSwitching;
  }

  /** Grades every case; the failure, refusal or cancellation that ended the run early, else ok. */
  async run(): Promise<Outcome<void>> {
    for (const [index, c] of this.input.corpus.corpus.cases.entries()) {
      if (!(await this.ready(index, c))) break;
      await this.grade(index, c);
    }
    return this.settle();
  }

  /** Waits until case `index` may start; false: the run stops before it. */
  private async ready(index: number, c: CorpusCase): Promise<boolean> {
    const { digests, oracle, firstRecorded } = this.setup;
    const signal = this.input.signal;
    if (index > 0 && firstRecorded) await firstRecorded;
    if (!(await digests.taken(c.fixture))) return false;
    if (signal?.aborted || this.failure || digests.failure) return false;
    if (oracle) {
      if (!this.deferOracle) await oracle.until(index);
      if (oracle.findings.length) return false;
    }
    // Last before the case starts: a judge answer that arrived during the waits above may have opened a review,
    // and another may arrive while one is pending.
    while (this.openReviews > 0 && !signal?.aborted) await this.untilReviewed();
    return !(signal?.aborted || this.failure || digests.failure);
  }

  private async grade(index: number, c: CorpusCase): Promise<void> {
    const input = this.input;
    const engineName = input.corpus.corpus.engine;
    const record = this.setup.records.get(c.id);
    const previous = this.setup.kept.get(c.id);
    if (previous) {
      await this.drain(0);
      this.record(index, previous, record);
      return;
    }
    input.onProgress?.({ index, total: this.total, id: c.id, step: 'parse' });
    const sql = record?.sql ?? null;
    const hasReference = !!(c.referenceSql || c.expected);
    const answered = !(record?.declined ?? false) && sql !== null && sql.trim() !== '';
    if (!answered || !hasReference || c.arm === 'must_refuse') return this.finishInOrder(index, c, record);
    if (this.grader) {
      const graded = this.grader
        .grade(c, sql, this.setup.config, dialectOfEngine(engineName))
        .then((g) => (g ? asEvaluation(g) : null));
      this.start(index, c, record, graded);
      await this.drain(this.window - 1);
      return;
    }
    // A switching pool reloads one engine for another fixture (--db-dir): cases in flight then share one fixture.
    // Otherwise each fixture has its engine, and a slow case holds up only the cases of its own fixture.
    if (this.input.engineSwitching && this.inFlight.some((f) => f.c.fixture !== c.fixture)) await this.drain(0);
    if (this.deferOracle) {
      const oracle = this.setup.oracle!;
      const evaluation = oracle.until(index).then(async (): Promise<CaseEvaluation | null> => {
        // After a finding no further case starts (the run is refused; nothing in flight is recorded).
        if (oracle.findings.length || input.signal?.aborted) return null;
        const engine = await input.engineFor(c.fixture);
        if (!engine.ok) return null;
        input.onProgress?.({ index, total: this.total, id: c.id, step: 'execute' });
        const cross = this.setup.config.cross_engine ? input.crossEngine : undefined;
        const others = cross ? await cross.enginesFor(c.fixture) : [];
        return this.evaluate(c, sql, engine.value, others);
      });
      this.start(index, c, record, evaluation);
      await this.drain(this.window - 1);
      return;
    }
    const engine = await input.engineFor(c.fixture);
    if (!engine.ok) return this.finishInOrder(index, c, record);
    input.onProgress?.({ index, total: this.total, id: c.id, step: 'execute' });
    const cross = this.setup.config.cross_engine ? input.crossEngine : undefined;
    const others = cross ? await cross.enginesFor(c.fixture) : [];
    const evaluation = this.evaluate(c, sql, engine.value, others);
    if (this.window > 1) {
      this.start(index, c, record, evaluation);
      await this.drain(this.window - 1);
      return;
    }
    await this.judgeAndFinish(index, c, record, await evaluation);
  }

  /** The case through the pipeline on its engine (and, with cross_engine, on the other engines of its fixture). */
  private evaluate(c: CorpusCase, sql: string, engine: Engine, others: Engine[]): Promise<CaseEvaluation> {
    const input = this.input;
    const cross = input.crossEngine;
    // Several references, the case's own settings and BIRD's evidence: see case-references.ts.
    return evaluateCase(c, sql, engine, this.setup.config, {
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
  }

  /** One case at a time: its judge request (bounded, in flight while the next case is graded), then its record. */
  private async judgeAndFinish(
    index: number,
    c: CorpusCase,
    record: RunRecord | undefined,
    evaluated: CaseEvaluation,
  ): Promise<void> {
    const staged = evaluated.staged;
    if (!staged.judge) return this.finish(index, c, record, staged.report, evaluated);
    if (!staged.asksJudge) return this.finish(index, c, record, await this.judged(staged), evaluated);
    // Bounded concurrency: wait for a free slot, then grade the next case while this request is in flight.
    const release = await this.judgeSlots.acquire(this.input.signal);
    if (!release) return this.finish(index, c, record, staged.report, evaluated);
    this.judging.push(
      this.judged(staged)
        .then((report) => this.finish(index, c, record, report, evaluated))
        .finally(release),
    );
  }

  // judgeCase records its own failures; anything else (the fix check's engine) is kept as a warning.
  private judged(staged: StagedEvaluation): Promise<EvaluationReport> {
    return staged.judge!().catch((thrown: unknown) => ({
      ...staged.report,
      warnings: [...staged.report.warnings, { code: 'judge', message: `The judge step failed: ${messageOf(thrown)}` }],
    }));
  }

  /** After the last case: what is in flight settles; the failure, refusal or cancellation of the run, else ok. */
  private async settle(): Promise<Outcome<void>> {
    const { digests, oracle } = this.setup;
    const aborted = () => !!this.input.signal?.aborted;
    // No case waits for the first one any more (a run that stopped before recording it).
    this.setup.firstRecordedNow?.();
    // Cancelled: cases waiting in flight for their references (checked by fixture) stop waiting for the check.
    if (aborted() && this.deferOracle) void oracle?.finish(true);
    if (digests.failure || (oracle?.findings.length && !aborted())) this.stopRecording = true;
    // A fixture that failed to load: what is in flight settles, the remaining references are not checked.
    if (digests.failure) {
      await Promise.allSettled([...this.inFlight.map((f) => f.evaluated), ...this.judging]);
      await oracle?.finish(true);
      return digests.failure;
    }
    // A cancelled run's references may have been stopped mid-check: that is the cancellation, not a finding.
    if (oracle?.findings.length && !aborted()) {
      // Grading stops: what is in flight settles (and is not recorded) while the other references are checked.
      await Promise.allSettled([...this.inFlight.map((f) => f.evaluated), ...this.judging]);
      await oracle.finish(false);
      return oracle.refusal();
    }
    await this.drain(0);
    await Promise.all(this.judging);
    if (this.openReviews > 0) await this.untilReviewed();
    // The last case can finish before the last references are checked.
    await oracle?.finish(aborted() || this.failure !== null);
    if (oracle?.findings.length && !aborted()) return oracle.refusal();
    if (this.failure) return this.failure;
    if (this.graded < this.total)
      return fail('run.cancelled', `The run was cancelled after ${this.graded} of ${this.total} cases.`);
    return ok(undefined);
  }

  private record(index: number, caseReport: CaseReport, record: RunRecord | undefined): void {
    this.crossTally?.add(caseReport, index);
    this.results[index] = caseResultOf(caseReport, record, this.input.corpus.corpus.cases[index]?.tags);
    if (this.retain) this.cases[index] = caseReport;
    if (caseReport.report?.judge) this.judgments[index] = caseReport.report.judge;
    this.graded++;
    this.setup.firstRecordedNow?.();
    this.input.onCase?.(caseReport, index);
  }

  private finish(
    index: number,
    c: CorpusCase,
    record: RunRecord | undefined,
    report: EvaluationReport | null,
    extra?: CaseEvaluation,
  ): void {
    const caseReport = this.caseReportOf(c, record, report, extra);
    if (!caseReport.ok) {
      this.failure ??= caseReport;
      return;
    }
    this.record(index, caseReport.value, record);
    this.input.onProgress?.({ index, total: this.total, id: c.id, step: 'done' });
    if (caseReport.value.review_flags.length && this.input.onReview) {
      this.openReviews++;
      this.reviews = this.reviews
        .then(() => this.input.onReview!(caseReport.value, index))
        .catch(() => undefined)
        .then(() => {
          this.openReviews--;
        });
    }
  }

  private caseReportOf(
    c: CorpusCase,
    record: RunRecord | undefined,
    report: EvaluationReport | null,
    extra: CaseEvaluation | undefined,
  ): Outcome<CaseReport> {
    const sql = record?.sql ?? null;
    const classified = classifyOutcome({
      hasReference: !!(c.referenceSql || c.expected),
      ...(c.arm ? { arm: c.arm } : {}),
      declined: record?.declined ?? false,
      sql,
      deterministicPass: report?.deterministic_verdict === 'pass',
      brokenReference: report?.blocked_reason === 'broken_reference',
    });
    if (!classified.ok) return fail('input.invalid', `Case ${c.id}: ${classified.error.message}`, { location: c.id });
    const outcome = classified.value;
    const reason = reasonFor(outcome, record, report);
    return ok({
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
          : (caseDifficulty(c, dialectOfEngine(this.input.corpus.corpus.engine)) ?? null),
      fixture: c.fixture,
      question: c.question,
      enriched_question: record?.enrichedQuestion ?? null,
      report,
      review_flags: reviewFlags(report, this.input.reviewConfidence),
      ...(c.evidence !== undefined ? { evidence: c.evidence } : {}),
      ...(extra?.reference ? { reference_match: extra.reference } : {}),
      ...(extra?.configOverride ? { config_override: extra.configOverride } : {}),
      ...(report?.evidence.cross_engine ? { cross_engine: caseCrossEngine(report.evidence.cross_engine) } : {}),
    });
  }

  // A cancel also ends a pause: nobody has to answer the review first.
  private untilReviewed(): Promise<void> {
    const signal = this.input.signal;
    if (!signal) return this.reviews;
    if (signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const stop = () => resolve();
      signal.addEventListener('abort', stop);
      void this.reviews.then(() => {
        signal.removeEventListener('abort', stop);
        resolve();
      });
    });
  }

  private start(
    index: number,
    c: CorpusCase,
    record: RunRecord | undefined,
    evaluated: Promise<CaseEvaluation | null>,
  ): void {
    this.recording = this.recording.then(async () => {
      const done = await evaluated;
      // After a cancel no further case is recorded, as if it had not started; nor, checked by fixture, after a finding.
      const found = this.deferOracle && !!this.setup.oracle?.findings.length;
      if (!this.input.signal?.aborted && !this.stopRecording && !found)
        this.finish(index, c, record, done?.staged.report ?? null, done ?? undefined);
    });
    const recorded = this.recording;
    // Awaited by drain (which rethrows a failure); observed here so none is reported unhandled meanwhile.
    recorded.catch(() => undefined);
    this.inFlight.push({ index, c, evaluated, recorded });
  }

  /** A case with nothing to evaluate, recorded after the cases in flight before it, without waiting for them. */
  private async finishInOrder(index: number, c: CorpusCase, record: RunRecord | undefined): Promise<void> {
    if (this.window === 1) return this.finish(index, c, record, null);
    this.start(index, c, record, Promise.resolve(null));
    await this.drain(this.window - 1);
  }

  private async drain(keep: number): Promise<void> {
    while (this.inFlight.length > keep) await this.inFlight.shift()!.recorded;
  }
}
