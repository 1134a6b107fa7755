/** Shared construction of execution failures for both engines. */
import type { EngineName, ExecuteOutcome } from '../core/engine.ts';
import {
  READ_KINDS,
  describeKind,
  lexStatements,
  precheckStatement,
  statementKind,
} from '../core/sandbox/statements.ts';
import { categorizeEngineError, summarizeEngineMessage } from '../core/validation/error-taxonomy.ts';
import { formatBytes } from '../core/value/size.ts';

/** The lexical pre-check: a precise rejection before the engine sees the text, or null. */
export function rejectedByPrecheck(sql: string): ExecuteOutcome | null {
  const verdict = precheckStatement(sql);
  if (verdict.allowed) return null;
  if (verdict.kind === 'empty')
    return {
      ok: false,
      error: { code: 'validation.empty_sql', category: 'syntax_error', message: verdict.reason, elapsedMs: 0 },
    };
  return {
    ok: false,
    error: {
      code: 'sandbox.statement_rejected',
      category: 'statement_rejected',
      statement_kind: verdict.kind,
      message: verdict.reason,
      elapsedMs: 0,
    },
  };
}

/** Texts the lexer takes for reads, or cannot name: calling them the refused kind ("SELECT is not allowed") would be wrong. */
const isReadKind = (kind: string) => kind === 'unknown' || READ_KINDS.has(kind);

/** The engine's gate refused the text: name the statement kind as best the lexer can. */
export function rejectedStatement(sql: string, raw: string, elapsedMs: number): ExecuteOutcome {
  const statements = lexStatements(sql).filter((s) => !s.empty);
  const kind = statements.length > 1 ? 'multiple_statements' : statements[0] ? statementKind(statements[0]) : 'empty';
  return {
    ok: false,
    error: {
      code: 'sandbox.statement_rejected',
      category: 'statement_rejected',
      statement_kind: kind,
      message:
        kind === 'pivot'
          ? "A PIVOT without an IN list is not a single read in DuckDB (it first creates a type from the column's distinct values): name the values, e.g. PIVOT t ON col IN ('a', 'b') USING sum(x)."
          : isReadKind(kind)
            ? `Only a single read query runs in the sandbox, and the engine's parser did not accept this text as one (${raw.split('\n')[0]!.slice(0, 160)}).`
            : `${describeKind(kind)} is not allowed: only a single read query runs in the sandbox.`,
      raw,
      elapsedMs,
    },
  };
}

export function executionError(engine: EngineName, raw: string, elapsedMs: number): ExecuteOutcome {
  const category = categorizeEngineError(engine, raw);
  const code =
    category === 'resource_exhausted'
      ? 'sandbox.resource_exhausted'
      : category === 'engine_unsupported'
        ? 'sandbox.engine_unsupported'
        : category === 'statement_rejected'
          ? 'sandbox.statement_rejected'
          : 'execution.error';
  const summary = summarizeEngineMessage(raw);
  const message =
    category === 'engine_unsupported'
      ? `This engine build lacks a feature the query needs (an extension such as json or icu is not available offline): ${summary}${clockHint(raw)}`
      : summary;
  return { ok: false, error: { code, category, message, raw, elapsedMs } };
}

/** Clock functions DuckDB-WASM has only as the frozen clock of a fixture's as_of (the real ones live in icu). */
const CLOCK_FUNCTION =
  /"(current_date|today|now|current_timestamp|get_current_timestamp|transaction_timestamp|localtimestamp|current_time|localtime)"/i;

/**
 * A query reading the clock on a fixture without as_of was told only that icu is missing: the way out is to freeze
 * the clock, which a user-supplied fixture does not do by itself.
 */
function clockHint(raw: string): string {
  const name = CLOCK_FUNCTION.exec(raw)?.[1];
  return name
    ? ` ${name} reads the clock, which the sandbox provides only frozen at the fixture's as_of instant, and this fixture has none (the built-in fixtures have one; query, compare, run and selfcheck take --as-of).`
    : '';
}

/** The result outgrew the byte budget: stopped while streaming, the engine keeps running. */
export function tooManyBytes(budget: number, rowsRead: number, elapsedMs: number): ExecuteOutcome {
  return {
    ok: false,
    error: {
      code: 'sandbox.resource_exhausted',
      category: 'resource_exhausted',
      message: `The result is larger than ${formatBytes(budget)} (max_result_bytes, the memory budget for one query's decoded rows); it was stopped after ${rowsRead.toLocaleString('en-US')} rows.`,
      elapsedMs,
    },
  };
}

/** The result has more rows than the row cap. */
export function tooManyRows(maxRows: number, elapsedMs: number): ExecuteOutcome {
  return {
    ok: false,
    error: {
      code: 'sandbox.resource_exhausted',
      category: 'resource_exhausted',
      message: `The result has more than ${maxRows.toLocaleString('en-US')} rows, the limit for one query.`,
      elapsedMs,
    },
  };
}
