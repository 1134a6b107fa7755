/** The shapes of a corpus run: what gradeRun is given, and the run report with its case reports. */
import type { SelfCheckFinding } from '../corpus/selfcheck.ts';
import type { CorpusCase, LoadedCorpus } from '../corpus/types.ts';
import type { LoadedRun } from '../corpus/load-run.ts';
import type { CancelSignal, Engine, EngineName } from '../engine.ts';
import type { Outcome } from '../errors.ts';
import type { EvaluationConfig } from '../evaluation/request.ts';
import type { CaseResult } from '../gate/outcome.ts';
import type { RunSummary } from '../gate/summary.ts';
import type { JudgeRunSummary } from '../judge/index.ts';
import type { EvaluateOptions } from '../pipeline.ts';
import type { EvaluationReport } from '../report/report.ts';
import type { CaseGrader } from './case-grader.ts';
import type { ReferenceMatch } from './case-references.ts';
import type { PresetCaseVerdict, PresetRunSummary } from './preset-report.ts';
import type { ReviewFlag } from './review.ts';
import type { CaseCrossEngine, CrossEngineRunSummary } from './cross-engine-summary.ts';

/** `policy`: after the grading, the answered cases judged again under a policy preset (applyPreset). */
export type GradeStep = 'selfcheck' | 'parse' | 'execute' | 'compare' | 'diagnose' | 'done' | 'policy';

export interface GradeProgress {
  index: number;
  total: number;
  id: string;
  step: GradeStep;
}

/** A fixture of a run: its content before and after, and the frozen clock its queries read (if any). */
export interface RunReportFixture {
  name: string;
  content_digest_before: string;
  content_digest_after: string;
  unchanged: boolean;
  /** The as-of instant the fixture was graded at (its own, or `run --as-of`): the same content at another instant answers relative-date questions otherwise. */
  as_of?: string;
}

export interface GradeRunInput {
  corpus: LoadedCorpus;
  run: LoadedRun;
  /** The engine for a fixture name, with the fixture loaded. */
  engineFor(fixture: string): Promise<Outcome<Engine>>;
  /** The as-of instant each fixture is loaded with (the clock its queries read), recorded in the report's fixtures. */
  fixtureAsOf?(fixture: string): string | undefined;
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
  /**
   * Without selfCheckFirst: each fixture's references are checked in their own chain, side by side with the other
   * fixtures' (OracleCheck's byFixture): a case waits for its own fixture's references only, and one fixture's cases
   * are graded while another's references are checked.
   */
  selfCheckByFixture?: boolean;
  /**
   * Cases graded alongside the self-check are told (onCase) only once every reference passed, in corpus order: a
   * refused run tells no case, exactly as with selfCheckFirst (the app: a broken oracle shows no graded case).
   */
  holdCasesUntilSelfChecked?: boolean;
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
  /** Judge requests in flight at most (default 10); grading goes on meanwhile. */
  judgeConcurrency?: number;
  /**
   * Cases graded at once (default 4) when there is no judge and no review
   * pause: one case's parsing overlaps another's queries in the engine
   * threads, and (engines per fixture, not switching) another fixture's cases
   * go on while a slow case holds its engine. Cases still finish (onCase, the
   * report) in corpus order.
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
  fixtures: RunReportFixture[];
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
