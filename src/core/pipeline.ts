/**
 * The evaluation pipeline for one request: the ordered list of stages of the
 * seed's Metric Processing Pipeline. Each stage takes the case record of the
 * stage before and returns a new one (src/core/evaluation/case-record.ts);
 * deterministic first, the judge only annotates.
 *
 *   1. openCase        evaluation/case-record.ts   request, comparison policy, config hash
 *   2. validate        validation/validate.ts      parse once (cached), structure, execute both, validity
 *   3. blockedBy       validation/validate.ts      precedence: no query → parse failure → execution failure
 *   4. compareStage    result/stage.ts             the two results under the policy
 *   4b. neighbourStage neighbours/stage.ts         a pass re-checked on generated neighbour databases (config.neighbours)
 *   4c. oracleStage    oracle/stage.ts             LIMIT-tie flag, nondeterministic candidate, cross-engine agreement
 *   5. tolerate        structure/tolerances.ts     safety LIMIT and default ORDER BY not counted
 *   6. diagnoseStage   diagnose/stage.ts           counterfactual transplants (one batch), attribution
 *   7. performanceStage report/assemble.ts         plans and time ratio (when enabled)
 *   8. assemble        report/assemble.ts          scores, severity, explanations, evidence
 *   9. judgeStage      judge/stage.ts              optional AI judge (advisory, never flips the verdict)
 */
import type { CancelSignal, Engine } from './engine.ts';
import { openCase } from './evaluation/case-record.ts';
import type { EvaluationRequest } from './evaluation/request.ts';
import { judgeStage } from './judge/stage.ts';
import type { JudgeOptions, JudgeProvider } from './judge/index.ts';
import { assemble, assembleBlocked, performanceStage } from './report/assemble.ts';
import type { EvaluationReport } from './report/report.ts';
import { diagnoseStage } from './diagnose/stage.ts';
import { compareStage } from './result/stage.ts';
import type { NeighbourHost } from './neighbours/host.ts';
import { neighbourStage } from './neighbours/stage.ts';
import { blockedCrossEngine, oracleStage, type OtherEngine } from './oracle/stage.ts';
import type { Dialect } from './structure/grammar.ts';
import { tolerate } from './structure/tolerances.ts';
import { blockedBy, validate } from './validation/validate.ts';

export { planComplexity } from './report/assemble.ts';
export { orderKeyIndices } from './result/stage.ts';

export interface EvaluateOptions {
  /** Parser dialect; defaults to the engine's. */
  dialect?: Dialect;
  /** A configured judge provider (used when config.enable_ai_judge). */
  judge?: { provider: JudgeProvider | null; options?: JudgeOptions };
  /** Rows kept in the report's result samples. */
  sampleRows?: number;
  clock?: () => number;
  /** Aborts the judge's request (the deterministic part has its own per-query timeouts). */
  signal?: CancelSignal;
  /** Scratch databases for config.neighbours (SPEC 4.1); without one, neighbours are not generated. */
  neighbourHost?: NeighbourHost;
  /** The other engines with the same fixture loaded, for config.cross_engine (each with its ported reference, if any). */
  otherEngines?: readonly OtherEngine[];
}

/**
 * The deterministic report, and the judge step still to run (null when the
 * judge is off or the case was blocked). A corpus run grades the next case
 * while earlier judge requests are in flight.
 */
export interface StagedEvaluation {
  report: EvaluationReport;
  judge: (() => Promise<EvaluationReport>) | null;
  /** The judge step will send a request (not skipped by threshold, policy or a missing provider). */
  asksJudge: boolean;
}

export async function evaluate(
  request: EvaluationRequest,
  engine: Engine,
  options: EvaluateOptions = {},
): Promise<EvaluationReport> {
  const staged = await evaluateStaged(request, engine, options);
  return staged.judge ? staged.judge() : staged.report;
}

/** `evaluate` in two steps: everything deterministic, then the optional judge. */
export async function evaluateStaged(
  request: EvaluationRequest,
  engine: Engine,
  options: EvaluateOptions = {},
): Promise<StagedEvaluation> {
  const validated = await validate(await openCase(request, engine, options));
  const blocked = blockedBy(validated);
  const oracleOptions = options.otherEngines ? { otherEngines: options.otherEngines } : {};
  if (blocked) {
    const cross = await blockedCrossEngine(validated, blocked, oracleOptions);
    return { report: await assembleBlocked(validated, blocked, cross), judge: null, asksJudge: false };
  }
  const compared = await oracleStage(
    await neighbourStage(compareStage(validated), options.neighbourHost),
    oracleOptions,
  );
  const measured = await performanceStage(await diagnoseStage(tolerate(compared)));
  const report = await assemble(measured);
  if (!request.config.enable_ai_judge || !options.judge) return { report, judge: null, asksJudge: false };
  return { report, ...judgeStage(report, measured, options.judge, options.signal) };
}
