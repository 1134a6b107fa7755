/**
 * One corpus case through the pipeline, with what a case may add to a plain
 * request: several accepted references (the candidate passes when it matches
 * any; the report names the one it matched, or the closest on a failure),
 * comparison settings of its own over the run's, and BIRD's evidence given to
 * the judge with the question. Called from grade-run for every answered case.
 */
import type { CorpusCase } from '../corpus/types.ts';
import type { CancelSignal, Engine } from '../engine.ts';
import { resolveEvaluationConfig, type EvaluationConfig, type EvaluationRequest } from '../evaluation/request.ts';
import { evaluateStaged, type EvaluateOptions, type StagedEvaluation } from '../pipeline.ts';
import { hardness } from '../structure/hardness.ts';

/** Which reference decided the verdict (only on cases with more than one). */
export interface ReferenceMatch {
  /** How many references the case accepts. */
  references: number;
  /** 0-based index of the reference the candidate matched; null when none did. */
  matched_index: number | null;
  /** The reference the report is about: the matched one, else the closest (highest overall score). */
  reported_index: number;
  reported_sql: string;
  /** overall_score against each reference tried, in order (-1 where not tried). */
  scores: number[];
}

export interface CaseEvaluation {
  staged: StagedEvaluation;
  reference: ReferenceMatch | null;
  /** The case's own settings, when it has any (echoed in the case report). */
  configOverride: Record<string, unknown> | null;
  /** The case's difficulty, when the thread that graded it worked it out (its reference is parsed there already). */
  difficulty?: string | null;
}

/** The corpus's difficulty of a case, else Spider's hardness of its reference. */
export function caseDifficulty(c: CorpusCase, dialect: 'duckdb' | 'sqlite'): string | undefined {
  if (c.difficulty) return c.difficulty;
  if (!c.referenceSql) return undefined;
  const h = hardness(c.referenceSql, dialect);
  return h.ok ? h.value.hardness : undefined;
}

/** All accepted references of a case, the primary first. */
export function referencesOf(c: CorpusCase): string[] {
  return c.referenceSql === undefined ? [] : [c.referenceSql, ...(c.alternativeSql ?? [])];
}

/** The question as the judge and the reader see it: BIRD's evidence stays with it. */
export function questionWithEvidence(c: CorpusCase): string {
  return c.evidence ? `${c.question}\nEvidence: ${c.evidence}` : c.question;
}

/** The run's configuration with the case's own settings over it. */
export function caseConfig(c: CorpusCase, runConfig: EvaluationConfig): EvaluationConfig {
  if (!c.config) return runConfig;
  const resolved = resolveEvaluationConfig({ ...runConfig, ...c.config });
  // The loader validated the override; a failure here can only come from the run's side.
  return resolved.ok ? resolved.value : runConfig;
}

/** The options of {@link evaluateCase}. */
type CaseOptions = Parameters<typeof evaluateCase>[4];

/** The candidate graded against one of the case's references; `index` picks the other engines' ports of it. */
type GradeAgainst = (expectedSql: string, withFrozen: boolean, index?: number) => Promise<StagedEvaluation>;

/** The pipeline's options a case passes on: only those it was given. */
function stageOptionsOf(options: CaseOptions): EvaluateOptions {
  return {
    ...(options.judge ? { judge: options.judge } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.neighbourHost ? { neighbourHost: options.neighbourHost } : {}),
  };
}

/** The reference at `index` on each other engine: its port there, else the graded text. */
function otherEnginesAt(
  otherEngines: CaseOptions['otherEngines'],
  index: number,
): Pick<EvaluateOptions, 'otherEngines'> {
  return otherEngines?.length
    ? {
        otherEngines: otherEngines.map((o) => ({
          engine: o.engine,
          ...(o.references?.[index] !== undefined ? { expectedSql: o.references[index] } : {}),
        })),
      }
    : {};
}

/** The request of one grading; a case with no reference SQL is graded against its frozen result instead. */
function caseRequest(
  c: CorpusCase,
  sql: string,
  expectedSql: string,
  withFrozen: boolean,
  config: EvaluationConfig,
): EvaluationRequest {
  return {
    user_query: questionWithEvidence(c),
    actual_sql: sql,
    expected_sql: expectedSql,
    ...(withFrozen && c.expected && !c.referenceSql ? { expected_result: c.expected } : {}),
    config,
    context: {
      case_id: c.id,
      fixture: c.fixture,
      order_matters: c.orderMatters,
      ...(c.shape ? { shape: c.shape } : {}),
    },
  };
}

function gradeAgainst(
  c: CorpusCase,
  sql: string,
  engine: Engine,
  config: EvaluationConfig,
  options: CaseOptions,
): GradeAgainst {
  const stageOptions = stageOptionsOf(options);
  return (expectedSql, withFrozen, index = 0) =>
    evaluateStaged(caseRequest(c, sql, expectedSql, withFrozen, config), engine, {
      ...stageOptions,
      ...otherEnginesAt(options.otherEngines, index),
    });
}

function referenceMatch(
  references: readonly string[],
  matchedIndex: number | null,
  reportedIndex: number,
  scores: number[],
): ReferenceMatch {
  return {
    references: references.length,
    matched_index: matchedIndex,
    reported_index: reportedIndex,
    reported_sql: references[reportedIndex]!,
    scores,
  };
}

/**
 * Several references, graded in order until one passes. The candidate passes on the first it matches;
 * when none passes, the report is about the closest (the first of the highest overall scores).
 */
async function firstMatchOrClosest(
  references: readonly string[],
  grade: GradeAgainst,
): Promise<Pick<CaseEvaluation, 'staged' | 'reference'>> {
  const scores = references.map(() => -1);
  let best: { index: number; staged: StagedEvaluation } | null = null;
  for (const [index, reference] of references.entries()) {
    const staged = await grade(reference, index === 0, index);
    scores[index] = staged.report.overall_score;
    if (staged.report.deterministic_verdict === 'pass')
      return { staged, reference: referenceMatch(references, index, index, scores) };
    if (!best || staged.report.overall_score > best.staged.report.overall_score) best = { index, staged };
  }
  return { staged: best!.staged, reference: referenceMatch(references, null, best!.index, scores) };
}

export async function evaluateCase(
  c: CorpusCase,
  sql: string,
  engine: Engine,
  runConfig: EvaluationConfig,
  options: {
    judge?: EvaluateOptions['judge'];
    signal?: CancelSignal;
    neighbourHost?: EvaluateOptions['neighbourHost'];
    /** config.cross_engine: the other engines, each with the case's references in its dialect when they are ported. */
    otherEngines?: readonly { engine: Engine; references?: readonly string[] }[];
  },
): Promise<CaseEvaluation> {
  const grade = gradeAgainst(c, sql, engine, caseConfig(c, runConfig), options);
  const references = referencesOf(c);
  const configOverride = c.config ? { ...c.config } : null;
  if (references.length <= 1)
    return { staged: await grade(references[0] ?? '', true), reference: null, configOverride };
  return { ...(await firstMatchOrClosest(references, grade)), configOverride };
}
