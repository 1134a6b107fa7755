/**
 * JSON Schemas (draft 2020-12) for the files the gate reads and writes: the
 * baseline, and the gate result the CLI prints with --json.
 */
const count = { type: 'integer', minimum: 0 } as const;
const nullableString = { type: ['string', 'null'] } as const;

import { GATE_CHECKS } from './gate.ts';

export const BASELINE_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://sql-verdict.dev/schema/baseline-1.json',
  title: 'SQL Verdict baseline',
  type: 'object',
  required: [
    'baseline_version',
    'suite',
    'path',
    'model',
    'recorded_at',
    'corpus',
    'case_ids',
    'cases',
    'figures',
    'policy',
    'source',
  ],
  additionalProperties: false,
  properties: {
    baseline_version: { const: 1 },
    suite: { type: 'string', minLength: 1 },
    path: nullableString,
    model: { type: 'string', minLength: 1 },
    recorded_at: { type: 'string', minLength: 1 },
    corpus: {
      type: 'object',
      required: ['name', 'version', 'size', 'sha256'],
      additionalProperties: false,
      properties: {
        name: { type: 'string' },
        version: { type: ['string', 'integer', 'null'] },
        size: count,
        sha256: { type: 'string', minLength: 1 },
      },
    },
    case_ids: { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true },
    cases: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'arm', 'stratum'],
        additionalProperties: false,
        properties: {
          id: { type: 'string' },
          arm: { enum: ['must_refuse', 'must_answer', null] },
          stratum: nullableString,
        },
      },
    },
    figures: {
      type: 'object',
      required: ['answer_accuracy', 'refusal_recall', 'over_refusal', 'reliability'],
      additionalProperties: false,
      properties: {
        answer_accuracy: {
          type: 'object',
          required: ['correct', 'total'],
          additionalProperties: false,
          properties: { correct: count, total: count },
        },
        refusal_recall: {
          type: 'object',
          required: ['declined', 'total'],
          additionalProperties: false,
          properties: { declined: count, total: count },
        },
        over_refusal: {
          type: 'object',
          required: ['declined', 'total'],
          additionalProperties: false,
          properties: { declined: count, total: count },
        },
        reliability: {
          type: 'object',
          required: ['c', 'sum', 'mean'],
          additionalProperties: false,
          properties: {
            c: { type: 'number', minimum: 0 },
            sum: { type: 'number' },
            mean: { type: ['number', 'null'] },
          },
        },
      },
    },
    policy: {
      type: 'object',
      required: [
        'accuracy_tolerance_points',
        'recall_absolute_floor',
        'recall_tolerance',
        'over_refusal_ceiling',
        'digest_mismatch',
      ],
      additionalProperties: false,
      properties: {
        accuracy_tolerance_points: { type: 'number', minimum: 0, maximum: 100 },
        recall_absolute_floor: { type: 'number', minimum: 0, maximum: 1 },
        recall_tolerance: { type: 'number', minimum: 0, maximum: 1 },
        over_refusal_ceiling: {
          type: 'object',
          required: ['count', 'of'],
          additionalProperties: false,
          properties: { count, of: { type: 'integer', minimum: 1 } },
        },
        digest_mismatch: { enum: ['warn', 'block'] },
      },
    },
    source: {
      type: 'object',
      required: ['agent', 'created_at'],
      additionalProperties: false,
      properties: { agent: nullableString, created_at: nullableString },
    },
  },
} as const;

export const GATE_RESULT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://sql-verdict.dev/schema/gate-result-1.json',
  title: 'SQL Verdict gate result',
  type: 'object',
  required: ['status', 'exit_code', 'checks', 'reasons', 'warnings', 'baseline', 'policy'],
  additionalProperties: false,
  properties: {
    status: { enum: ['pass', 'blocked', 'refused'] },
    exit_code: { enum: [0, 1, 2] },
    checks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'passed', 'status', 'arithmetic', 'detail', 'case_ids'],
        additionalProperties: false,
        properties: {
          name: { enum: GATE_CHECKS },
          passed: { type: 'boolean' },
          status: { enum: ['pass', 'blocked', 'refused', 'warning', 'not_applicable'] },
          arithmetic: { type: 'string' },
          detail: { type: 'string' },
          case_ids: { type: 'array', items: { type: 'string' } },
        },
      },
    },
    reasons: { type: 'array', items: { type: 'string' } },
    warnings: { type: 'array', items: { type: 'string' } },
    baseline: {
      oneOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['suite', 'path', 'model', 'recorded_at'],
          additionalProperties: false,
          properties: {
            suite: { type: 'string' },
            path: nullableString,
            model: { type: 'string' },
            recorded_at: { type: 'string' },
          },
        },
      ],
    },
    policy: {
      type: 'object',
      required: ['values', 'file', 'sha256'],
      additionalProperties: false,
      properties: { values: BASELINE_SCHEMA.properties.policy, file: nullableString, sha256: nullableString },
    },
  },
} as const;

/** The boundary sweep `sql-verdict baseline record` writes beside the baseline (`B.sweep.json`). */
export const BOUNDARY_SWEEP_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://sql-verdict.dev/schema/boundary-sweep-1.json',
  title: 'SQL Verdict gate boundary sweep',
  type: 'object',
  required: ['sweep_version', 'kind', 'baseline', 'grid', 'caveats', 'figures'],
  additionalProperties: false,
  properties: {
    sweep_version: { const: 1 },
    kind: { const: 'boundary_sweep' },
    baseline: {
      type: 'object',
      required: ['suite', 'path', 'model', 'recorded_at'],
      additionalProperties: false,
      properties: {
        suite: { type: 'string' },
        path: nullableString,
        model: { type: 'string' },
        recorded_at: { type: 'string' },
      },
    },
    grid: { type: 'array', items: { type: 'string', pattern: '^(0|1|0\\.\\d+)$' } },
    caveats: { type: 'array', items: { type: 'string' }, minItems: 3 },
    figures: {
      type: 'array',
      items: {
        type: 'object',
        required: [
          'figure',
          'arm',
          'miss',
          'n',
          'observed_misses',
          'max_passing_misses',
          'rule',
          'table',
          'projection',
        ],
        additionalProperties: false,
        properties: {
          figure: { enum: ['answer_accuracy', 'refusal_recall', 'over_refusal'] },
          arm: { enum: ['answer_set', 'must_refuse', 'must_answer'] },
          miss: { type: 'string' },
          n: count,
          observed_misses: count,
          max_passing_misses: { type: ['integer', 'null'], minimum: 0 },
          rule: { type: 'string' },
          table: {
            type: 'array',
            items: {
              type: 'object',
              required: ['k', 'decision'],
              additionalProperties: false,
              properties: { k: count, decision: { enum: ['pass', 'blocked'] } },
            },
          },
          projection: {
            type: 'array',
            items: {
              type: 'object',
              required: ['p', 'pass_probability', 'pass_probability_value'],
              additionalProperties: false,
              properties: {
                p: { type: 'string' },
                pass_probability: { type: 'string', pattern: '^[01]\\.\\d{6}$' },
                pass_probability_value: { type: 'number', minimum: 0, maximum: 1 },
              },
            },
          },
        },
      },
    },
  },
} as const;
