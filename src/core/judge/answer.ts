/**
 * The judge's structured answer: its schema (as data, shown to the model and
 * checked by tests against a JSON Schema validator), the extraction of the
 * JSON object from the model's text, and a small hand-written validator that
 * keeps only the schema's fields (no reasoning trace survives).
 */

export const INTENT_ADEQUACY = ['adequate', 'partially_adequate', 'inadequate'] as const;
export const DATABASE_SCOPED_EQUIVALENCE = ['equivalent', 'not_equivalent', 'inconclusive'] as const;
export const ACCEPTABLE_DEVIATION = ['harmless', 'acceptable', 'critical'] as const;
export const SEVERITY_CLASSIFICATION = [
  'pass',
  'minor issue',
  'moderate issue',
  'major issue',
  'critical failure',
] as const;
export const EVIDENCE_STRENGTH = ['low', 'medium', 'high'] as const;
export const OVERALL_VERDICT = ['PASS', 'PARTIAL', 'FAIL'] as const;

export type IntentAdequacy = (typeof INTENT_ADEQUACY)[number];
export type DatabaseScopedEquivalence = (typeof DATABASE_SCOPED_EQUIVALENCE)[number];
export type AcceptableDeviation = (typeof ACCEPTABLE_DEVIATION)[number];
export type SeverityClassification = (typeof SEVERITY_CLASSIFICATION)[number];
export type EvidenceStrength = (typeof EVIDENCE_STRENGTH)[number];
export type OverallVerdict = (typeof OVERALL_VERDICT)[number];

/** The validated answer, as recorded in the report (seed field names). */
export interface JudgeAnswer {
  intent_adequacy_judgment: IntentAdequacy;
  database_scoped_equivalence_judgment: DatabaseScopedEquivalence;
  acceptable_deviation_judgment: AcceptableDeviation;
  severity_classification: SeverityClassification;
  short_rationale: string;
  evidence_bullets: string[];
  decision_summary: string;
  /** 0–1. */
  confidence: number;
  evidence_strength: EvidenceStrength;
  ambiguous_case: boolean;
  suggested_sql: string | null;
  /** 0–100, integer (the article's semantic correctness score). */
  semantic_score: number;
  missing_elements: string[];
  extra_or_wrong_elements: string[];
  root_cause: string;
  overall_verdict: OverallVerdict;
}

/** Caps applied to the answer's free text (a model may ramble; the report must stay small). */
export const ANSWER_CAPS = { text: 600, bullet: 300, bullets: 12, sql: 8000 } as const;

const stringList = { type: 'array', items: { type: 'string' } } as const;

/** JSON Schema (draft 2020-12 subset) of {@link JudgeAnswer}; extra fields are allowed and dropped. */
export const JUDGE_ANSWER_SCHEMA = {
  type: 'object',
  required: [
    'intent_adequacy_judgment',
    'database_scoped_equivalence_judgment',
    'acceptable_deviation_judgment',
    'severity_classification',
    'short_rationale',
    'evidence_bullets',
    'decision_summary',
    'confidence',
    'evidence_strength',
    'ambiguous_case',
    'suggested_sql',
    'semantic_score',
    'missing_elements',
    'extra_or_wrong_elements',
    'root_cause',
    'overall_verdict',
  ],
  properties: {
    intent_adequacy_judgment: { enum: [...INTENT_ADEQUACY] },
    database_scoped_equivalence_judgment: { enum: [...DATABASE_SCOPED_EQUIVALENCE] },
    acceptable_deviation_judgment: { enum: [...ACCEPTABLE_DEVIATION] },
    severity_classification: { enum: [...SEVERITY_CLASSIFICATION] },
    short_rationale: { type: 'string', minLength: 1 },
    evidence_bullets: stringList,
    decision_summary: { type: 'string', minLength: 1 },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    evidence_strength: { enum: [...EVIDENCE_STRENGTH] },
    ambiguous_case: { type: 'boolean' },
    suggested_sql: { type: ['string', 'null'] },
    semantic_score: { type: 'integer', minimum: 0, maximum: 100 },
    missing_elements: stringList,
    extra_or_wrong_elements: stringList,
    root_cause: { type: 'string' },
    overall_verdict: { enum: [...OVERALL_VERDICT] },
  },
} as const;

export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/**
 * The JSON object in a model's text: the whole text, a ```json fenced block,
 * or the outermost {...}; `<think>` blocks of reasoning models are removed first.
 */
export function extractJson(text: string): Parsed<unknown> {
  const cleaned = text.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
  const candidates: string[] = [cleaned];
  const fenced = /```(?:json|JSON)?[ \t]*\r?\n?([\s\S]*?)```/.exec(cleaned);
  if (fenced?.[1] !== undefined) candidates.push(fenced[1].trim());
  const first = cleaned.indexOf('{');
  const last = cleaned.lastIndexOf('}');
  if (first >= 0 && last > first) candidates.push(cleaned.slice(first, last + 1));
  let lastError = 'the answer is empty';
  for (const candidate of candidates) {
    if (!candidate) continue;
    try {
      return { ok: true, value: JSON.parse(candidate) as unknown };
    } catch (thrown) {
      lastError = thrown instanceof Error ? thrown.message : String(thrown);
    }
  }
  return { ok: false, errors: [`the answer is not valid JSON (${lastError})`] };
}

const labelKey = (text: string) =>
  text
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ');

function capText(text: string, max: number): string {
  const trimmed = text.trim();
  return trimmed.length > max ? `${trimmed.slice(0, max)}…` : trimmed;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/**
 * Readers of the answer's fields. Each records what is wrong with its field
 * in `errors` and returns a stand-in, so one pass reports every problem.
 */
function fieldReaders(source: Record<string, unknown>, errors: string[]) {
  function label<T extends string>(field: string, allowed: readonly T[]): T {
    const raw = source[field];
    const found = typeof raw === 'string' ? allowed.find((option) => labelKey(option) === labelKey(raw)) : undefined;
    if (found === undefined)
      errors.push(
        `${field}: expected one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, got ${describe(raw)}`,
      );
    return found ?? allowed[0]!;
  }
  function text(field: string, options: { required: boolean; max: number }): string {
    const raw = source[field];
    if (typeof raw !== 'string' || (options.required && !raw.trim())) {
      errors.push(`${field}: expected a ${options.required ? 'non-empty ' : ''}string, got ${describe(raw)}`);
      return '';
    }
    return capText(raw, options.max);
  }
  function list(field: string): string[] {
    const raw = source[field];
    if (!Array.isArray(raw) || !raw.every((item) => typeof item === 'string')) {
      errors.push(`${field}: expected an array of strings, got ${describe(raw)}`);
      return [];
    }
    return (raw as string[])
      .map((item) => capText(item, ANSWER_CAPS.bullet))
      .filter(Boolean)
      .slice(0, ANSWER_CAPS.bullets);
  }
  function number(field: string, min: number, max: number, integer: boolean): number {
    const raw = source[field];
    if (typeof raw !== 'number' || !Number.isFinite(raw) || raw < min || raw > max) {
      errors.push(`${field}: expected a number from ${min} to ${max}, got ${describe(raw)}`);
      return min;
    }
    return integer ? Math.round(raw) : raw;
  }
  return { label, text, list, number };
}

/** The suggested fix, trimmed; null when null, blank, or in error (not a string, too long). */
function readSuggestedSql(source: Record<string, unknown>, errors: string[]): string | null {
  // The article's name for the fix is accepted too.
  const sqlField =
    'suggested_sql' in source
      ? 'suggested_sql'
      : 'suggested_improved_sql' in source
        ? 'suggested_improved_sql'
        : 'suggested_sql';
  const sql = source[sqlField];
  if (sql === null) return null;
  if (typeof sql !== 'string') {
    errors.push(`suggested_sql: expected a string or null, got ${describe(sql)}`);
    return null;
  }
  if (sql.length > ANSWER_CAPS.sql) {
    errors.push(`suggested_sql: longer than ${ANSWER_CAPS.sql} characters`);
    return null;
  }
  return sql.trim() || null;
}

/** Check `value` against {@link JUDGE_ANSWER_SCHEMA}; labels are matched ignoring case, `_`, `-` and spaces. */
export function validateJudgeAnswer(value: unknown): Parsed<JudgeAnswer> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, errors: [`the answer must be one JSON object, got ${describe(value)}`] };
  }
  const source = value as Record<string, unknown>;
  const errors: string[] = [];
  const { label, text, list, number } = fieldReaders(source, errors);

  const answer: JudgeAnswer = {
    intent_adequacy_judgment: label('intent_adequacy_judgment', INTENT_ADEQUACY),
    database_scoped_equivalence_judgment: label('database_scoped_equivalence_judgment', DATABASE_SCOPED_EQUIVALENCE),
    acceptable_deviation_judgment: label('acceptable_deviation_judgment', ACCEPTABLE_DEVIATION),
    severity_classification: label('severity_classification', SEVERITY_CLASSIFICATION),
    short_rationale: text('short_rationale', { required: true, max: ANSWER_CAPS.text }),
    evidence_bullets: list('evidence_bullets'),
    decision_summary: text('decision_summary', { required: true, max: ANSWER_CAPS.text }),
    confidence: number('confidence', 0, 1, false),
    evidence_strength: label('evidence_strength', EVIDENCE_STRENGTH),
    ambiguous_case: false,
    suggested_sql: null,
    semantic_score: number('semantic_score', 0, 100, true),
    missing_elements: list('missing_elements'),
    extra_or_wrong_elements: list('extra_or_wrong_elements'),
    root_cause: text('root_cause', { required: false, max: ANSWER_CAPS.text }),
    overall_verdict: label('overall_verdict', OVERALL_VERDICT),
  };

  if (typeof source.ambiguous_case === 'boolean') answer.ambiguous_case = source.ambiguous_case;
  else errors.push(`ambiguous_case: expected true or false, got ${describe(source.ambiguous_case)}`);
  answer.suggested_sql = readSuggestedSql(source, errors);

  return errors.length ? { ok: false, errors } : { ok: true, value: answer };
}

/** Extract and validate in one step. */
export function parseJudgeAnswer(text: string): Parsed<JudgeAnswer> {
  const json = extractJson(text);
  return json.ok ? validateJudgeAnswer(json.value) : json;
}
