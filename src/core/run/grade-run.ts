/**
 * Grade a run against a corpus: the oracle self-check first (a broken oracle
 * blocks grading), then every case through the pipeline (or the refusal
 * rules), the fixtures' content digests checked before and after, and the run
 * summary (accuracy, both refusal arms, the 2×2, RS(c), strata, pyramid).
 * A write, a runaway query or a crash in one case never stops the run.
 */
import type { Corpus, CorpusCase, LoadedCorpus } from '../corpus/types.ts';
import type { LoadedRun, RunRecord } from '../corpus/load-run.ts';
import type { CancelSignal, Engine } from '../engine.ts';
import { fail, ok, type Outcome } from '../errors.ts';
import { DEFAULT_EVALUATION_CONFIG, type EvaluationConfig } from '../evaluation/request.ts';
import { classifyOutcome, type CaseResult } from '../gate/outcome.ts';
import { summarizeRun, type RunSummary } from '../gate/summary.ts';
import { evaluate, type EvaluateOptions } from '../pipeline.ts';
import { TOOL_VERSION, type EvaluationReport } from '../report/report.ts';
import { compareResults } from '../result/compare.ts';
import { hardness } from '../structure/hardness.ts';

export const RUN_REPORT_VERSION = '1.0.0';

export type GradeStep = 'selfcheck' | 'parse' | 'execute' | 'compare' | 'diagnose' | 'done';

export interface GradeProgress {
  index: number;
  total: number;
  id: string;
  step: GradeStep;
}

export interface SelfCheckFinding {
  id: string;
  problem: string;
}

export interface GradeRunInput {
  corpus: LoadedCorpus;
  run: LoadedRun;
  /** The engine for a fixture name, with the fixture loaded. */
  engineFor(fixture: string): Promise<Outcome<Engine>>;
  config?: Partial<EvaluationConfig>;
  /** RS(c) penalty. */
  reliabilityPenalty?: number;
  onProgress?(event: GradeProgress): void;
  onCase?(result: CaseReport): void;
  signal?: CancelSignal;
  /** Skip the oracle self-check (never in a release gate). */
  skipSelfCheck?: boolean;
  /** The optional AI judge (advisory), used when config.enable_ai_judge. */
  judge?: EvaluateOptions['judge'];
}

export interface CaseReport {
  id: string;
  outcome: CaseResult['outcome'];
  reason: string | null;
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
}

export interface RunReport {
  report_version: string;
  kind: 'run';
  corpus: { name: string; version: number; file: string; sha256: string; size: number; engine: string };
  run: { file: string; sha256: string; agent: string | null; model: string | null; path: string | null; created_at: string | null };
  self_check: { passed: boolean; checked: number; findings: SelfCheckFinding[] };
  fixtures: { name: string; content_digest_before: string; content_digest_after: string; unchanged: boolean }[];
  summary: RunSummary;
  cases: CaseReport[];
  run_metadata: { tool_version: string; started_at: string; elapsed_ms: number; config: Partial<EvaluationConfig> };
}

function caseDifficulty(c: CorpusCase, dialect: 'duckdb' | 'sqlite'): CaseResult['difficulty'] {
  if (c.difficulty) return c.difficulty;
  if (!c.referenceSql) return undefined;
  const h = hardness(c.referenceSql, dialect);
  return h.ok ? h.value.hardness : undefined;
}

/** Execute every reference and compare with its frozen result, zero tolerance. */
export async function selfCheck(corpus: Corpus, engineFor: GradeRunInput['engineFor'], onProgress?: (id: string) => void): Promise<{ checked: number; findings: SelfCheckFinding[] }> {
  const findings: SelfCheckFinding[] = [];
  let checked = 0;
  for (const c of corpus.cases) {
    if (!c.referenceSql || !c.expected) continue;
    onProgress?.(c.id);
    checked++;
    const engine = await engineFor(c.fixture);
    if (!engine.ok) {
      findings.push({ id: c.id, problem: `fixture ${c.fixture}: ${engine.error.message}` });
      continue;
    }
    const run = await engine.value.execute(c.referenceSql);
    if (!run.ok) {
      findings.push({ id: c.id, problem: `the reference fails: ${run.error.message}` });
      continue;
    }
    const comparison = compareResults(c.expected, run.value, { comparison_mode: c.orderMatters ? 'order-sensitive' : 'order-insensitive', numeric_abs_tolerance: 0, numeric_rel_tolerance: 0 }, c.shape ? { shape: c.shape } : {});
    if (!comparison.result_equality_family.mode_pass)
      findings.push({ id: c.id, problem: `the reference no longer returns its frozen result: ${comparison.reasons[0]?.message ?? 'results differ'}` });
  }
  return { checked, findings };
}

export async function gradeRun(input: GradeRunInput): Promise<Outcome<RunReport>> {
  const started = Date.now();
  const { corpus: loaded, run } = input;
  const corpus = loaded.corpus;
  const config: EvaluationConfig = { ...DEFAULT_EVALUATION_CONFIG, ...input.config };
  const total = corpus.cases.length;

  // Fixture digests before anything runs.
  const fixtureNames = [...new Set(corpus.cases.map((c) => c.fixture))];
  const before = new Map<string, string>();
  for (const name of fixtureNames) {
    const engine = await input.engineFor(name);
    if (!engine.ok) return fail(engine.error.code, `Fixture ${name}: ${engine.error.message}`, { location: name });
    const digest = await engine.value.contentDigest();
    if (!digest.ok) return fail('sandbox.digest_changed', `Fixture ${name}: cannot compute its content digest (${digest.error.message}).`);
    before.set(name, digest.value);
  }

  const check = input.skipSelfCheck ? { checked: 0, findings: [] } : await selfCheck(corpus, input.engineFor, (id) => input.onProgress?.({ index: 0, total, id, step: 'selfcheck' }));
  if (check.findings.length)
    return fail('input.invalid', `The oracle self-check failed, grading refused: ${check.findings.map((f) => `${f.id} (${f.problem})`).join('; ')}`, {
      location: check.findings.map((f) => f.id).join(', '),
    });

  const records = new Map<string, RunRecord>(run.records.map((r) => [r.id, r]));
  const results: CaseResult[] = [];
  const cases: CaseReport[] = [];
  for (const [index, c] of corpus.cases.entries()) {
    if (input.signal?.aborted) return fail('run.cancelled', `The run was cancelled after ${index} of ${total} cases.`);
    input.onProgress?.({ index, total, id: c.id, step: 'parse' });
    const record = records.get(c.id);
    const sql = record?.sql ?? null;
    const declined = record?.declined ?? false;
    let report: EvaluationReport | null = null;
    const hasReference = !!(c.referenceSql || c.expected);
    const answered = !declined && sql !== null && sql.trim() !== '';
    if (answered && hasReference && c.arm !== 'must_refuse') {
      const engine = await input.engineFor(c.fixture);
      if (engine.ok) {
        input.onProgress?.({ index, total, id: c.id, step: 'execute' });
        report = await evaluate(
          {
            user_query: c.question,
            actual_sql: sql,
            expected_sql: c.referenceSql ?? '',
            ...(c.expected && !c.referenceSql ? { expected_result: c.expected } : {}),
            config,
            context: { case_id: c.id, fixture: c.fixture, order_matters: c.orderMatters, ...(c.shape ? { shape: c.shape } : {}) },
          },
          engine.value,
          input.judge ? { judge: input.judge } : {},
        );
      }
    }
    const classified = classifyOutcome({ hasReference, ...(c.arm ? { arm: c.arm } : {}), declined, sql, deterministicPass: report?.deterministic_verdict === 'pass' });
    if (!classified.ok) return fail('input.invalid', `Case ${c.id}: ${classified.error.message}`, { location: c.id });
    const outcome = classified.value;
    const reason = reasonFor(outcome, record, report);
    const result: CaseResult = {
      id: c.id,
      outcome,
      ...(reason ? { reason: reason.text, reason_code: reason.code } : {}),
      query: sql,
      ...(c.arm ? { arm: c.arm } : {}),
      ...(c.stratum ? { stratum: c.stratum } : {}),
      ...(c.shape ? { shape: c.shape } : {}),
      ...(caseDifficulty(c, corpus.engine) ? { difficulty: caseDifficulty(c, corpus.engine)! } : {}),
      fixture: c.fixture,
      ...(report ? { severity: report.severity } : {}),
      ...(record?.declineReason ? { decline_reason: record.declineReason } : {}),
    };
    results.push(result);
    const caseReport: CaseReport = {
      id: c.id,
      outcome,
      reason: reason?.text ?? null,
      query: sql,
      arm: c.arm ?? null,
      stratum: c.stratum ?? null,
      shape: c.shape ?? null,
      difficulty: result.difficulty ?? null,
      fixture: c.fixture,
      question: c.question,
      enriched_question: record?.enrichedQuestion ?? null,
      report,
    };
    cases.push(caseReport);
    input.onCase?.(caseReport);
    input.onProgress?.({ index, total, id: c.id, step: 'done' });
  }

  const fixtures = [];
  for (const name of fixtureNames) {
    const engine = await input.engineFor(name);
    const after = engine.ok ? await engine.value.contentDigest() : null;
    const digest = after?.ok ? after.value : 'unavailable';
    fixtures.push({ name, content_digest_before: before.get(name)!, content_digest_after: digest, unchanged: digest === before.get(name) });
  }
  const changed = fixtures.filter((f) => !f.unchanged);
  if (changed.length) return fail('sandbox.digest_changed', `The content of fixture ${changed.map((f) => f.name).join(', ')} changed during the run: results are not trustworthy.`);

  const summary = summarizeRun(
    results,
    { name: corpus.name, version: corpus.version, size: total, sha256: loaded.sha256 },
    { agent: run.metadata.agent ?? null, model: run.metadata.model ?? null, path: run.metadata.path ?? null, created_at: run.metadata.createdAt ?? null },
    { reliabilityPenalty: input.reliabilityPenalty ?? 1 },
  );
  if (!summary.ok) return summary;
  return ok({
    report_version: RUN_REPORT_VERSION,
    kind: 'run',
    corpus: { name: corpus.name, version: corpus.version, file: loaded.file, sha256: loaded.sha256, size: total, engine: corpus.engine },
    run: {
      file: run.file,
      sha256: run.sha256,
      agent: run.metadata.agent ?? null,
      model: run.metadata.model ?? null,
      path: run.metadata.path ?? null,
      created_at: run.metadata.createdAt ?? null,
    },
    self_check: { passed: true, checked: check.checked, findings: [] },
    fixtures,
    summary: summary.value,
    cases,
    run_metadata: { tool_version: TOOL_VERSION, started_at: new Date(started).toISOString(), elapsed_ms: Date.now() - started, config: input.config ?? {} },
  });
}

function reasonFor(outcome: CaseResult['outcome'], record: RunRecord | undefined, report: EvaluationReport | null): { code: string; text: string } | null {
  switch (outcome) {
    case 'correct':
    case 'correct_refusal':
      return null;
    case 'no_query':
      return record ? { code: 'run.no_query', text: 'The system produced no query (sql is null and it did not decline).' } : { code: 'run.no_record', text: 'The run has no record for this case.' };
    case 'missed_refusal':
      return { code: 'refusal.missed', text: 'The system answered a question it must refuse (a fabricated answer).' };
    case 'over_refusal':
      return { code: 'refusal.over', text: `The system declined an answerable question${record?.declineReason ? `: "${record.declineReason}"` : ''}.` };
    case 'declined_unarmed':
      return { code: 'refusal.declined_answerable', text: `The system declined an answerable golden question${record?.declineReason ? `: "${record.declineReason}"` : ''} (scored as a failure, recorded distinctly).` };
    case 'wrong': {
      if (!report) return { code: 'result.not_evaluated', text: 'The answer could not be evaluated.' };
      const code = report.blocked_reason ? `validation.${report.blocked_reason}` : `result.${report.evidence.result?.reasons[0]?.code ?? 'mismatch'}`;
      return { code, text: report.explanations[0] ?? 'The result does not match the reference.' };
    }
  }
  return null;
}

