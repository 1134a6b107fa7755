/** Plain-data types of the schema-agnostic mode (STEF, seed 000): inputs, specifications, report. */

/** A benign filter: an SQL predicate the application adds on its own (tenant, soft delete...). */
export interface BenignFilter {
  /** Column name (unqualified, case-insensitive). */
  column: string;
  /** Operator it must use (=, IS, IN, ...); any when absent. */
  operator?: string;
  /** Why it is benign, shown in the evidence. */
  reason?: string;
}

/** A business metric: "revenue" → SUM(amount). */
export interface MetricRule {
  func: string;
  column?: string;
}

/** A value term: "cancelled" → status = 'cancelled'. */
export interface ValueTerm {
  column: string;
  value: string;
  operator?: string;
}

/** R_app: application rules, JSON (schema: docs/r_app.schema.json). Every field is optional. */
export interface AppRules {
  /** Business term → column ("region" → "region_name"). */
  columns?: Record<string, string>;
  /** Synonym → canonical term ("client" → "customer"). */
  synonyms?: Record<string, string>;
  /** Business term → {column, value} for words that are filter values ("cancelled", "premium"). */
  values?: Record<string, ValueTerm>;
  /** Business metric → aggregate ("revenue" → SUM(amount)). */
  metrics?: Record<string, MetricRule>;
  /** Filters the application adds that are not the user's constraints. */
  benign_filters?: BenignFilter[];
  /** A LIMIT at or above this is a safety guard, not a top-k (default 1000). */
  safety_limit_threshold?: number;
  /** Default ordering the application applies when the user asks for none. */
  default_order?: { column?: string; direction?: 'ASC' | 'DESC' };
  /** Reference date (YYYY-MM-DD) for relative time windows ("last quarter"). */
  reference_date?: string;
  /** Vocabulary language (only "en" ships). */
  language?: string;
}

export type Comparator = '=' | '<>' | '>' | '>=' | '<' | '<=' | 'IS NULL' | 'IS NOT NULL' | 'LIKE';

/** A half-open date interval [start, end); null bounds are open. */
export interface DateWindow {
  start: string | null;
  end: string | null;
}

/** One constraint the question asks for. */
export interface QuestionFilter {
  kind: 'value' | 'comparison' | 'null' | 'time';
  /** The words that produced it. */
  phrase: string;
  /** The business term it constrains ("region"), when named. */
  term: string | null;
  /** The column, when R_app maps the term (or the term itself, snake_cased). */
  column: string | null;
  operator: Comparator;
  /** Normalized values (lower case, trimmed, unquoted; numbers as plain digits). */
  values: string[];
  /** Time windows: the resolved interval, or null when it needs a reference date that was not given. */
  window?: DateWindow | null;
  /** Relative windows the SQL may express with CURRENT_DATE: "last 30 days" → {n: 30, unit: 'day'}. */
  relative?: { n: number; unit: string } | null;
}

export interface QuestionAggregation {
  func: 'SUM' | 'AVG' | 'COUNT' | 'MIN' | 'MAX';
  distinct: boolean;
  phrase: string;
  /** What it applies to ("list price"), when the words after the keyword name it. */
  target: string | null;
  /** The column from R_app, if mapped. */
  column: string | null;
}

export interface QuestionOrdering {
  direction: 'ASC' | 'DESC';
  /** Top N; null for a superlative without a number ("the highest"). */
  n: number | null;
  phrase: string;
  /** The user asked for a sort order explicitly ("highest first", "in descending order"), not only a superlative. */
  explicit: boolean;
  /** What is ranked by: "revenue" in "top 5 customers by revenue" (read as the ORDER BY key, not a GROUP BY). */
  metric?: string;
}

/** The semantic specification of a question. */
export interface QuestionSpec {
  text: string;
  aggregations: QuestionAggregation[];
  filters: QuestionFilter[];
  groupBy: { term: string; column: string | null; phrase: string }[];
  ordering: QuestionOrdering | null;
  /** Asks for a list of entities ("which", "list", "show"). */
  listing: boolean;
  /** Which rules fired, in order: the explanation of the extraction. */
  trace: string[];
}

/** The semantic specification of the SQL, from the structural layer's clause features. */
export interface SqlSpec {
  projections: { expr: string; aggregate: boolean; columns: string[] }[];
  aggregations: { func: string; args: string[]; distinct: boolean }[];
  filters: SqlFilter[];
  groupBy: string[];
  groupedColumns: string[];
  orderBy: { expr: string; direction: 'ASC' | 'DESC' }[];
  limit: number | null;
  /** Subqueries, CTEs, set operations or window functions: beyond what the rules can see fully. */
  complex: boolean;
  tables: string[];
}

export interface SqlFilter {
  clause: 'where' | 'having';
  expr: string;
  column: string | null;
  subject: string;
  operator: string;
  /** Normalized literal values (unquoted, lower case, trimmed). */
  values: string[];
}

export type FilterStatus = 'fully_applied' | 'fully_applied_with_extras' | 'partially_applied' | 'not_applied';
export const FILTER_STATUSES: readonly FilterStatus[] = [
  'fully_applied',
  'fully_applied_with_extras',
  'partially_applied',
  'not_applied',
];

export type VerdictLabel = 'correct' | 'likely_correct' | 'potentially_incorrect' | 'incorrect';
export const VERDICT_LABELS: readonly VerdictLabel[] = [
  'correct',
  'likely_correct',
  'potentially_incorrect',
  'incorrect',
];

export interface FilterMatch {
  source: 'question' | 'enriched' | 'mention';
  question_filter: string;
  predicates: string[];
  result: 'matched' | 'mismatched' | 'missing';
  note: string;
  /** The match is weaker evidence (found outside the outer WHERE, unresolved window, boundary differs...). */
  uncertain: boolean;
}

export interface ExtraFilter {
  predicate: string;
  benign: boolean;
  /** benign (R_app), unasked (not in the question), drift (asked only by the enriched question), unverifiable (subquery or column-to-column: not judged). */
  kind: 'benign' | 'unasked' | 'drift' | 'unverifiable';
  reason: string;
}

export interface FilterAlignment {
  status: FilterStatus;
  score: number;
  /** +1 when every extra is confirmed benign. */
  leniency: 0 | 1;
  matches: FilterMatch[];
  extras: ExtraFilter[];
}

export interface Issue {
  severity: 'minor' | 'moderate' | 'major';
  aspect: 'aggregation' | 'grouping' | 'ordering' | 'limit' | 'filter' | 'projection' | 'distinct';
  message: string;
}

export interface ProductionRuleApplied {
  rule: 'required_group_by' | 'benign_group_by' | 'default_order_by' | 'safety_limit';
  detail: string;
}

export interface SemanticVerdict {
  label: VerdictLabel;
  score: number;
  confidence: number;
  source: 'rules' | 'judge';
  rationale: string;
  /** When a judge was asked and failed: why the rules answered instead. */
  judge_error?: string;
}

export interface Drift {
  /** Constraints the enriched question adds to the user's question. */
  added: string[];
  /** Constraints of the user's question the enriched question lost. */
  lost: string[];
  drifted: boolean;
}

/** The STEF report of one query. Field names are the seed's, snake_case. */
export interface StefReport {
  phi: number;
  base_score: number;
  filter_alignment: FilterAlignment;
  semantic_verdict: SemanticVerdict;
  confidence: number;
  gamma: number;
  evidence: {
    question_spec: QuestionSpec;
    enriched_spec: QuestionSpec | null;
    sql_spec: SqlSpec;
    issues: Issue[];
  };
  drift: Drift | null;
  production_rules_applied: ProductionRuleApplied[];
}

export interface StefInput {
  question: string;
  enriched_question?: string | null;
  sql: string;
  rules?: AppRules;
  dialect?: 'duckdb' | 'sqlite';
}
