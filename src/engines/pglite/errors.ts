/** PostgreSQL failures into the error taxonomy, by SQLSTATE (the message is kept as raw). */
import type { ExecuteOutcome } from '../../core/engine.ts';
import type { ErrorCategory } from '../../core/errors.ts';
import { summarizeEngineMessage } from '../../core/validation/error-taxonomy.ts';

const BY_STATE: Record<string, ErrorCategory> = {
  '42P01': 'missing_table',
  '3F000': 'missing_table', // invalid_schema_name: a qualified table in a schema that is not there
  '42703': 'missing_column',
  '42804': 'type_mismatch',
  '42883': 'type_mismatch',
  '42846': 'type_mismatch',
  '42725': 'type_mismatch',
  '22P02': 'type_mismatch',
  '22007': 'type_mismatch',
  '22008': 'type_mismatch',
  '22003': 'type_mismatch',
  '22012': 'division_by_zero',
  '42803': 'invalid_aggregation',
  '42P20': 'invalid_aggregation',
  '42702': 'ambiguous_reference',
  '42P09': 'ambiguous_reference',
  '42501': 'permission_error',
  '25006': 'permission_error', // read_only_sql_transaction
  '57014': 'timeout',
  '42601': 'syntax_error',
  '42P02': 'syntax_error',
  '0A000': 'engine_unsupported',
  '54000': 'resource_exhausted',
  '54001': 'resource_exhausted',
  '53000': 'resource_exhausted',
  '53100': 'resource_exhausted',
  '53200': 'resource_exhausted',
};

export function categorizeSqlState(state: string | undefined): ErrorCategory {
  return (state && BY_STATE[state]) || 'unknown_error';
}

export function pgExecutionError(state: string | undefined, raw: string, elapsedMs: number): ExecuteOutcome {
  const category = categorizeSqlState(state);
  const code =
    category === 'timeout'
      ? 'sandbox.timeout'
      : category === 'resource_exhausted'
        ? 'sandbox.resource_exhausted'
        : category === 'engine_unsupported'
          ? 'sandbox.engine_unsupported'
          : 'execution.error';
  const withState = state ? `${raw} (SQLSTATE ${state})` : raw;
  return { ok: false, error: { code, category, message: summarizeEngineMessage(raw), raw: withState, elapsedMs } };
}
