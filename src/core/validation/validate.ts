/**
 * Layer 1 as a stage: parse both sides (one cached parse per text, shared by
 * structure, features and hardness), execute both (the engine decides
 * validity), and the validity block; then the failure-state precedence that
 * may block the case.
 */
import type { CaseRecord, ParsedPair, Validated } from '../evaluation/case-record.ts';
import type { ExecuteOutcome } from '../engine.ts';
import type { ErrorCategory } from '../errors.ts';
import type { Validity, Warning } from '../report/report.ts';
import { clauseFeatures } from '../structure/features.ts';
import { parseSql } from '../structure/parse.ts';
import { compareStructure, markParserUnsupported } from '../structure/structure.ts';

const SYNTAX_CATEGORIES: (ErrorCategory | undefined)[] = ['syntax_error'];

function isParseFailure(outcome: ExecuteOutcome): boolean {
  return (
    !outcome.ok && (SYNTAX_CATEGORIES.includes(outcome.error.category) || outcome.error.code === 'validation.empty_sql')
  );
}

function parsePair(record: CaseRecord): ParsedPair {
  const { request, dialect, actualSql } = record;
  const expected = parseSql(request.expected_sql, dialect);
  const actual = actualSql ? parseSql(actualSql, dialect) : null;
  return {
    expected,
    actual,
    expectedFeatures: expected.ok ? clauseFeatures(expected.value.query, dialect) : null,
    actualFeatures: actual?.ok ? clauseFeatures(actual.value.query, dialect) : null,
  };
}

export async function validate(record: CaseRecord): Promise<Validated> {
  const { request, engine, dialect, actualSql, now } = record;
  let t = now();
  // PostgreSQL (PGlite or a server) is parsed with the DuckDB grammar but keeps the case of quoted identifiers.
  const quotedIdentifierCase = engine.name === 'pglite' || engine.name === 'postgres';
  const structure = actualSql
    ? compareStructure(request.expected_sql, actualSql, dialect, { quotedIdentifierCase })
    : null;
  const parsed = parsePair(record);
  const parseMs = now() - t;

  t = now();
  const expectedRun = request.expected_result ? null : await engine.execute(request.expected_sql, record.execOptions);
  const actualRun = request.actual_result || !actualSql ? null : await engine.execute(actualSql, record.execOptions);
  const executeMs = now() - t;

  const tables = {
    expected: request.expected_result ?? (expectedRun?.ok ? expectedRun.value : null),
    actual: request.actual_result ?? (actualRun?.ok ? actualRun.value : null),
  };
  const validity = validityOf(
    record,
    parsed,
    structure,
    { expected: expectedRun, actual: actualRun },
    tables.expected !== null,
    tables.actual !== null,
  );
  const marked = structure
    ? markParserUnsupported(structure, {
        expected: validity.parser_unsupported_expected,
        actual: validity.parser_unsupported_actual,
      })
    : null;
  return {
    ...record,
    timings: { ...record.timings, parse: parseMs, execute: executeMs },
    warnings: [...record.warnings, ...parserWarnings(validity, parsed)],
    parsed,
    structure: marked,
    runs: { expected: expectedRun, actual: actualRun },
    tables,
    validity,
  };
}

function validityOf(
  record: CaseRecord,
  parsed: ParsedPair,
  structure: Validated['structure'],
  runs: Validated['runs'],
  expectedOk: boolean,
  actualOk: boolean,
): Validity {
  const { request, actualSql } = record;
  const { expected: expectedRun, actual: actualRun } = runs;
  const parserOk = { expected: parsed.expected.ok, actual: parsed.actual?.ok ?? false };
  const validity: Validity = {
    parse_success_expected: expectedRun ? !isParseFailure(expectedRun) : parserOk.expected,
    parse_success_actual: actualSql ? (actualRun ? !isParseFailure(actualRun) : parserOk.actual) : false,
    parser_unsupported_expected: false,
    parser_unsupported_actual: false,
    execution_success_expected: expectedOk,
    execution_success_actual: actualOk,
    execution_error_expected: expectedRun && !expectedRun.ok ? expectedRun.error : null,
    execution_error_actual: actualRun && !actualRun.ok ? actualRun.error : null,
    execution_time_expected_ms: expectedRun?.ok ? Math.round(expectedRun.value.elapsedMs * 1000) / 1000 : null,
    execution_time_actual_ms: actualRun?.ok ? Math.round(actualRun.value.elapsedMs * 1000) / 1000 : null,
    normalized_sql_expected: structure?.normalized_sql_expected ?? null,
    normalized_sql_actual: structure?.normalized_sql_actual ?? null,
    expected_source: request.expected_result ? 'frozen' : 'executed',
    actual_source: request.actual_result ? 'frozen' : actualSql ? 'executed' : 'none',
  };
  validity.parser_unsupported_expected = validity.parse_success_expected && !parserOk.expected;
  validity.parser_unsupported_actual = !!actualSql && validity.parse_success_actual && !parserOk.actual;
  return validity;
}

/** The engine runs SQL the structural parser cannot parse: structure is blocked, results are still compared. */
function parserWarnings(validity: Validity, parsed: ParsedPair): Warning[] {
  const warnings: Warning[] = [];
  for (const side of ['expected', 'actual'] as const) {
    if (!validity[`parser_unsupported_${side}`]) continue;
    const outcome = side === 'expected' ? parsed.expected : parsed.actual;
    const failure = outcome && !outcome.ok ? outcome.error : null;
    const construct = failure?.constructs[0];
    warnings.push({
      code: 'parser_unsupported',
      message: `The engine runs the ${side} SQL but the structural parser cannot parse it${construct ? ` (${construct})` : ''}: the structural comparison is blocked for this case; results are still compared.`,
    });
  }
  return warnings;
}

export interface Blocked {
  /** broken_reference: the reference itself does not parse or run: the oracle is broken, the candidate is not graded. */
  reason: 'no_query' | 'parse_failure' | 'execution_failure' | 'broken_reference';
  explanation: string;
}

/** Both queries ran past max_rows: the message names both (a reference that large is not the candidate's fault). */
function maxRowsBoth(validity: Validity): string | null {
  const e = validity.execution_error_expected;
  const a = validity.execution_error_actual;
  if (e?.code !== 'sandbox.resource_exhausted' || a?.code !== 'sandbox.resource_exhausted') return null;
  return `Both queries failed to execute (resource_exhausted): the reference — ${e.message} — and the candidate — ${a.message}. Raise max_rows or narrow the reference; the candidate is not to blame alone.`;
}

/** The failure-state precedence: no query, then a parse failure, then an execution failure (null: not blocked). */
export function blockedBy(v: Validated): Blocked | null {
  const validity = v.validity;
  if (!v.actualSql) return { reason: 'no_query', explanation: 'No query was produced: a graded failure.' };
  if (!validity.parse_success_expected || !validity.execution_success_expected) {
    const error = validity.execution_error_expected;
    const both = maxRowsBoth(validity);
    if (both) return { reason: 'execution_failure', explanation: both };
    return {
      reason: 'broken_reference',
      explanation: `Broken oracle: the reference query ${!validity.parse_success_expected ? 'does not parse' : 'fails to execute'}${error?.category ? ` (${error.category})` : ''}: ${(error?.message ?? 'unknown error').replace(/(?<!\.)\.$/, '')}. The candidate is not graded; the case is excluded from accuracy until the reference is fixed.`,
    };
  }
  if (!validity.parse_success_expected || !validity.parse_success_actual) {
    const side = !validity.parse_success_actual ? 'candidate' : 'reference';
    const error = !validity.parse_success_actual ? validity.execution_error_actual : validity.execution_error_expected;
    return {
      reason: 'parse_failure',
      explanation: `The ${side} SQL does not parse: ${error?.message ?? 'syntax error'}.`,
    };
  }
  if (!validity.execution_success_expected || !validity.execution_success_actual) {
    const side = !validity.execution_success_actual ? 'candidate' : 'reference';
    const error = !validity.execution_success_actual
      ? validity.execution_error_actual
      : validity.execution_error_expected;
    return {
      reason: 'execution_failure',
      explanation: `The ${side} query failed to execute${error?.category ? ` (${error.category})` : ''}: ${asSentence(error?.message ?? 'unknown error')}`,
    };
  }
  return null;
}

/** An engine message as the end of a sentence: one full stop, not two (some messages bring their own). */
function asSentence(message: string): string {
  const trimmed = message.trimEnd();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
