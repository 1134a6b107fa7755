/**
 * The pure core as a library (`import … from 'sql-verdict/core'`): no DOM, no Node built-ins, no
 * engine. Bring an Engine (src/core/engine.ts) — or use the package root, which adds Node engines.
 */
export { evaluate, evaluateStaged, type EvaluateOptions } from './pipeline.ts';
export {
  evaluationRequest,
  parseEvaluationRequest,
  resolveEvaluationConfig,
  type EvaluationConfig,
  type EvaluationContext,
  type EvaluationRequest,
} from './evaluation/request.ts';
export { REPORT_VERSION, TOOL_VERSION, type EvaluationReport } from './report/report.ts';
export { REPORT_SCHEMA } from './report/schema.ts';
export { gradeRun, RUN_REPORT_VERSION, type GradeRunInput, type RunReport, type CaseReport } from './run/grade-run.ts';
export type * from './engine.ts';
export { detectFixtureFormat, enginesForFormat } from './engine.ts';
export type { VerdictError, Outcome } from './errors.ts';
export * as corpus from './corpus/index.ts';
export * as gate from './gate/index.ts';
export * as stef from './stef/index.ts';
export * as structure from './structure/index.ts';
