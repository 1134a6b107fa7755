/**
 * The self-check (SPEC 4): before any run is graded, every reference query is
 * executed on its fixture and compared with its frozen expected result under
 * zero tolerance, and the goldens are linted (empty result, clock or
 * randomness, different results on two runs, a LIMIT cutting through a tie or
 * an unordered result, over the time budget). A broken oracle blocks grading.
 * Pure: the engine, the fixtures and the comparison are passed in.
 */
import { sameDialect, type Engine, type EngineName, type FixtureSource } from '../engine.ts';
import { canonicalCell } from '../digest/canonical-dump.ts';
import type { VerdictError } from '../errors.ts';
import type { ResultTable } from '../value/kind.ts';
import type { ResultCompare } from './compare.ts';
import { zeroTolerancePolicyCompare } from './policy-compare.ts';
import { limitTieProbes, lintReferenceText, tieGroupWindow } from './lint.ts';
import type { Corpus, CorpusCase, LoadedCorpus } from './types.ts';

export const SELF_CHECK_FINDINGS = {
  engine_mismatch: 'The corpus is written for another engine than the one given.',
  fixture_unavailable: 'The fixture a case names could not be found or loaded.',
  fixture_digest_mismatch: 'The loaded fixture is not the one the manifest describes (content digest).',
  fixture_changed: 'The fixture content changed while the references ran.',
  reference_failed: 'The reference query does not run.',
  expected_mismatch: 'The reference no longer returns its frozen expected result.',
  expected_missing: 'The case has no frozen expected result to check against.',
  empty_result: 'The reference returns no rows: an empty golden cannot tell right from wrong.',
  clock_dependent: 'The reference reads a clock that is not frozen for its fixture.',
  nondeterministic: 'The reference uses randomness or sampling.',
  unstable_result: 'The reference returned different results on two runs.',
  limit_through_tie: 'The LIMIT cuts through rows whose ORDER BY keys tie: which rows are kept is arbitrary.',
  limit_without_order: 'The LIMIT keeps some rows of an unordered result: which rows is arbitrary.',
  tie_check_unavailable: 'Whether the LIMIT cuts through a tie could not be checked.',
  over_time_budget: 'The reference ran past the time budget.',
} as const;

export type SelfCheckFindingCode = keyof typeof SELF_CHECK_FINDINGS;

export interface SelfCheckFinding {
  code: SelfCheckFindingCode;
  severity: 'error' | 'warning';
  case_id?: string;
  fixture?: string;
  message: string;
  /** Reason codes with evidence, probe rows, engine messages. */
  evidence?: string[];
}

export interface SelfCheckCaseResult {
  case_id: string;
  fixture: string;
  status: 'pass' | 'fail' | 'not_run' | 'no_reference';
  elapsed_ms?: number;
  rows?: number;
}

export interface SelfCheckFixture {
  name: string;
  as_of?: string;
  content_digest?: string;
  content_digest_after?: string;
}

export interface SelfCheckReport {
  corpus: string;
  corpus_version: number;
  corpus_sha256?: string;
  engine: EngineName;
  engine_version: string;
  time_budget_ms: number;
  runs_per_reference: number;
  cases: number;
  references_checked: number;
  /** True when no finding is an error. Built-in corpora must pass with no finding at all. */
  passed: boolean;
  findings: SelfCheckFinding[];
  case_results: SelfCheckCaseResult[];
  fixtures: SelfCheckFixture[];
}

/** A fixture by name, with the content digest it must have when loaded (when known). */
export interface ResolvedFixture {
  source: FixtureSource;
  contentDigest?: string;
}

export type FixtureResolver = (name: string) => Promise<ResolvedFixture | null> | ResolvedFixture | null;

export interface SelfCheckOptions {
  fixtures: FixtureResolver;
  /** How a fresh result is compared with the frozen one; default: the comparison policy at zero tolerance ({@link zeroTolerancePolicyCompare}). */
  compare?: ResultCompare;
  /** A reference slower than this is a finding. Default 2000 ms. */
  timeBudgetMs?: number;
  /** Executions per reference for the stability check (≥ 2). Default 2. */
  runs?: number;
  /** Check only these case ids. */
  only?: readonly string[];
  onProgress?: (event: {
    case_id: string;
    index: number;
    total: number;
    status: SelfCheckCaseResult['status'];
  }) => void;
}

export const DEFAULT_TIME_BUDGET_MS = 2000;

function tableKey(table: ResultTable): string {
  return table.rows.map((row) => row.map((cell, i) => canonicalCell(table.columns[i]!, cell)).join('\t')).join('\n');
}

/** The settings every reference of one self-check runs under. */
type SelfCheckSettings = Omit<CaseContext, 'hasAsOf'>;

/** What one self-check carries from fixture to fixture. */
interface SelfCheckRun {
  engine: Engine;
  options: SelfCheckOptions;
  settings: SelfCheckSettings;
  report: SelfCheckReport;
  /** Tells the caller a case's status, numbered in the order the statuses are decided. */
  progress: (c: CorpusCase, status: SelfCheckCaseResult['status']) => void;
}

function selfCheckSettings(options: SelfCheckOptions): SelfCheckSettings {
  return {
    compare: options.compare ?? zeroTolerancePolicyCompare,
    budget: options.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS,
    // The stability check needs a second run at least.
    runs: Math.max(2, options.runs ?? 2),
  };
}

/** The report before any reference ran: not passed, no finding. */
async function emptyReport(
  input: Corpus | LoadedCorpus,
  corpus: Corpus,
  engine: Engine,
  settings: SelfCheckSettings,
): Promise<SelfCheckReport> {
  return {
    corpus: corpus.name,
    corpus_version: corpus.version,
    ...('sha256' in input ? { corpus_sha256: input.sha256 } : {}),
    engine: engine.name,
    engine_version: await engine.version(),
    time_budget_ms: settings.budget,
    runs_per_reference: settings.runs,
    cases: corpus.cases.length,
    references_checked: 0,
    passed: false,
    findings: [],
    case_results: [],
    fixtures: [],
  };
}

function progressReporter(options: SelfCheckOptions, total: number): SelfCheckRun['progress'] {
  let index = 0;
  return (c, status) => options.onProgress?.({ case_id: c.id, index: index++, total, status });
}

/** The selected cases by fixture, each fixture loaded once, in the order they first appear. */
function casesByFixture(cases: readonly CorpusCase[]): Map<string, CorpusCase[]> {
  const byFixture = new Map<string, CorpusCase[]>();
  for (const c of cases) byFixture.set(c.fixture, [...(byFixture.get(c.fixture) ?? []), c]);
  return byFixture;
}

function recordCase(run: SelfCheckRun, c: CorpusCase, result: SelfCheckCaseResult): void {
  run.report.case_results.push(result);
  run.progress(c, result.status);
}

/** The fixture as resolved and loaded, or the finding that says why its references cannot run. */
async function openFixture(
  run: SelfCheckRun,
  fixtureName: string,
): Promise<{ resolved: ResolvedFixture; loadedDigest: string } | { unavailable: SelfCheckFinding }> {
  const unavailable = (message: string) => ({
    unavailable: { code: 'fixture_unavailable', severity: 'error', fixture: fixtureName, message } as const,
  });
  const resolved = await run.options.fixtures(fixtureName);
  if (!resolved) return unavailable(`Fixture "${fixtureName}" is not known.`);
  const loaded = await run.engine.load(resolved.source);
  if (!loaded.ok) return unavailable(`Fixture "${fixtureName}" did not load: ${loaded.error.message}`);
  return { resolved, loadedDigest: loaded.value.contentDigest };
}

/** The fixture's entry in the report, with a finding when it is not the one the manifest describes. */
function recordFixture(
  report: SelfCheckReport,
  fixtureName: string,
  resolved: ResolvedFixture,
  loadedDigest: string,
): SelfCheckFixture {
  const record: SelfCheckFixture = { name: fixtureName, content_digest: loadedDigest };
  if (resolved.source.asOf) record.as_of = resolved.source.asOf;
  report.fixtures.push(record);
  if (resolved.contentDigest && resolved.contentDigest !== loadedDigest)
    report.findings.push({
      code: 'fixture_digest_mismatch',
      severity: 'error',
      fixture: fixtureName,
      message: `Fixture "${fixtureName}" loaded with content digest ${loadedDigest}; the manifest says ${resolved.contentDigest}.`,
    });
  return record;
}

/** One reference checked and its result recorded: failed when the check added an error. */
async function checkReference(run: SelfCheckRun, c: CorpusCase, fixtureName: string, hasAsOf: boolean): Promise<void> {
  const { findings } = run.report;
  const before = findings.length;
  const result = await checkCase(c, run.engine, { ...run.settings, hasAsOf }, findings);
  run.report.references_checked++;
  const failed = findings.slice(before).some((f) => f.severity === 'error');
  const entry: SelfCheckCaseResult = { case_id: c.id, fixture: fixtureName, status: failed ? 'fail' : 'pass' };
  if (result) {
    entry.elapsed_ms = Math.round(result.elapsedMs * 10) / 10;
    entry.rows = result.rows;
  }
  recordCase(run, c, entry);
}

/** The references must leave their fixture as it was loaded: its content digest is recomputed after them. */
async function checkFixtureUnchanged(run: SelfCheckRun, record: SelfCheckFixture, loadedDigest: string): Promise<void> {
  const after = await run.engine.contentDigest();
  if (!after.ok) {
    run.report.findings.push({
      code: 'fixture_changed',
      severity: 'error',
      fixture: record.name,
      message: `The content digest of "${record.name}" could not be recomputed: ${after.error.message}`,
    });
    return;
  }
  record.content_digest_after = after.value;
  if (after.value !== loadedDigest)
    run.report.findings.push({
      code: 'fixture_changed',
      severity: 'error',
      fixture: record.name,
      message: `Fixture "${record.name}" changed while the references ran (${loadedDigest} → ${after.value}).`,
    });
}

/** The cases of one fixture: those without a reference recorded, the others run on the fixture loaded once. */
async function checkFixture(run: SelfCheckRun, fixtureName: string, cases: CorpusCase[]): Promise<void> {
  const withReference = cases.filter((c) => c.referenceSql !== undefined);
  for (const c of cases.filter((x) => x.referenceSql === undefined))
    recordCase(run, c, { case_id: c.id, fixture: fixtureName, status: 'no_reference' });
  if (withReference.length === 0) return;
  const opened = await openFixture(run, fixtureName);
  if ('unavailable' in opened) {
    run.report.findings.push(opened.unavailable);
    for (const c of withReference) recordCase(run, c, { case_id: c.id, fixture: fixtureName, status: 'not_run' });
    return;
  }
  const { resolved, loadedDigest } = opened;
  const record = recordFixture(run.report, fixtureName, resolved, loadedDigest);
  const hasAsOf = resolved.source.asOf !== undefined;
  for (const c of withReference) await checkReference(run, c, fixtureName, hasAsOf);
  await checkFixtureUnchanged(run, record, loadedDigest);
}

/**
 * Run the self-check of one corpus on one engine. Never throws for a bad
 * golden: every problem is a finding with the case id.
 */
export async function runSelfCheck(
  input: Corpus | LoadedCorpus,
  engine: Engine,
  options: SelfCheckOptions,
): Promise<SelfCheckReport> {
  const corpus = 'corpus' in input ? input.corpus : input;
  const settings = selfCheckSettings(options);
  const report = await emptyReport(input, corpus, engine, settings);
  if (!sameDialect(corpus.engine, engine.name)) {
    report.findings.push({
      code: 'engine_mismatch',
      severity: 'error',
      message: `The corpus's reference SQL is written for ${corpus.engine}; the self-check was given ${engine.name}.`,
    });
    return report;
  }
  const selected = corpus.cases.filter((c) => !options.only || options.only.includes(c.id));
  const run: SelfCheckRun = { engine, options, settings, report, progress: progressReporter(options, selected.length) };
  for (const [fixtureName, cases] of casesByFixture(selected)) await checkFixture(run, fixtureName, cases);
  report.passed = !report.findings.some((f) => f.severity === 'error');
  return report;
}

/** A case whose reference the oracle check runs: it has both a reference and a frozen result. */
export type OracleCase = CorpusCase & { referenceSql: string; expected: NonNullable<CorpusCase['expected']> };

export const hasOracle = (c: CorpusCase): c is OracleCase => !!(c.referenceSql && c.expected);

/**
 * The oracle check of one reference (SPEC 4): its fresh result against its frozen one, under the comparison
 * policy at zero tolerance. The one definition `selfcheck` (with the golden lint around it) and `run` (before
 * each case, blocking the grading) both use. Null when the reference reproduces its result.
 */
export function expectedMismatch(
  c: OracleCase,
  actual: ResultTable,
  compare: ResultCompare = zeroTolerancePolicyCompare,
): SelfCheckFinding | null {
  const verdict = compare(c.expected, actual, { orderMatters: c.orderMatters, ...(c.shape ? { shape: c.shape } : {}) });
  if (verdict.equal) return null;
  return {
    case_id: c.id,
    fixture: c.fixture,
    code: 'expected_mismatch',
    severity: 'error',
    message: SELF_CHECK_FINDINGS.expected_mismatch,
    evidence: verdict.reasons,
  };
}

interface CaseContext {
  compare: ResultCompare;
  budget: number;
  runs: number;
  hasAsOf: boolean;
}

/** What a case's finding starts with: where it is. */
const findingAt = (c: CorpusCase) => ({ case_id: c.id, fixture: c.fixture });

/** The golden lint that reads the reference's text: a clock that is not frozen, randomness. */
function lintReference(c: CorpusCase, sql: string, hasAsOf: boolean, findings: SelfCheckFinding[]): void {
  for (const f of lintReferenceText(sql, hasAsOf))
    findings.push({
      ...findingAt(c),
      code: f.code,
      severity: 'error',
      message: `${SELF_CHECK_FINDINGS[f.code]} ${f.message} (reference line ${f.line})`,
    });
}

/** A first run that did not finish in time is over the budget; any other failure is a broken reference. */
function firstRunFailure(c: CorpusCase, error: VerdictError, timeoutMs: number, budget: number): SelfCheckFinding {
  const timedOut = error.code === 'sandbox.timeout';
  return {
    ...findingAt(c),
    code: timedOut ? 'over_time_budget' : 'reference_failed',
    severity: 'error',
    message: timedOut
      ? `The reference did not finish within ${timeoutMs} ms (budget ${budget} ms).`
      : `The reference does not run: ${error.message}`,
    evidence: [error.code, ...(error.category ? [error.category] : []), ...(error.raw ? [error.raw] : [])],
  };
}

/** The first run's result as a golden: within the time budget, and not empty. */
function checkFirstRun(
  c: CorpusCase,
  actual: ResultTable,
  elapsedMs: number,
  budget: number,
  findings: SelfCheckFinding[],
): void {
  if (elapsedMs > budget)
    findings.push({
      ...findingAt(c),
      code: 'over_time_budget',
      severity: 'error',
      message: `The reference took ${Math.round(elapsedMs)} ms; the budget is ${budget} ms.`,
    });
  if (actual.rows.length === 0)
    findings.push({
      ...findingAt(c),
      code: 'empty_result',
      severity: 'error',
      message: SELF_CHECK_FINDINGS.empty_result,
    });
}

/** The oracle check proper: the fresh result against the frozen one (a warning when there is none). */
function checkExpected(c: CorpusCase, actual: ResultTable, compare: ResultCompare, findings: SelfCheckFinding[]): void {
  if (c.expected) {
    const mismatch = expectedMismatch(c as OracleCase, actual, compare);
    if (mismatch) findings.push(mismatch);
  } else
    findings.push({
      ...findingAt(c),
      code: 'expected_missing',
      severity: 'warning',
      message: SELF_CHECK_FINDINGS.expected_missing,
    });
}

/** Runs 2..runs must return the first run's result (as a bag unless order matters); the first difference is the finding. */
async function checkStable(
  c: CorpusCase,
  sql: string,
  actual: ResultTable,
  engine: Engine,
  repeat: { runs: number; timeoutMs: number },
  findings: SelfCheckFinding[],
): Promise<void> {
  const firstKey = tableKey(actual);
  const sorted = (key: string) => key.split('\n').sort().join('\n');
  for (let run = 2; run <= repeat.runs; run++) {
    const again = await engine.execute(sql, { timeoutMs: repeat.timeoutMs });
    if (!again.ok) {
      findings.push({
        ...findingAt(c),
        code: 'unstable_result',
        severity: 'error',
        message: `Run ${run} failed where run 1 succeeded: ${again.error.message}`,
      });
      return;
    }
    const key = tableKey(again.value);
    const same = c.orderMatters ? key === firstKey : sorted(key) === sorted(firstKey);
    if (!same) {
      findings.push({
        ...findingAt(c),
        code: 'unstable_result',
        severity: 'error',
        message: `Run ${run} returned a different result than run 1 (${again.value.rows.length} vs ${actual.rows.length} rows).`,
      });
      return;
    }
  }
}

async function checkCase(
  c: CorpusCase,
  engine: Engine,
  ctx: CaseContext,
  findings: SelfCheckFinding[],
): Promise<{ elapsedMs: number; rows: number } | null> {
  const sql = c.referenceSql!;
  lintReference(c, sql, ctx.hasAsOf, findings);
  // Past the budget is a finding with the time taken; only a reference far past it is cut off.
  const timeoutMs = Math.max(ctx.budget * 5, 10_000);
  const first = await engine.execute(sql, { timeoutMs });
  if (!first.ok) {
    findings.push(firstRunFailure(c, first.error, timeoutMs, ctx.budget));
    return null;
  }
  const actual: ResultTable = { columns: first.value.columns, rows: first.value.rows };
  checkFirstRun(c, actual, first.value.elapsedMs, ctx.budget, findings);
  checkExpected(c, actual, ctx.compare, findings);
  await checkStable(c, sql, actual, engine, { runs: ctx.runs, timeoutMs }, findings);
  await checkLimit(c, sql, actual, engine, findings);
  return { elapsedMs: first.value.elapsedMs, rows: actual.rows.length };
}

async function checkLimit(
  c: CorpusCase,
  sql: string,
  actual: ResultTable,
  engine: Engine,
  findings: SelfCheckFinding[],
): Promise<void> {
  const at = findingAt(c);
  const probe = limitTieProbes(
    sql,
    actual.columns.map((col) => col.name),
  );
  if (probe.kind === 'none') return;
  if (probe.kind === 'unreadable') {
    findings.push({
      ...at,
      code: 'tie_check_unavailable',
      severity: 'warning',
      message: `${SELF_CHECK_FINDINGS.tie_check_unavailable} ${probe.reason}.`,
    });
    return;
  }
  if (probe.kind === 'unordered_limit') {
    const counted = await engine.execute(probe.countSql);
    if (!counted.ok) {
      findings.push({
        ...at,
        code: 'tie_check_unavailable',
        severity: 'warning',
        message: `${SELF_CHECK_FINDINGS.tie_check_unavailable} ${counted.error.message}`,
      });
      return;
    }
    const available = Number(counted.value.rows[0]?.[0] ?? 0);
    if (available > probe.offset + probe.limit)
      findings.push({
        ...at,
        code: 'limit_without_order',
        severity: 'error',
        message: `${SELF_CHECK_FINDINGS.limit_without_order} LIMIT ${probe.limit} keeps ${probe.limit} of ${available} rows.`,
      });
    return;
  }
  const errors: string[] = [];
  for (const [index, probeSql] of probe.probes.entries()) {
    const out = await engine.execute(probeSql);
    if (!out.ok) {
      errors.push(out.error.raw ?? out.error.message);
      continue;
    }
    if (out.value.rows.length < 2) return;
    const cols = out.value.columns;
    const keyText = (row: number) =>
      out.value.rows[row]!.slice(cols.length - probe.keyCount)
        .map((cell, i) => canonicalCell(cols[cols.length - probe.keyCount + i]!, cell))
        .join('\t');
    if (keyText(0) === keyText(1)) {
      // Tied keys whose rows are all the same output row: any choice gives the same answer.
      const group = tieGroupWindow(probe, index);
      const around = await engine.execute(group.sql);
      if (around.ok && group.identical(around.value)) return;
      findings.push({
        ...at,
        code: 'limit_through_tie',
        severity: 'error',
        message: `${SELF_CHECK_FINDINGS.limit_through_tie} Rows ${probe.offset + probe.limit} and ${probe.offset + probe.limit + 1} share the ORDER BY keys [${keyText(0)}]: add a tie-breaker or include every tied row.`,
        evidence: [keyText(0)],
      });
    }
    return;
  }
  findings.push({
    ...at,
    code: 'tie_check_unavailable',
    severity: 'warning',
    message: SELF_CHECK_FINDINGS.tie_check_unavailable,
    evidence: errors,
  });
}

/** Human-readable summary of a self-check report. */
export function formatSelfCheck(report: SelfCheckReport): string {
  const lines = [
    `Self-check of ${report.corpus} v${report.corpus_version}${report.corpus_sha256 ? ` (sha256 ${report.corpus_sha256})` : ''} on ${report.engine_version}`,
    `${report.references_checked} reference(s) run ${report.runs_per_reference}× each, time budget ${report.time_budget_ms} ms, ${report.cases} case(s)`,
  ];
  for (const f of report.fixtures)
    lines.push(
      `fixture ${f.name}${f.as_of ? ` as of ${f.as_of}` : ''}: content ${f.content_digest}${f.content_digest_after === f.content_digest ? ' (unchanged)' : ` → ${f.content_digest_after ?? '?'}`}`,
    );
  if (report.findings.length === 0) lines.push('No findings: the oracle is sound.');
  for (const f of report.findings)
    lines.push(
      `${f.severity === 'error' ? '✗' : '!'} ${f.code}${f.case_id ? ` ${f.case_id}` : f.fixture ? ` ${f.fixture}` : ''}: ${f.message}${f.evidence?.length ? `\n    ${f.evidence.join('\n    ')}` : ''}`,
    );
  lines.push(
    report.passed
      ? report.findings.length
        ? 'PASSED with warnings'
        : 'PASSED'
      : 'FAILED: grading is blocked until the oracle is fixed',
  );
  return lines.join('\n');
}
