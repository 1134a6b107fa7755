/**
 * Errors are data: plain JSON objects with a stable code from this catalogue,
 * so they cross the worker boundary, the report and the CLI unchanged.
 * Nothing user-supplied makes the core throw across a boundary; operations
 * return an {@link Outcome}.
 */

/** The error taxonomy of the seed (execution errors) plus the sandbox's own. */
export const ERROR_CATEGORIES = [
  'syntax_error',
  'missing_table',
  'missing_column',
  'type_mismatch',
  'division_by_zero',
  'invalid_aggregation',
  'ambiguous_reference',
  'permission_error',
  'timeout',
  'statement_rejected',
  'engine_unsupported',
  'resource_exhausted',
  'unknown_error',
] as const;

export type ErrorCategory = (typeof ERROR_CATEGORIES)[number];

/** Stable error codes, grouped by the part of the product that raises them. */
export const ERROR_CODES = {
  'validation.parse_error': 'The SQL could not be parsed.',
  'validation.parser_unsupported': 'The engine runs this SQL but the structural parser cannot parse it.',
  'validation.empty_sql': 'No SQL text was given (empty, or only comments).',
  'execution.error': 'The engine raised an error while running the query.',
  'sandbox.statement_rejected': 'Only a single read statement may run in the sandbox.',
  'sandbox.timeout': 'The query ran past its time budget and was stopped.',
  'sandbox.resource_exhausted': 'The query exhausted memory or exceeded the result size limit.',
  'sandbox.engine_unsupported': 'The query needs a feature this engine build lacks (e.g. an extension).',
  'sandbox.engine_crashed': 'The engine stopped unexpectedly; it was restarted.',
  'sandbox.digest_changed': 'The fixture content changed during a run.',
  'fixture.unsupported_format': 'The fixture file format is not supported by this engine.',
  'fixture.load_failed': 'The fixture could not be loaded.',
  'fixture.not_loaded': 'No fixture is loaded.',
  'input.invalid': 'An input is malformed.',
  'input.not_found': 'A file or item named in the input does not exist.',
  'run.cancelled': 'The operation was cancelled.',
  'judge.auth': 'The AI judge endpoint refused the credentials (HTTP 401/403).',
  'judge.cors_or_network':
    'The AI judge endpoint could not be reached (network failure, or a CORS refusal in a browser).',
  'judge.timeout': 'The AI judge did not answer within its time budget.',
  'judge.http_error': 'The AI judge endpoint answered with an HTTP error or an unreadable response.',
  'judge.invalid_answer':
    'The AI judge answer was not valid JSON for the judgment schema, even after one repair attempt.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface VerdictError {
  code: ErrorCode;
  /** One or two sentences a user can act on. */
  message: string;
  /** Taxonomy category for execution errors. */
  category?: ErrorCategory;
  /** The engine's raw message, kept verbatim. */
  raw?: string;
  /** For rejected statements: the statement kind (insert, drop, pragma, multiple_statements...). */
  statement_kind?: string;
  /** Where in the input the problem is: a field, a line, a case id. */
  location?: string;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: VerdictError };

export function ok<T>(value: T): Outcome<T> {
  return { ok: true, value };
}

export function fail<T = never>(code: ErrorCode, message: string, extra: Partial<VerdictError> = {}): Outcome<T> {
  return { ok: false, error: { code, message, ...extra } };
}

export function verdictError(code: ErrorCode, message: string, extra: Partial<VerdictError> = {}): VerdictError {
  return { code, message, ...extra };
}

/** Turn anything thrown into a message without trusting its shape. */
export function messageOf(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message;
  if (typeof thrown === 'string') return thrown;
  try {
    return JSON.stringify(thrown) ?? String(thrown);
  } catch {
    return String(thrown);
  }
}
