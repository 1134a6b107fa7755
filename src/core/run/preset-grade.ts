/**
 * Grading under a benchmark's own policy (`--policy spider`, `--policy bird`):
 * after the run is graded by SQL Verdict's policy, every answered case is
 * judged again by the preset (src/core/presets) and the preset's verdict
 * decides the outcome, so answer_accuracy is the benchmark's figure. Each
 * case keeps SQL Verdict's own outcome beside it, and the run says how many
 * cases the two policies decide differently.
 */
import type { CorpusCase, LoadedCorpus } from '../corpus/types.ts';
import type { LoadedRun, RunRecord } from '../corpus/load-run.ts';
import type { Engine } from '../engine.ts';
import { ok, type Outcome } from '../errors.ts';
import type { CaseOutcome } from '../gate/outcome.ts';
import { summarizeRun } from '../gate/summary.ts';
import { birdResultEq, birdSoftF1, cleanAbnormal, rvesReward } from '../presets/bird.ts';
import { spiderPrepare, spiderResultEq } from '../presets/spider.ts';
import { caseConfig, referencesOf } from './case-references.ts';
import { caseResultOf } from './case-outcome.ts';
import type { CaseReport, RunReport } from './run-report.ts';
import { DEFAULT_EVALUATION_CONFIG, type EvaluationConfig } from '../evaluation/request.ts';

import type { PolicyPresetName } from './policy-presets.ts';
import { policyDifference, type BirdMetrics, type PresetCaseVerdict, type PresetRunSummary } from './preset-report.ts';

export { POLICY_PRESETS, type PolicyPresetName } from './policy-presets.ts';
export {
  POLICY_DIFFERENCES,
  policyDifference,
  type BirdFigures,
  type BirdMetrics,
  type PolicyDifference,
  type PresetCaseVerdict,
  type PresetRunSummary,
} from './preset-report.ts';

export interface PolicyPreset {
  name: PolicyPresetName;
  /** spider only: compare with DISTINCT kept (the official `--keep_distinct`). */
  keepDistinct?: boolean;
}

export interface CaseJudgeInput {
  gold: string;
  pred: string;
  engine: Engine;
  timeoutMs: number;
  maxRows: number;
}

/** The preset's verdict on one (gold, prediction) pair, both run on the engine. */
export async function presetJudge(
  preset: PolicyPreset,
  input: CaseJudgeInput,
): Promise<
  Omit<
    PresetCaseVerdict,
    'native_outcome' | 'native_reason_code' | 'native_reason' | 'differs' | 'matched_index' | 'rves'
  >
> {
  const name = preset.name;
  const exec = { timeoutMs: input.timeoutMs, maxRows: input.maxRows };
  const prepared =
    name === 'spider'
      ? spiderPrepare(input.gold, input.pred, { keepDistinct: preset.keepDistinct ?? false })
      : { gold: input.gold, pred: input.pred, orderMatters: false, changes: [] };
  const gold = await input.engine.execute(prepared.gold, exec);
  if (!gold.ok)
    return {
      preset: name,
      verdict: 'fail',
      reason_code: `${name}.gold_failed`,
      reason: `The gold query fails: ${gold.error.message}`,
      changes: prepared.changes,
      ...(name === 'bird' ? { soft_f1: 0 } : {}),
    };
  const pred = await input.engine.execute(prepared.pred, exec);
  const zero = name === 'bird' ? { soft_f1: 0 } : {};
  if (!pred.ok)
    return {
      preset: name,
      verdict: 'fail',
      reason_code: `${name}.prediction_failed`,
      reason: `The prediction fails: ${pred.error.message}`,
      changes: prepared.changes,
      ...zero,
    };
  const match =
    name === 'spider'
      ? spiderResultEq(gold.value, pred.value, prepared.orderMatters)
      : birdResultEq(gold.value, pred.value);
  return {
    preset: name,
    verdict: match.equal ? 'pass' : 'fail',
    reason_code: `${name}.${match.code}`,
    reason: match.message,
    changes: prepared.changes,
    ...(name === 'bird' ? { soft_f1: birdSoftF1(gold.value, pred.value) } : {}),
  };
}

export interface ApplyPresetInput {
  report: RunReport;
  corpus: LoadedCorpus;
  run: LoadedRun;
  engineFor(fixture: string): Promise<Outcome<Engine>>;
  preset: PolicyPreset;
  config?: Partial<EvaluationConfig>;
  reliabilityPenalty?: number;
  /** Before each case is judged again (`done` cases so far, the case's id), and once at the end (`done` = `total`). */
  onProgress?(done: number, total: number, id: string): void;
  /** bird: time each correct prediction and its gold this many times for R-VES (0: no R-VES). */
  vesIterations?: number;
}

/**
 * One gold/prediction time ratio. Both times are floored at 1 µs, the engines' timer resolution: two queries
 * too fast to time ran equally fast (ratio 1), not infinitely slower (a 0 ms gold over a floored prediction
 * gave ratio 0 and reward 0 for a correct case).
 */
export function elapsedRatio(goldMs: number, predMs: number): number {
  return Math.max(goldMs, 1e-3) / Math.max(predMs, 1e-3);
}

/** The mean gold/prediction time ratio over repeated runs, as BIRD's VES measures it (outliers cleaned). */
async function timeRatio(
  gold: string,
  pred: string,
  engine: Engine,
  iterations: number,
  exec: { timeoutMs: number; maxRows: number },
): Promise<number> {
  const ratios: number[] = [];
  // Each iteration times both queries anew (a cached answer would repeat the first time N times).
  const timed = { ...exec, measure: true };
  for (let i = 0; i < iterations; i++) {
    const p = await engine.execute(pred, timed);
    const g = await engine.execute(gold, timed);
    if (!p.ok || !g.ok) return 0;
    ratios.push(elapsedRatio(g.value.elapsedMs, p.value.elapsedMs));
  }
  const kept = cleanAbnormal(ratios);
  return kept.reduce((a, b) => a + b, 0) / kept.length;
}

/** The report with the preset's verdict as each case's outcome, SQL Verdict's kept beside it. */
export async function applyPreset(input: ApplyPresetInput): Promise<Outcome<RunReport>> {
  const { report, corpus: loaded, run } = input;
  const corpus = loaded.corpus;
  const records = new Map(run.records.map((r) => [r.id, r]));
  const { cases, differences } = await rejudgeCases(input, records);
  const summary = summarizeRun(
    cases.map((k, i) => caseResultOf(k, records.get(k.id), corpus.cases[i]?.tags)),
    { name: corpus.name, version: corpus.version, size: corpus.cases.length, sha256: loaded.sha256 },
    report.summary.run,
    { reliabilityPenalty: input.reliabilityPenalty ?? 1 },
  );
  if (!summary.ok) return summary;
  return ok({ ...report, summary: summary.value, cases, policy_preset: presetRunSummary(input, cases, differences) });
}

type PresetJudgement = Awaited<ReturnType<typeof presetJudge>>;

/** A case judged again: its outcome is the preset's, and `policy_preset` says why. */
type PresetCase = CaseReport & { policy_preset: PresetCaseVerdict };

/** What the preset runs for one answered case: the prediction, the case's references, its engine and budget. */
interface PresetPair {
  sql: string;
  references: string[];
  engine: Engine;
  exec: { timeoutMs: number; maxRows: number };
}

/** Every answered case judged again, in corpus order, and the cases the two policies decide differently. */
async function rejudgeCases(
  input: ApplyPresetInput,
  records: ReadonlyMap<string, RunRecord>,
): Promise<{ cases: CaseReport[]; differences: PresetRunSummary['differences'] }> {
  const corpus = input.corpus.corpus;
  const runConfig: EvaluationConfig = { ...DEFAULT_EVALUATION_CONFIG, ...input.config };
  const cases = [...input.report.cases];
  const differences: PresetRunSummary['differences'] = { preset_pass_native_fail: [], preset_fail_native_pass: [] };
  for (const [index, c] of corpus.cases.entries()) {
    input.onProgress?.(index, corpus.cases.length, c.id);
    const judged = await rejudgeCase(input, c, cases[index]!, records.get(c.id)?.sql, runConfig);
    if (!judged) continue;
    if (judged.policy_preset.differs) {
      const side = judged.outcome === 'correct' ? 'preset_pass_native_fail' : 'preset_fail_native_pass';
      differences[side].push(c.id);
    }
    cases[index] = judged;
  }
  input.onProgress?.(corpus.cases.length, corpus.cases.length, '');
  return { cases, differences };
}

/** One graded case judged again by the preset, or null when it has no answer, no SQL or no reference to judge. */
async function rejudgeCase(
  input: ApplyPresetInput,
  c: CorpusCase,
  graded: CaseReport,
  sql: string | null | undefined,
  runConfig: EvaluationConfig,
): Promise<PresetCase | null> {
  // Only answers are judged by the preset; refusals, missing records and must_refuse cases keep their outcome.
  if (graded.outcome !== 'correct' && graded.outcome !== 'wrong') return null;
  const references = referencesOf(c);
  if (!sql || references.length === 0) return null;
  const engine = await input.engineFor(c.fixture);
  if (!engine.ok) {
    const verdict = noDatabaseVerdict(input.preset, engine.error.message, graded);
    return withPresetOutcome(input.preset, graded, verdict, null);
  }
  const config = caseConfig(c, runConfig);
  const exec = { timeoutMs: config.query_timeout_ms, maxRows: config.max_rows };
  const pair: PresetPair = { sql, references, engine: engine.value, exec };
  return withPresetOutcome(input.preset, graded, await referencesVerdict(input, pair, graded), pair);
}

/** SQL Verdict's own verdict, kept beside the preset's (`differs` is settled once the preset's outcome is known). */
function nativeOf(
  graded: CaseReport,
): Pick<PresetCaseVerdict, 'native_outcome' | 'native_reason_code' | 'native_reason' | 'differs'> {
  return {
    native_outcome: graded.outcome,
    native_reason_code: graded.reason_code,
    native_reason: graded.reason,
    differs: false,
  };
}

function noDatabaseVerdict(preset: PolicyPreset, message: string, graded: CaseReport): PresetCaseVerdict {
  return {
    preset: preset.name,
    verdict: 'fail',
    reason_code: `${preset.name}.no_database`,
    reason: message,
    changes: [],
    matched_index: null,
    ...nativeOf(graded),
  };
}

function judgeInput(pair: PresetPair, reference: number): CaseJudgeInput {
  return {
    gold: pair.references[reference]!,
    pred: pair.sql,
    engine: pair.engine,
    timeoutMs: pair.exec.timeoutMs,
    maxRows: pair.exec.maxRows,
  };
}

/** The preset's verdict against the case's references (bird, timed: with R-VES). */
async function referencesVerdict(
  input: ApplyPresetInput,
  pair: PresetPair,
  graded: CaseReport,
): Promise<PresetCaseVerdict> {
  const { judged, matched } = await firstMatch(input.preset, pair);
  const verdict: PresetCaseVerdict = { ...judged, matched_index: matched, ...nativeOf(graded) };
  const iterations = input.vesIterations ?? 0;
  if (input.preset.name === 'bird' && iterations > 0) {
    // Only a pass is timed: BIRD gives a wrong prediction the ratio 0.
    const ratio =
      verdict.verdict === 'pass'
        ? await timeRatio(pair.references[matched ?? 0]!, pair.sql, pair.engine, iterations, pair.exec)
        : 0;
    verdict.rves = { time_ratio: ratio, reward: rvesReward(ratio), iterations };
  }
  return verdict;
}

/** The first reference the prediction passes against, else the first reference's verdict (matched: null). */
async function firstMatch(
  preset: PolicyPreset,
  pair: PresetPair,
): Promise<{ judged: PresetJudgement; matched: number | null }> {
  let first: PresetJudgement | null = null;
  for (let i = 0; i < pair.references.length; i++) {
    const v = await presetJudge(preset, judgeInput(pair, i));
    if (v.verdict === 'pass') return { judged: v, matched: i };
    first ??= v;
  }
  return { judged: first!, matched: null };
}

/** The case with the preset's outcome; where the two policies disagree, the verdict names the difference. */
async function withPresetOutcome(
  preset: PolicyPreset,
  graded: CaseReport,
  verdict: PresetCaseVerdict,
  pair: PresetPair | null,
): Promise<PresetCase> {
  const outcome: CaseOutcome = verdict.verdict === 'pass' ? 'correct' : 'wrong';
  verdict.differs = outcome !== graded.outcome;
  if (verdict.differs) {
    const agrees = pair ? await keepDistinctAgrees(preset, verdict, graded, pair) : undefined;
    verdict.policy_difference = policyDifference(verdict, graded.reason_code, agrees);
  }
  return {
    ...graded,
    outcome,
    reason: outcome === 'correct' ? null : verdict.reason,
    reason_code: outcome === 'correct' ? null : verdict.reason_code,
    policy_preset: verdict,
  };
}

/** Is DISTINCT removal the whole difference? The same pair with DISTINCT kept tells (undefined: not asked). */
async function keepDistinctAgrees(
  preset: PolicyPreset,
  verdict: PresetCaseVerdict,
  graded: CaseReport,
  pair: PresetPair,
): Promise<boolean | undefined> {
  if (preset.name !== 'spider' || preset.keepDistinct || !verdict.changes.includes('DISTINCT removed'))
    return undefined;
  const kept = await presetJudge({ name: 'spider', keepDistinct: true }, judgeInput(pair, verdict.matched_index ?? 0));
  return (kept.verdict === 'pass') === (graded.outcome === 'correct');
}

/** The run's part: the preset, SQL Verdict's own accuracy beside it, the differing cases and their named reasons. */
function presetRunSummary(
  input: ApplyPresetInput,
  cases: CaseReport[],
  differences: PresetRunSummary['differences'],
): PresetRunSummary {
  const { report, preset } = input;
  const policy: PresetRunSummary = {
    preset: preset.name,
    keep_distinct: preset.name === 'spider' ? (preset.keepDistinct ?? false) : false,
    native_answer_accuracy: {
      correct: report.summary.answer_accuracy.correct,
      total: report.summary.answer_accuracy.total,
    },
    differences,
    difference_reasons: differenceReasons(cases),
  };
  if (preset.name === 'bird') policy.bird_metrics = birdMetrics(cases, (input.vesIterations ?? 0) > 0);
  return policy;
}

function differenceReasons(cases: readonly CaseReport[]): PresetRunSummary['difference_reasons'] {
  const reasons: PresetRunSummary['difference_reasons'] = {};
  for (const k of cases) {
    const d = k.policy_preset?.policy_difference;
    if (d) reasons[d] = (reasons[d] ?? 0) + 1;
  }
  return reasons;
}

/**
 * EX, Soft-F1, R-VES and VES as BIRD reports them (×100, over every answerable case; an unjudged
 * case scores 0), overall and per difficulty, from the cases' outcomes and `policy_preset`.
 */
export function birdMetrics(
  cases: Pick<RunReport['cases'][number], 'arm' | 'outcome' | 'difficulty' | 'policy_preset'>[],
  timed: boolean,
): BirdMetrics {
  const scored = cases.filter((k) => k.arm !== 'must_refuse');
  const figures = (list: typeof scored) => {
    const n = list.length || 1;
    const sum = (f: (k: (typeof list)[number]) => number) => (100 * list.reduce((a, k) => a + f(k), 0)) / n;
    return {
      ex: sum((k) => (k.outcome === 'correct' ? 1 : 0)),
      soft_f1: sum((k) => k.policy_preset?.soft_f1 ?? 0),
      r_ves: timed ? sum((k) => Math.sqrt(k.policy_preset?.rves?.reward ?? 0)) : null,
      // BIRD's evaluation_ves.py: a wrong prediction's time ratio is 0 (timeRatio is only measured on a pass).
      ves: timed ? sum((k) => (k.outcome === 'correct' ? Math.sqrt(k.policy_preset?.rves?.time_ratio ?? 0) : 0)) : null,
    };
  };
  const levels = [...new Set(scored.map((k) => k.difficulty ?? 'unrated'))];
  const order = ['simple', 'moderate', 'challenging'];
  levels.sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
  return {
    ...figures(scored),
    by_difficulty: levels.map((difficulty) => {
      const list = scored.filter((k) => (k.difficulty ?? 'unrated') === difficulty);
      return { difficulty, cases: list.length, ...figures(list) };
    }),
  };
}
