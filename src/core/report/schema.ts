/**
 * JSON Schema (draft 2020-12) of the evaluation report, version
 * REPORT_VERSION. Written to docs/report.schema.json by the tests' golden
 * check (UPDATE_GOLDEN=1); every report the tests make is validated against it.
 * Nested evidence objects from the layers are described by their required
 * keys; their full shapes are documented in the layer docs.
 */
import { ENGINE_NAMES } from '../engine.ts';
import { ERROR_CATEGORIES } from '../errors.ts';
import { SOURCE_CLAUSES } from '../diagnose/types.ts';
import { SEVERITIES } from '../score/scoring.ts';
import { OPTIONAL_REPORT_KEYS, REPORT_KEY_ORDER, REPORT_VERSION } from './report.ts';

const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });
const score = { type: 'number', minimum: 0, maximum: 1 };
const count = { type: 'integer', minimum: 0 };
const num = { type: 'number' };
/** A closed object: every field typed, nothing else (so a mistyped nested field does not validate). */
const closed = (properties: Record<string, object>) => ({
  type: 'object',
  required: Object.keys(properties),
  additionalProperties: false,
  properties,
});
const overlap = { jaccard: score, f1: score, precision: score, recall: score };
const RESULT_COMPARISON = {
  type: 'object',
  required: [
    'result_equality_family',
    'reasons',
    'column_alignment',
    'schema_match',
    'row_overlap',
    'cell_overlap',
    'cardinality_match',
    'numeric_tolerance_match',
    'null_handling_match',
  ],
  properties: {
    result_equality_family: { type: 'object' },
    reasons: {
      type: 'array',
      items: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string' }, message: { type: 'string' } },
      },
    },
    column_alignment: { type: 'object' },
    schema_match: { type: 'object', required: ['pass'], properties: { pass: { type: 'boolean' } } },
    row_overlap: closed({
      ...overlap,
      matched_rows: count,
      expected_rows: count,
      actual_rows: count,
      basis: { enum: ['all_columns', 'mapped_columns'] },
    }),
    cell_overlap: closed({
      ...overlap,
      matching_cells: count,
      expected_cells: count,
      actual_cells: count,
      aligned_partial_pairs: count,
      estimated: { type: 'boolean' },
    }),
    cardinality_match: closed({
      pass: { type: 'boolean' },
      expected_rows: count,
      actual_rows: count,
      delta: { type: 'integer' },
      ratio: { type: ['number', 'null'] },
    }),
    numeric_tolerance_match: closed({
      pass: { type: 'boolean' },
      atol: num,
      rtol: num,
      rule: { type: 'string' },
      float_cells_compared: count,
      within_tolerance_not_identical: count,
      outside_tolerance: count,
      exact_cells_compared: count,
      exact_mismatches: count,
      max_abs_delta: { type: ['number', 'null'] },
      max_rel_delta: { type: ['number', 'null'] },
    }),
    null_handling_match: closed({
      pass: { type: 'boolean' },
      null_equality_mode: { type: 'string' },
      expected_nulls: count,
      actual_nulls: count,
      null_mismatches: count,
      columns: {
        type: 'array',
        items: closed({ expected_index: count, actual_index: count, expected_nulls: count, actual_nulls: count }),
      },
    }),
  },
};
const error = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'string' },
    message: { type: 'string' },
    category: { enum: [...ERROR_CATEGORIES] },
    raw: { type: 'string' },
  },
};

const mismatchMap = {
  type: 'array',
  items: {
    type: 'object',
    required: ['column', 'status', 'mismatch_rate', 'severity'],
    properties: {
      column: { type: 'string' },
      status: { enum: ['aligned', 'missing', 'extra'] },
      mismatch_rate: score,
      severity: { enum: ['none', 'low', 'high'] },
    },
  },
} as const;

const tree = {
  type: ['object', 'null'],
  description: 'A query tree of the structural layer (src/core/structure/ir.ts); null when that side did not parse.',
} as const;
const table = nullable({
  type: 'object',
  required: ['columns', 'rows'],
  properties: { columns: { type: 'array' }, rows: { type: 'array', items: { type: 'array' } } },
});
const resultSchema = nullable({
  type: 'array',
  items: {
    type: 'object',
    required: ['name', 'engine_type', 'kind'],
    properties: { name: { type: 'string' }, engine_type: { type: 'string' }, kind: { type: 'string' } },
  },
});

export const REPORT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: `https://sql-verdict.dev/schemas/report-${REPORT_VERSION}.json`,
  title: 'SQL Verdict evaluation report',
  description:
    'One evaluation: the deterministic verdict, its scores, evidence and explanations (the seed’s Suggested Output Contract).',
  type: 'object',
  required: REPORT_KEY_ORDER.filter((key) => !OPTIONAL_REPORT_KEYS.has(key)),
  properties: {
    report_version: { const: REPORT_VERSION },
    id: { type: 'string' },
    deterministic_verdict: { enum: ['pass', 'fail', 'undecided'] },
    ai_advisory_verdict: { enum: ['pass', 'fail', null] },
    verdict_consistency_flag: { type: ['boolean', 'null'] },
    overall_score: score,
    structure_score: nullable(score),
    result_score: nullable(score),
    diagnostic_scores: nullable({
      type: 'object',
      required: [
        'projection_error_score',
        'filter_error_score',
        'join_error_score',
        'grouping_error_score',
        'aggregate_function_error_score',
        'limit_topk_error_score',
        'ordering_error_flag',
        'cardinality_explosion_flag',
        'likely_source_clause',
        'confidence',
        'evidence_strength',
        'ambiguous_case',
        'evidence_count',
      ],
      properties: {
        projection_error_score: score,
        filter_error_score: score,
        join_error_score: score,
        grouping_error_score: score,
        aggregate_function_error_score: score,
        limit_topk_error_score: score,
        ordering_error_flag: { type: 'boolean' },
        cardinality_explosion_flag: { type: 'boolean' },
        likely_source_clause: { enum: [...SOURCE_CLAUSES, null] },
        confidence: score,
        evidence_strength: { enum: ['low', 'medium', 'high', null] },
        ambiguous_case: { type: 'boolean' },
        evidence_count: { type: 'integer', minimum: 0 },
      },
    }),
    performance_scores: nullable({
      type: 'object',
      required: ['execution_time_ratio', 'resource_cost_score', 'plan_complexity_score'],
      properties: {
        execution_time_ratio: { type: ['number', 'null'] },
        resource_cost_score: { type: ['number', 'null'], minimum: 0 },
        resource_cost: {
          type: 'object',
          required: ['resource_cost_score', 'basis', 'actual', 'expected'],
          properties: { basis: { enum: ['operator_rows', 'result_bytes'] } },
        },
        plan_complexity_score: { type: ['number', 'null'] },
      },
    }),
    severity: { enum: [...SEVERITIES] },
    explanations: { type: 'array', items: { type: 'string' } },
    per_column_mismatch_map: {
      ...mismatchMap,
      description: 'Attribute-level mismatch rate and severity per column (seed 001, Layer 4 Diagnostic Attribution).',
    },
    mismatch_map: {
      ...mismatchMap,
      deprecated: true,
      description:
        'Deprecated alias of per_column_mismatch_map (identical content), kept for report version 1.1.x only; read per_column_mismatch_map.',
    },
    error_types: { type: 'array', items: { enum: [...ERROR_CATEGORIES] } },
    blocked_reason: { enum: ['parse_failure', 'execution_failure', 'no_query', 'broken_reference', null] },
    warnings: {
      type: 'array',
      items: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string' }, message: { type: 'string' } },
      },
    },
    validity: {
      type: 'object',
      required: [
        'parse_success_actual',
        'parse_success_expected',
        'parser_unsupported_actual',
        'parser_unsupported_expected',
        'execution_success_actual',
        'execution_success_expected',
        'execution_error_actual',
        'execution_error_expected',
        'execution_time_actual_ms',
        'execution_time_expected_ms',
        'normalized_sql_actual',
        'normalized_sql_expected',
      ],
      properties: {
        parse_success_actual: { type: 'boolean' },
        parse_success_expected: { type: 'boolean' },
        parser_unsupported_actual: { type: 'boolean' },
        parser_unsupported_expected: { type: 'boolean' },
        execution_success_actual: { type: 'boolean' },
        execution_success_expected: { type: 'boolean' },
        execution_error_actual: nullable(error),
        execution_error_expected: nullable(error),
        execution_time_actual_ms: { type: ['number', 'null'] },
        execution_time_expected_ms: { type: ['number', 'null'] },
        normalized_sql_actual: { type: ['string', 'null'] },
        normalized_sql_expected: { type: ['string', 'null'] },
        expected_source: { enum: ['executed', 'frozen'] },
        actual_source: { enum: ['executed', 'frozen', 'none'] },
      },
    },
    evidence: {
      type: 'object',
      required: ['user_query', 'actual_sql', 'expected_sql', 'structure', 'result', 'findings', 'counterfactuals'],
      properties: {
        user_query: { type: 'string' },
        actual_sql: { type: ['string', 'null'] },
        expected_sql: { type: 'string' },
        neighbours: {
          type: 'object',
          required: [
            'requested',
            'generator_version',
            'base_seed',
            'checked',
            'agreed',
            'discarded',
            'budget_ms',
            'budget_exhausted',
            'skipped',
            'counterexample',
          ],
          properties: {
            requested: count,
            generator_version: { type: 'integer' },
            base_seed: { type: 'integer' },
            checked: count,
            agreed: count,
            discarded: { type: 'array', items: { type: 'object', required: ['index', 'seed', 'reason'] } },
            budget_ms: { type: 'integer' },
            budget_exhausted: { type: 'boolean' },
            skipped: { type: ['string', 'null'] },
            counterexample: nullable({
              type: 'object',
              required: [
                'index',
                'seed',
                'changes',
                'reasons',
                'expected_rows',
                'only_expected',
                'only_actual',
                'expected_sample',
              ],
            }),
          },
        },
        cross_engine: {
          type: 'object',
          required: ['engine_dependent', 'dialect_errors', 'engines'],
          properties: {
            engine_dependent: { type: 'boolean' },
            dialect_errors: { type: 'array', items: { enum: [...ENGINE_NAMES] } },
            engines: {
              type: 'array',
              items: {
                type: 'object',
                required: ['engine', 'graded', 'verdict', 'expected_sql', 'dialect_error', 'reasons'],
                properties: {
                  engine: { enum: [...ENGINE_NAMES] },
                  graded: { type: 'boolean' },
                  verdict: { enum: ['pass', 'fail', 'undecided', 'not_comparable', 'dialect_error'] },
                  expected_sql: { type: ['string', 'null'] },
                  dialect_error: nullable({
                    type: 'object',
                    required: ['query', 'category', 'message'],
                    properties: {
                      query: { enum: ['reference', 'candidate'] },
                      category: { type: 'string' },
                      message: { type: 'string' },
                    },
                  }),
                  reasons: { type: 'array' },
                },
              },
            },
          },
        },
        structure: nullable({
          type: 'object',
          required: [
            'parse_success_expected',
            'parse_success_actual',
            'normalized_sql_match',
            'clause_match',
            'clause_weighted_distance',
          ],
        }),
        result: nullable(RESULT_COMPARISON),
        findings: {
          type: 'array',
          items: {
            type: 'object',
            required: [
              'likely_source_clause',
              'score',
              'confidence',
              'evidence_strength',
              'ambiguous_case',
              'explanation',
              'evidence',
            ],
            properties: {
              likely_source_clause: { enum: [...SOURCE_CLAUSES] },
              score,
              confidence: score,
              evidence_strength: { enum: ['low', 'medium', 'high'] },
              ambiguous_case: { type: 'boolean' },
              explanation: { type: 'string' },
              evidence: {
                type: 'object',
                required: [
                  'cardinality_delta',
                  'shared_attribute_overlap',
                  'predicate_diff_summary',
                  'edits',
                  'counterfactual',
                ],
              },
            },
          },
        },
        counterfactuals: {
          type: 'array',
          items: { type: 'object', required: ['clause', 'direction', 'sql', 'executed', 'agrees'] },
        },
      },
    },
    intermediates: {
      type: 'object',
      description:
        'Present only when requested (config.include: ["intermediates"], CLI --include intermediates): seed 001 Validation-layer intermediates. Never changes a verdict.',
      required: [
        'ast_expected',
        'ast_actual',
        'canonical_ast_expected',
        'canonical_ast_actual',
        'expected_result_table',
        'actual_result_table',
        'expected_schema',
        'actual_schema',
      ],
      properties: {
        ast_expected: tree,
        ast_actual: tree,
        canonical_ast_expected: tree,
        canonical_ast_actual: tree,
        expected_result_table: table,
        actual_result_table: table,
        expected_schema: resultSchema,
        actual_schema: resultSchema,
      },
    },
    judge: { type: ['object', 'null'] },
    run_metadata: {
      type: 'object',
      required: [
        'engine',
        'engine_version',
        'dialect',
        'fixture',
        'config_hash',
        'config',
        'timings_ms',
        'tool_version',
      ],
      properties: {
        engine: { enum: [...ENGINE_NAMES] },
        engine_version: { type: 'string' },
        dialect: { enum: ['duckdb', 'sqlite'] },
        fixture: { type: ['string', 'null'] },
        config_hash: { type: 'string' },
        config: { type: 'object' },
        timings_ms: closed({ parse: num, execute: num, compare: num, diagnose: num, judge: num, total: num }),
        tool_version: { type: 'string' },
      },
    },
  },
} as const;
