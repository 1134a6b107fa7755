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
import type { ResultTable } from '../value/kind.ts';
import type { ResultCompare } from './compare.ts';
import { zeroTolerancePolicyCompare } from './policy-compare.ts';
import { limitTieProbes, lintReferenceText } from './lint.ts';
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
  const compare = options.compare ?? zeroTolerancePolicyCompare;
  const budget = options.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS;
  const runs = Math.max(2, options.runs ?? 2);
  const findings: SelfCheckFinding[] = [];
  const caseResults: SelfCheckCaseResult[] = [];
  const fixtures: SelfCheckFixture[] = [];
  const report: SelfCheckReport = {
    corpus: corpus.name,
    corpus_version: corpus.version,
    ...('sha256' in input ? { corpus_sha256: input.sha256 } : {}),
    engine: engine.name,
    engine_version: await engine.version(),
    time_budget_ms: budget,
    runs_per_reference: runs,
    cases: corpus.cases.length,
    references_checked: 0,
    passed: false,
    findings,
    case_results: caseResults,
    fixtures,
  };
  const selected = corpus.cases.filter((c) => !options.only || options.only.includes(c.id));
  const total = selected.length;
  let index = 0;
  const progress = (c: CorpusCase, status: SelfCheckCaseResult['status']) =>
    options.onProgress?.({ case_id: c.id, index: index++, total, status });

  if (!sameDialect(corpus.engine, engine.name)) {
    findings.push({
      code: 'engine_mismatch',
      severity: 'error',
      message: `The corpus's reference SQL is written for ${corpus.engine}; the self-check was given ${engine.name}.`,
    });
    report.passed = false;
    return report;
  }

  const byFixture = new Map<string, CorpusCase[]>();
  for (const c of selected) byFixture.set(c.fixture, [...(byFixture.get(c.fixture) ?? []), c]);

  for (const [fixtureName, cases] of byFixture) {
    const withReference = cases.filter((c) => c.referenceSql !== undefined);
    for (const c of cases.filter((x) => x.referenceSql === undefined)) {
      caseResults.push({ case_id: c.id, fixture: fixtureName, status: 'no_reference' });
      progress(c, 'no_reference');
    }
    if (withReference.length === 0) continue;
    const notRun = (reason: SelfCheckFinding) => {
      findings.push(reason);
      for (const c of withReference) {
        caseResults.push({ case_id: c.id, fixture: fixtureName, status: 'not_run' });
        progress(c, 'not_run');
      }
    };
    const resolved = await options.fixtures(fixtureName);
    if (!resolved) {
      notRun({
        code: 'fixture_unavailable',
        severity: 'error',
        fixture: fixtureName,
        message: `Fixture "${fixtureName}" is not known.`,
      });
      continue;
    }
    const loaded = await engine.load(resolved.source);
    if (!loaded.ok) {
      notRun({
        code: 'fixture_unavailable',
        severity: 'error',
        fixture: fixtureName,
        message: `Fixture "${fixtureName}" did not load: ${loaded.error.message}`,
      });
      continue;
    }
    const fixtureRecord: SelfCheckFixture = { name: fixtureName, content_digest: loaded.value.contentDigest };
    if (resolved.source.asOf) fixtureRecord.as_of = resolved.source.asOf;
    fixtures.push(fixtureRecord);
    if (resolved.contentDigest && resolved.contentDigest !== loaded.value.contentDigest)
      findings.push({
        code: 'fixture_digest_mismatch',
        severity: 'error',
        fixture: fixtureName,
        message: `Fixture "${fixtureName}" loaded with content digest ${loaded.value.contentDigest}; the manifest says ${resolved.contentDigest}.`,
      });

    for (const c of withReference) {
      const before = findings.length;
      const result = await checkCase(
        c,
        engine,
        { compare, budget, runs, hasAsOf: resolved.source.asOf !== undefined },
        findings,
      );
      report.references_checked++;
      const failed = findings.slice(before).some((f) => f.severity === 'error');
      const entry: SelfCheckCaseResult = { case_id: c.id, fixture: fixtureName, status: failed ? 'fail' : 'pass' };
      if (result) {
        entry.elapsed_ms = Math.round(result.elapsedMs * 10) / 10;
        entry.rows = result.rows;
      }
      caseResults.push(entry);
      progress(c, entry.status);
    }

    const after = await engine.contentDigest();
    if (after.ok) {
      fixtureRecord.content_digest_after = after.value;
      if (after.value !== loaded.value.contentDigest)
        findings.push({
          code: 'fixture_changed',
          severity: 'error',
          fixture: fixtureName,
          message: `Fixture "${fixtureName}" changed while the references ran (${loaded.value.contentDigest} → ${after.value}).`,
        });
    } else
      findings.push({
        code: 'fixture_changed',
        severity: 'error',
        fixture: fixtureName,
        message: `The content digest of "${fixtureName}" could not be recomputed: ${after.error.message}`,
      });
  }

  report.passed = !findings.some((f) => f.severity === 'error');
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

async function checkCase(
  c: CorpusCase,
  engine: Engine,
  ctx: CaseContext,
  findings: SelfCheckFinding[],
): Promise<{ elapsedMs: number; rows: number } | null> {
  const sql = c.referenceSql!;
  const at = { case_id: c.id, fixture: c.fixture };
  for (const f of lintReferenceText(sql, ctx.hasAsOf))
    findings.push({
      ...at,
      code: f.code,
      severity: 'error',
      message: `${SELF_CHECK_FINDINGS[f.code]} ${f.message} (reference line ${f.line})`,
    });

  const timeoutMs = Math.max(ctx.budget * 5, 10_000);
  const first = await engine.execute(sql, { timeoutMs });
  if (!first.ok) {
    const timedOut = first.error.code === 'sandbox.timeout';
    findings.push({
      ...at,
      code: timedOut ? 'over_time_budget' : 'reference_failed',
      severity: 'error',
      message: timedOut
        ? `The reference did not finish within ${timeoutMs} ms (budget ${ctx.budget} ms).`
        : `The reference does not run: ${first.error.message}`,
      evidence: [
        first.error.code,
        ...(first.error.category ? [first.error.category] : []),
        ...(first.error.raw ? [first.error.raw] : []),
      ],
    });
    return null;
  }
  const actual: ResultTable = { columns: first.value.columns, rows: first.value.rows };
  const elapsedMs = first.value.elapsedMs;
  if (elapsedMs > ctx.budget)
    findings.push({
      ...at,
      code: 'over_time_budget',
      severity: 'error',
      message: `The reference took ${Math.round(elapsedMs)} ms; the budget is ${ctx.budget} ms.`,
    });
  if (actual.rows.length === 0)
    findings.push({ ...at, code: 'empty_result', severity: 'error', message: SELF_CHECK_FINDINGS.empty_result });

  if (c.expected) {
    const mismatch = expectedMismatch(c as OracleCase, actual, ctx.compare);
    if (mismatch) findings.push(mismatch);
  } else
    findings.push({
      ...at,
      code: 'expected_missing',
      severity: 'warning',
      message: SELF_CHECK_FINDINGS.expected_missing,
    });

  const firstKey = tableKey(actual);
  const sorted = (key: string) => key.split('\n').sort().join('\n');
  for (let run = 2; run <= ctx.runs; run++) {
    const again = await engine.execute(sql, { timeoutMs });
    if (!again.ok) {
      findings.push({
        ...at,
        code: 'unstable_result',
        severity: 'error',
        message: `Run ${run} failed where run 1 succeeded: ${again.error.message}`,
      });
      break;
    }
    const key = tableKey(again.value);
    const same = c.orderMatters ? key === firstKey : sorted(key) === sorted(firstKey);
    if (!same) {
      findings.push({
        ...at,
        code: 'unstable_result',
        severity: 'error',
        message: `Run ${run} returned a different result than run 1 (${again.value.rows.length} vs ${actual.rows.length} rows).`,
      });
      break;
    }
  }

  await checkLimit(c, sql, actual, engine, findings);
  return { elapsedMs, rows: actual.rows.length };
}

async function checkLimit(
  c: CorpusCase,
  sql: string,
  actual: ResultTable,
  engine: Engine,
  findings: SelfCheckFinding[],
): Promise<void> {
  const at = { case_id: c.id, fixture: c.fixture };
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
  for (const probeSql of probe.probes) {
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
    if (keyText(0) === keyText(1))
      findings.push({
        ...at,
        code: 'limit_through_tie',
        severity: 'error',
        message: `${SELF_CHECK_FINDINGS.limit_through_tie} Rows ${probe.offset + probe.limit} and ${probe.offset + probe.limit + 1} share the ORDER BY keys [${keyText(0)}]: add a tie-breaker or include every tied row.`,
        evidence: [keyText(0)],
      });
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
