/** Corpus grading, the refusal metric on both arms, baselines, the release gate, run vs run, exports. */
export { CASE_OUTCOMES, DIFFICULTIES, classifyOutcome, isSuccess, outcomeFitsArm } from './outcome.ts';
export type { Arm, CaseOutcome, CaseResult, ClassifyInput, Difficulty } from './outcome.ts';
export { summarizeRun, DEFAULT_REASONS, SUMMARY_VERSION } from './summary.ts';
export type * from './summary.ts';
export { DEFAULT_GATE_POLICY, EXIT_CODES } from './policy.ts';
export type { GatePolicy } from './policy.ts';
export { BASELINE_VERSION, parseBaseline, recordBaseline } from './baseline.ts';
export type { Baseline, BaselineFigures, RecordBaselineOptions } from './baseline.ts';
export { GATE_CHECKS, allowedCases, applyGate, requiredCases } from './gate.ts';
export type { CheckStatus, GateCheck, GateCheckName, GateResult, GateStatus } from './gate.ts';
export { diffRuns } from './diff.ts';
export type { CaseChange, CaseDiff, RunDiff } from './diff.ts';
export { mcnemarExact } from './mcnemar.ts';
export type { McNemarResult } from './mcnemar.ts';
export { toMarkdown } from './export/markdown.ts';
export type { MarkdownOptions } from './export/markdown.ts';
export { toJUnit } from './export/junit.ts';
export { CSV_COLUMNS, csvCell, toCsv } from './export/csv.ts';
