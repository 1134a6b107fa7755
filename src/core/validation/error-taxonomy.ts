/**
 * Map raw engine error messages to the error taxonomy. The raw message is
 * always kept next to the category. Patterns are per engine because DuckDB
 * and SQLite word the same failure differently.
 */
import type { EngineName } from '../engine.ts';
import type { ErrorCategory } from '../errors.ts';

type Rule = [RegExp, ErrorCategory];

/**
 * Memory exhaustion as the wasm runtime and V8 word it, on either engine:
 * emscripten's failed heap growth, a failed allocation, V8's heap limit in the
 * engine's worker. Exact phrases only: a message that merely mentions memory
 * (a column named memory_limit, SQLite's "too many columns") is not one.
 */
const RUNTIME_OUT_OF_MEMORY =
  /^(?:(?:Range|Runtime)?Error: )?(?:Aborted\((?:OOM|Cannot enlarge memory)|Cannot enlarge memory arrays|WebAssembly\.Memory(?:\.prototype)?\.grow\(\): Maximum memory size exceeded|Array buffer allocation failed|std::bad_alloc|Reached heap limit|JavaScript heap out of memory|ERR_WORKER_OUT_OF_MEMORY|malloc(?:\(\))?(?: of (?:size )?\d+(?: bytes)?)? failed)/;

const DUCKDB_RULES: Rule[] = [
  [/Expected a single SELECT statement/i, 'statement_rejected'],
  [
    /exists in the \w+ extension|extension .* (?:not|could not be) (?:loaded|found|installed)|not available in this build/i,
    'engine_unsupported',
  ],
  // DuckDB's exception type ("Out of Memory Error: could not allocate block of size …", "… failed to allocate data of size …").
  [/^Out of Memory Error: /, 'resource_exhausted'],
  [RUNTIME_OUT_OF_MEMORY, 'resource_exhausted'],
  [/Permission Error|enable_external_access|read[- ]only|lock_configuration|Cannot .* read-only/i, 'permission_error'],
  [/Parser Error|syntax error/i, 'syntax_error'],
  [
    /Table with name .* does not exist|Referenced table .* not found|Table .* does not exist|Catalog .* does not exist|Schema with name .* does not exist/i,
    'missing_table',
  ],
  [/Ambiguous reference|ambiguous/i, 'ambiguous_reference'],
  [
    /Referenced column .* not found|does not have a column named|column .* not found|Column with name .* does not exist|Referenced struct field|could not find column/i,
    'missing_column',
  ],
  [
    /GROUP BY clause or must be part of an aggregate|aggregate function calls cannot be nested|cannot contain aggregates|aggregates are not allowed|aggregate function .* (?:in|inside)|GROUP BY clause cannot contain|window functions are not allowed|must appear in the GROUP BY/i,
    'invalid_aggregation',
  ],
  [/division by zero|divide by zero/i, 'division_by_zero'],
  [
    /Conversion Error|Could not convert|Could not choose a best candidate|No function matches|Cannot compare values|Cannot mix values|type mismatch|Mismatch Type|cannot be cast|Unimplemented type for cast|Type .* does not support/i,
    'type_mismatch',
  ],
];

const SQLITE_RULES: Rule[] = [
  // SQLite's own texts (SQLITE_NOMEM, SQLITE_TOOBIG) are the whole message. "too many
  // arguments/columns/terms" are limits of the query text, not memory: no engine restart.
  [/^(?:Error: )?(?:out of memory|string or blob too big)$/i, 'resource_exhausted'],
  [RUNTIME_OUT_OF_MEMORY, 'resource_exhausted'],
  [/wrong number of arguments|too many arguments/i, 'type_mismatch'],
  [/readonly database|read-only|not authorized|query_only|access permission denied/i, 'permission_error'],
  [/syntax error|incomplete input|unrecognized token|near ".*":/i, 'syntax_error'],
  [/no such table|no such view/i, 'missing_table'],
  [/ambiguous column name/i, 'ambiguous_reference'],
  [/no such column|has no column named/i, 'missing_column'],
  [
    /misuse of aggregate|aggregate functions are not allowed|misuse of window function|is not an aggregate|a GROUP BY clause is required/i,
    'invalid_aggregation',
  ],
  [/division by zero|divide by zero/i, 'division_by_zero'],
  [/datatype mismatch|type mismatch|cannot (?:store|convert)/i, 'type_mismatch'],
];

export function categorizeEngineError(engine: EngineName, raw: string): ErrorCategory {
  const rules = engine === 'duckdb' ? DUCKDB_RULES : SQLITE_RULES;
  for (const [pattern, category] of rules) if (pattern.test(raw)) return category;
  return 'unknown_error';
}

/** First line of an engine message, without DuckDB's "LINE 1: …" caret block. */
export function summarizeEngineMessage(raw: string): string {
  const firstBlock = raw.split(/\n\s*\n|\nLINE \d+:/)[0] ?? raw;
  return firstBlock.trim().replace(/\s+/g, ' ');
}
