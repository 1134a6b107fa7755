/**
 * Grading a whole case somewhere else: a pool of worker threads, each with
 * its own engines, runs `evaluateCase` and sends back what gradeRun needs.
 * gradeRun keeps the run's order, the summary and the outputs; the grader
 * only has to give the same evaluation the calling thread would have.
 */
import type { CorpusCase } from '../corpus/types.ts';
import type { EvaluationConfig } from '../evaluation/request.ts';
import type { EvaluationReport } from '../report/report.ts';
import { caseDifficulty, evaluateCase, type CaseEvaluation } from './case-references.ts';
import type { Engine } from '../engine.ts';

/** What crosses a thread boundary of a graded case (plain data: no judge step). */
export interface GradedCase {
  report: EvaluationReport;
  reference: CaseEvaluation['reference'];
  configOverride: CaseEvaluation['configOverride'];
  difficulty: string | null;
}

export interface CaseGrader {
  /** Cases to keep in flight (they still finish in corpus order). */
  readonly capacity: number;
  /** null: the case could not be evaluated (its fixture is unavailable). */
  grade(c: CorpusCase, sql: string, config: EvaluationConfig, dialect: 'duckdb' | 'sqlite'): Promise<GradedCase | null>;
}

/** The grading worker's side: one case on an engine of this thread. */
export async function gradeCaseOn(
  c: CorpusCase,
  sql: string,
  engine: Engine,
  config: EvaluationConfig,
  dialect: 'duckdb' | 'sqlite',
): Promise<GradedCase> {
  const evaluated = await evaluateCase(c, sql, engine, config, {});
  return {
    report: evaluated.staged.report,
    reference: evaluated.reference,
    configOverride: evaluated.configOverride,
    difficulty: caseDifficulty(c, dialect) ?? null,
  };
}

/** gradeRun's view of a graded case. */
export function asEvaluation(graded: GradedCase): CaseEvaluation {
  return {
    staged: { report: graded.report, judge: null, asksJudge: false },
    reference: graded.reference,
    configOverride: graded.configOverride,
    difficulty: graded.difficulty,
  };
}
