/**
 * The request model of one evaluation (SPEC 1.4, the seed's Request Model)
 * and its configuration (the seed's Configuration Model), validated from
 * untrusted JSON with errors that name the field.
 */
import { fail, ok, type Outcome } from '../errors.ts';
import { DEFAULT_COMPARISON_CONFIG, resolveComparisonConfig, type ComparisonConfig } from '../result/config.ts';
import { INCLUDE_OPTIONS, type IncludeOption } from '../report/include-options.ts';
import type { CaseShape } from '../result/types.ts';
import { decodeResultTable, type JsonResultTable } from '../value/json-codec.ts';
import type { ResultTable } from '../value/kind.ts';

import { SHAPES } from '../vocabulary.ts';

export { SHAPES };

export interface EvaluationConfig extends ComparisonConfig {
  /** Wall-clock budget per query execution (the seed's query_timeout_ms). */
  query_timeout_ms: number;
  /** Run the optional AI judge (advisory); needs a configured provider. */
  enable_ai_judge: boolean;
  /** Report execution_time_ratio (and a warning when timings are too noisy to compare). */
  enable_performance_metrics: boolean;
  /** Re-run candidate and reference with one clause swapped to confirm a diagnosis. */
  enable_counterfactuals: boolean;
  /** At most this many counterfactual executions per case. */
  max_counterfactuals: number;
  /** A LIMIT at or above this is a safety guard, not a top-k (STEF rule 4), unless it cuts the result. */
  safety_limit_threshold: number;
  /** Rows materialized per query at most. */
  max_rows: number;
  /**
   * Bytes of decoded cells one query's result may hold (see value/size.ts);
   * absent: the engine default, 256 MiB. Only a set value enters config_hash.
   */
  max_result_bytes?: number;
  /**
   * Extra sections for the report: "intermediates" adds seed 001's ASTs,
   * full result tables and result schemas. Absent by default (size); never
   * changes a verdict, so it is left out of config_hash.
   */
  include?: IncludeOption[];
  /**
   * Neighbour databases per case (SPEC 4.1; 0 or absent: off). A case that
   * passes on the fixture and fails on a neighbour is a coincidental match.
   * Needs a scratch engine from the caller (EvaluateOptions.neighbourHost).
   */
  neighbours?: number;
  /** Base seed of the neighbours (default 1): neighbour i's seed is derived from it and i alone. */
  neighbour_seed?: number;
  /** Wall-clock budget for one case's neighbours (default 10000 ms); past it no further neighbour starts. */
  neighbour_budget_ms?: number;
  /** Run both queries on the other engine too and flag a verdict that depends on it (needs EvaluateOptions.otherEngine). */
  cross_engine?: boolean;
}

export const DEFAULT_EVALUATION_CONFIG: Readonly<EvaluationConfig> = Object.freeze({
  ...DEFAULT_COMPARISON_CONFIG,
  query_timeout_ms: 5000,
  enable_ai_judge: false,
  enable_performance_metrics: false,
  enable_counterfactuals: true,
  max_counterfactuals: 8,
  safety_limit_threshold: 1000,
  max_rows: 1_000_000,
});

export interface EvaluationContext {
  /** scalar: exactly one row and one column. */
  shape?: CaseShape;
  /** The case declares that row order is the answer (top-N, sorted lists). */
  order_matters?: boolean;
  /** Schema description and business rules, for the judge and the reader. */
  schema_description?: string;
  business_rules?: string[];
  case_id?: string;
  fixture?: string;
}

export interface EvaluationRequest {
  user_query: string;
  actual_sql: string | null;
  expected_sql: string;
  /** Frozen results: when present they are used instead of (expected) or besides (actual) executing. */
  expected_result?: ResultTable;
  actual_result?: ResultTable;
  config: EvaluationConfig;
  context: EvaluationContext;
}

type Raw = Record<string, unknown>;

const BOOLEAN_KEYS = ['enable_ai_judge', 'enable_performance_metrics', 'enable_counterfactuals'] as const;
const INTEGER_KEYS = [
  'query_timeout_ms',
  'max_counterfactuals',
  'safety_limit_threshold',
  'max_rows',
  'max_result_bytes',
] as const;
const ORACLE_KEYS = ['neighbours', 'neighbour_seed', 'neighbour_budget_ms'] as const;
const EXTRA_KEYS: string[] = [...BOOLEAN_KEYS, ...INTEGER_KEYS, ...ORACLE_KEYS, 'cross_engine', 'include'];

/** Validate a configuration object (seed option names); unknown options are errors. */
export function resolveEvaluationConfig(input: unknown = {}): Outcome<EvaluationConfig> {
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    return fail('input.invalid', 'config must be an object.', { location: 'config' });
  const raw = input as Raw;
  const comparisonInput: Raw = {};
  for (const [key, value] of Object.entries(raw)) if (!EXTRA_KEYS.includes(key)) comparisonInput[key] = value;
  const comparison = resolveComparisonConfig(comparisonInput);
  if (!comparison.ok)
    return fail('input.invalid', comparison.error.message, { location: comparison.error.location ?? 'config' });
  const out: EvaluationConfig = { ...DEFAULT_EVALUATION_CONFIG, ...comparison.value };
  for (const key of BOOLEAN_KEYS) {
    if (raw[key] === undefined) continue;
    if (typeof raw[key] !== 'boolean')
      return fail('input.invalid', `config.${key} must be true or false.`, { location: `config.${key}` });
    out[key] = raw[key] as boolean;
  }
  for (const key of INTEGER_KEYS) {
    if (raw[key] === undefined) continue;
    const v = raw[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || (key !== 'max_counterfactuals' && v === 0))
      return fail(
        'input.invalid',
        `config.${key} must be a ${key === 'max_counterfactuals' ? 'non-negative' : 'positive'} whole number.`,
        { location: `config.${key}` },
      );
    out[key] = v;
  }
  for (const key of ORACLE_KEYS) {
    if (raw[key] === undefined) continue;
    const v = raw[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || (key === 'neighbour_budget_ms' && v === 0))
      return fail(
        'input.invalid',
        `config.${key} must be a ${key === 'neighbour_budget_ms' ? 'positive' : 'non-negative'} whole number.`,
        { location: `config.${key}` },
      );
    out[key] = v;
  }
  if (raw.cross_engine !== undefined) {
    if (typeof raw.cross_engine !== 'boolean')
      return fail('input.invalid', 'config.cross_engine must be true or false.', { location: 'config.cross_engine' });
    out.cross_engine = raw.cross_engine;
  }
  if (raw.include !== undefined) {
    const inc = raw.include;
    if (!Array.isArray(inc) || !inc.every((x) => (INCLUDE_OPTIONS as readonly unknown[]).includes(x)))
      return fail(
        'input.invalid',
        `config.include must be a list of ${INCLUDE_OPTIONS.map((o) => JSON.stringify(o)).join(', ')}.`,
        { location: 'config.include' },
      );
    out.include = [...new Set(inc as IncludeOption[])];
  }
  return ok(out);
}

function stringField(raw: Raw, key: string, required: boolean): Outcome<string | undefined> {
  const v = raw[key];
  if (v === undefined || v === null)
    return required ? fail('input.invalid', `${key} is required.`, { location: key }) : ok(undefined);
  if (typeof v !== 'string') return fail('input.invalid', `${key} must be a string.`, { location: key });
  return ok(v);
}

function resultField(raw: Raw, key: string): Outcome<ResultTable | undefined> {
  if (raw[key] === undefined || raw[key] === null) return ok(undefined);
  try {
    return ok(decodeResultTable(raw[key] as JsonResultTable, key));
  } catch (thrown) {
    return fail('input.invalid', thrown instanceof Error ? thrown.message : String(thrown), { location: key });
  }
}

/** Validate an untrusted request object (e.g. a JSON body, a share link). */
export function parseEvaluationRequest(input: unknown): Outcome<EvaluationRequest> {
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    return fail('input.invalid', 'The request must be a JSON object.');
  const raw = input as Raw;
  const known = ['user_query', 'actual_sql', 'expected_sql', 'actual_result', 'expected_result', 'config', 'context'];
  const unknown = Object.keys(raw).filter((k) => !known.includes(k));
  if (unknown.length)
    return fail('input.invalid', `Unknown field "${unknown[0]}" (known: ${known.join(', ')}).`, {
      location: unknown[0],
    });
  const userQuery = stringField(raw, 'user_query', false);
  if (!userQuery.ok) return userQuery;
  const expectedSql = stringField(raw, 'expected_sql', true);
  if (!expectedSql.ok) return expectedSql;
  if (raw.actual_sql !== null && raw.actual_sql !== undefined && typeof raw.actual_sql !== 'string')
    return fail('input.invalid', 'actual_sql must be a string or null.', { location: 'actual_sql' });
  const config = resolveEvaluationConfig(raw.config ?? {});
  if (!config.ok) return config;
  const expectedResult = resultField(raw, 'expected_result');
  if (!expectedResult.ok) return expectedResult;
  const actualResult = resultField(raw, 'actual_result');
  if (!actualResult.ok) return actualResult;
  const context = parseContext(raw.context);
  if (!context.ok) return context;
  return ok({
    user_query: userQuery.value ?? '',
    actual_sql: (raw.actual_sql as string | null | undefined) ?? null,
    expected_sql: expectedSql.value!,
    ...(expectedResult.value ? { expected_result: expectedResult.value } : {}),
    ...(actualResult.value ? { actual_result: actualResult.value } : {}),
    config: config.value,
    context: context.value,
  });
}

function parseContext(value: unknown): Outcome<EvaluationContext> {
  if (value === undefined || value === null) return ok({});
  if (typeof value !== 'object' || Array.isArray(value))
    return fail('input.invalid', 'context must be an object.', { location: 'context' });
  const raw = value as Raw;
  const out: EvaluationContext = {};
  if (raw.shape !== undefined) {
    if (!(SHAPES as readonly unknown[]).includes(raw.shape))
      return fail('input.invalid', `context.shape must be one of ${SHAPES.join(', ')}.`, { location: 'context.shape' });
    out.shape = raw.shape as CaseShape;
  }
  if (raw.order_matters !== undefined) {
    if (typeof raw.order_matters !== 'boolean')
      return fail('input.invalid', 'context.order_matters must be true or false.', {
        location: 'context.order_matters',
      });
    out.order_matters = raw.order_matters;
  }
  for (const key of ['schema_description', 'case_id', 'fixture'] as const) {
    if (raw[key] === undefined) continue;
    if (typeof raw[key] !== 'string')
      return fail('input.invalid', `context.${key} must be a string.`, { location: `context.${key}` });
    out[key] = raw[key] as string;
  }
  if (raw.business_rules !== undefined) {
    if (!Array.isArray(raw.business_rules) || !raw.business_rules.every((r) => typeof r === 'string'))
      return fail('input.invalid', 'context.business_rules must be a list of strings.', {
        location: 'context.business_rules',
      });
    out.business_rules = raw.business_rules as string[];
  }
  return ok(out);
}

/** A request built in code (CLI flags, a corpus case): defaults filled in. */
export function evaluationRequest(fields: {
  expected_sql: string;
  actual_sql: string | null;
  user_query?: string;
  config?: Partial<EvaluationConfig>;
  context?: EvaluationContext;
  expected_result?: ResultTable;
}): EvaluationRequest {
  return {
    user_query: fields.user_query ?? '',
    expected_sql: fields.expected_sql,
    actual_sql: fields.actual_sql,
    config: { ...DEFAULT_EVALUATION_CONFIG, ...fields.config },
    context: fields.context ?? {},
    ...(fields.expected_result ? { expected_result: fields.expected_result } : {}),
  };
}
