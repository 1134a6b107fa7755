/** Recorded wire answers of both protocols, and a case input like the pipeline's. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JudgeInput } from '../../src/core/judge/prompt.ts';
import type { ProviderConfig, ProviderKind } from '../../src/core/judge/provider.ts';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'recorded');
const load = (name: string): unknown => JSON.parse(readFileSync(path.join(dir, name), 'utf8'));

export const ANSWER_MISSING_FILTER = load('answer-missing-filter.json') as Record<string, unknown>;
export const ANSWER_DISAGREES_PASS = load('answer-disagrees-pass.json') as Record<string, unknown>;

function envelope(name: string, text: string): unknown {
  return JSON.parse(JSON.stringify(load(name)).replace('"__ANSWER__"', JSON.stringify(text)));
}

export interface Protocol {
  kind: ProviderKind;
  path: string;
  wire(text: string): unknown;
  recordedModel: string;
  usage: { input: number; output: number };
  config(url: string, extra?: Partial<ProviderConfig>): ProviderConfig;
  /** The conversation the client sent (system excluded). */
  messages(body: Record<string, unknown>): Array<{ role: string; content: string }>;
}

export const PROTOCOLS: Protocol[] = [
  {
    kind: 'openai',
    path: '/v1/chat/completions',
    wire: (text) => envelope('openai-chat-completion.json', text),
    recordedModel: 'llama3.1:8b-instruct-q4_K_M',
    usage: { input: 1234, output: 321 },
    config: (url, extra) => ({ kind: 'openai', baseUrl: `${url}/v1`, model: 'llama3.1', ...extra }),
    messages: (body) => (body.messages as Array<{ role: string; content: string }>).filter((m) => m.role !== 'system'),
  },
  {
    kind: 'anthropic',
    path: '/v1/messages',
    wire: (text) => envelope('anthropic-message.json', text),
    recordedModel: 'claude-3-5-haiku-20241022',
    usage: { input: 2000, output: 400 },
    config: (url, extra) => ({
      kind: 'anthropic',
      baseUrl: url,
      model: 'claude-3-5-haiku-latest',
      apiKey: 'test-key-123',
      ...extra,
    }),
    messages: (body) => body.messages as Array<{ role: string; content: string }>,
  },
];

export function caseInput(
  overrides: Partial<JudgeInput> & { score?: number; verdict?: 'pass' | 'fail' } = {},
): JudgeInput {
  const { score = 0.41, verdict = 'fail', ...rest } = overrides;
  return {
    caseId: 'revenue-2025-shipped',
    question: 'What was total revenue from shipped orders in 2025?',
    expectedSql:
      "SELECT SUM(amount) AS total_revenue FROM orders WHERE status = 'shipped' AND order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01'",
    actualSql:
      "SELECT SUM(amount) AS total_revenue FROM orders WHERE order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01'",
    dialect: 'duckdb',
    evidence: {
      deterministic_verdict: verdict,
      deterministic_score: score,
      severity: 'major issue',
      comparison_mode: 'order-insensitive',
      reason_codes: [
        'value_mismatch(column=total_revenue, expected=1520.00, actual=1873.50, delta=353.50, tolerance=exact)',
      ],
      witnesses: ['expected [1520.00] vs actual [1873.50]'],
      clause_diffs: ["WHERE: removed status = 'shipped'"],
      row_count_expected: 1,
      row_count_actual: 1,
    },
    expectedSample: { columns: ['total_revenue'], rows: [['1520.00']], totalRows: 1 },
    actualSample: { columns: ['total_revenue'], rows: [['1873.50']], totalRows: 1 },
    context: {
      schemaDescription:
        'orders(order_id INTEGER key, status VARCHAR: placed|shipped|cancelled, amount DECIMAL(12,2), order_date DATE)',
      businessRules: ['Revenue counts shipped orders only.'],
    },
    ...rest,
  };
}
