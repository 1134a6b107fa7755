/**
 * The deterministic semantic verdict: compare the question's specification
 * with the SQL's, after the four production normalization rules; the issues
 * found decide the label, and what the rules could not see lowers γ.
 */
import { termMatches, tokens } from './normalize.ts';
import { DEFAULT_SAFETY_LIMIT } from './rules.ts';
import { VERDICT_SCORE } from './score.ts';
import type {
  AppRules,
  Drift,
  FilterAlignment,
  Issue,
  ProductionRuleApplied,
  QuestionAggregation,
  QuestionOrdering,
  QuestionSpec,
  SemanticVerdict,
  SqlSpec,
  VerdictLabel,
} from './types.ts';

export interface RulesVerdictResult {
  verdict: SemanticVerdict;
  issues: Issue[];
  productionRules: ProductionRuleApplied[];
}

const hasFunc = (text: string, func: string) => new RegExp(`\\b${func.toLowerCase()}\\s*\\(`).test(text);

/** Production rule 1 and 2: is an unrequested GROUP BY key tolerated? */
function toleratedGroupKey(key: string, sql: SqlSpec): ProductionRuleApplied | null {
  const keyCols = tokens(key).join('_');
  const pinned = sql.filters.find(
    (f) =>
      f.clause === 'where' &&
      (f.operator === '=' || (f.operator === 'IN' && f.values.length === 1)) &&
      f.values.length &&
      (f.column === key.toLowerCase() || (f.column !== null && tokens(f.column).join('_') === keyCols)),
  );
  if (pinned)
    return {
      rule: 'benign_group_by',
      detail: `GROUP BY ${key} is on a column pinned to one value by WHERE ${pinned.expr}: ignored`,
    };
  const mixes = sql.projections.some((p) => p.aggregate) && sql.projections.some((p) => !p.aggregate);
  if (mixes && sql.projections.some((p) => !p.aggregate && (p.expr === key || tokens(p.expr).join('_') === keyCols)))
    return {
      rule: 'required_group_by',
      detail: `SELECT mixes aggregates and ${key}: the GROUP BY it requires is assumed correct`,
    };
  return null;
}

/** What the checks compare, and what they found so far. */
interface Check {
  q: QuestionSpec;
  sql: SqlSpec;
  /** The SQL text in lower case: for what the outer query's spec does not show (subqueries, window functions). */
  text: string;
  alignment: FilterAlignment;
  rules: AppRules;
  aggFuncs: Set<string>;
  /** The question's ranking: a superlative, or an explicit order with a count. */
  superlative: QuestionOrdering | null;
  issues: Issue[];
  applied: ProductionRuleApplied[];
  /** Constraints the rules could neither confirm nor refute: each lowers γ. */
  uncertain: number;
}

type CheckStep = (c: Check) => void;

/** Whether the SQL computes the aggregate, or answers it with ORDER BY … LIMIT 1 (MAX as DESC, MIN as ASC). */
function computesAggregate(c: Check, a: QuestionAggregation): boolean {
  const { sql } = c;
  const extreme =
    (a.func === 'MAX' && sql.orderBy[0]?.direction === 'DESC') ||
    (a.func === 'MIN' && sql.orderBy[0]?.direction === 'ASC');
  return c.aggFuncs.has(a.func) || (extreme && sql.limit !== null && sql.limit <= 1);
}

/** An aggregate the SQL has: is it DISTINCT when the question counts different values, and on the R_app column? */
function aggregateDetails(c: Check, a: QuestionAggregation) {
  const { sql, text } = c;
  if (
    a.func === 'COUNT' &&
    a.distinct &&
    !sql.aggregations.some((x) => x.func === 'COUNT' && x.distinct) &&
    !/\bdistinct\b/.test(text)
  )
    c.issues.push({
      severity: 'moderate',
      aspect: 'distinct',
      message: `the question counts different ${a.target ?? 'values'} ("${a.phrase}"); the SQL counts without DISTINCT`,
    });
  if (!a.column) return;
  const args = sql.aggregations
    .filter((x) => x.func === a.func)
    .flatMap((x) => x.args)
    .join(' ');
  if (!termMatches(a.column, null, args, c.rules) && !(a.func === 'COUNT' && args.includes('*')))
    c.issues.push({
      severity: 'moderate',
      aspect: 'projection',
      message: `${a.func} should apply to ${a.column} (R_app), the SQL aggregates ${args || 'something else'}`,
    });
}

/** An aggregate the SQL lacks: a COUNT answered by listing the rows is less wrong than another aggregate. */
function missingAggregate(c: Check, a: QuestionAggregation): Issue {
  const { sql } = c;
  if (a.func === 'COUNT' && sql.limit === null && !sql.projections.some((p) => p.aggregate) && sql.projections.length)
    return {
      severity: 'moderate',
      aspect: 'aggregation',
      message: `the question asks "${a.phrase}" (COUNT); the SQL lists rows instead of counting them`,
    };
  return {
    severity: 'major',
    aspect: 'aggregation',
    message: `the question asks "${a.phrase}" (${a.func}); the SQL has ${c.aggFuncs.size ? [...c.aggFuncs].join(', ') : 'no aggregate'}`,
  };
}

/** Each aggregate the question asks for; one the outer query lacks but the text calls (a subquery, a window) is uncertain. */
const aggregations: CheckStep = (c) => {
  for (const a of c.q.aggregations) {
    if (computesAggregate(c, a)) aggregateDetails(c, a);
    else if (hasFunc(c.text, a.func)) c.uncertain++;
    else c.issues.push(missingAggregate(c, a));
  }
};

/** A question that lists rows, answered with aggregates. */
const listedRows: CheckStep = (c) => {
  const { q, sql } = c;
  if (
    !q.aggregations.length &&
    !c.superlative &&
    sql.projections.some((p) => p.aggregate) &&
    q.listing &&
    !q.groupBy.length
  )
    c.issues.push({
      severity: 'minor',
      aspect: 'aggregation',
      message: `the question lists rows; the SQL aggregates (${[...c.aggFuncs].join(', ')})`,
    });
};

/** Each grouping the question asks for; the GROUP BY keys that match one. A window's PARTITION BY is uncertain. */
function requestedGroups(c: Check): Set<string> {
  const { sql, text } = c;
  const matchedKeys = new Set<string>();
  for (const g of c.q.groupBy) {
    const key = sql.groupBy.find((k) => termMatches(g.column ?? g.term, null, k, c.rules));
    if (key) {
      matchedKeys.add(key);
      continue;
    }
    if (!sql.groupBy.length) {
      const partitioned = /\bpartition\s+by\b/.test(text) || (sql.complex && /\bgroup\s+by\b/.test(text));
      if (partitioned) c.uncertain++;
      else
        c.issues.push({
          severity: 'major',
          aspect: 'grouping',
          message: `the question asks "${g.phrase}"; the SQL has no GROUP BY`,
        });
    } else
      c.issues.push({
        severity: 'moderate',
        aspect: 'grouping',
        message: `the question asks "${g.phrase}"; the SQL groups by ${sql.groupBy.join(', ')}`,
      });
  }
  return matchedKeys;
}

/** A GROUP BY key no grouping asked for: tolerated by a production rule, or an issue. */
function unrequestedKey(c: Check, key: string) {
  const { q } = c;
  const rule = toleratedGroupKey(key, c.sql);
  if (rule) {
    c.applied.push(rule);
    if (rule.rule === 'required_group_by' && !q.groupBy.length && !q.listing && !c.superlative && q.aggregations.length)
      c.issues.push({
        severity: 'minor',
        aspect: 'grouping',
        message: `the question asks for one value; the SQL splits it by ${key}`,
      });
  } else if (q.groupBy.length) {
    if (!c.sql.projections.some((p) => p.expr === key))
      c.issues.push({ severity: 'minor', aspect: 'grouping', message: `extra GROUP BY key ${key}` });
  } else
    c.issues.push({
      severity: 'moderate',
      aspect: 'grouping',
      message: `GROUP BY ${key} is not asked and not required by the SELECT`,
    });
}

const grouping: CheckStep = (c) => {
  const matchedKeys = requestedGroups(c);
  for (const key of c.sql.groupBy) if (!matchedKeys.has(key)) unrequestedKey(c, key);
};

/** A superlative without ORDER BY: MAX/MIN without GROUP BY answers the top one. */
function answeredByMaxMin(c: Check, s: QuestionOrdering): boolean {
  if (s.n !== null && s.n !== 1) return false;
  return (s.direction === 'DESC' ? c.aggFuncs.has('MAX') : c.aggFuncs.has('MIN')) && !c.sql.groupBy.length;
}

/** The LIMIT at or above which a LIMIT is a safety guard (R_app, default 1000). */
const safetyThreshold = (c: Check) => c.rules.safety_limit_threshold ?? DEFAULT_SAFETY_LIMIT;

/** The ranking: ORDER BY in its direction, and a LIMIT of its count. */
function rankingOrder(c: Check, s: QuestionOrdering) {
  const { sql, text } = c;
  const n = s.n;
  const first = sql.orderBy[0];
  if (answeredByMaxMin(c, s)) return;
  if (!first) {
    if (
      /\b(rank|dense_rank|row_number)\s*\(/.test(text) ||
      (sql.complex && (hasFunc(text, 'max') || hasFunc(text, 'min') || /order\s+by/.test(text)))
    )
      c.uncertain++;
    else
      c.issues.push({
        severity: n !== null ? 'major' : 'moderate',
        aspect: 'ordering',
        message: `the question asks "${s.phrase}"; the SQL has no ORDER BY`,
      });
  } else if (first.direction !== s.direction) {
    c.issues.push({
      severity: 'major',
      aspect: 'ordering',
      message: `the question asks "${s.phrase}" (${s.direction}); the SQL orders ${first.expr} ${first.direction}`,
    });
  } else if (n !== null && sql.limit !== n) {
    if (sql.limit === null && /\b(rank|dense_rank)\s*\(/.test(text)) c.uncertain++;
    else
      c.issues.push({
        severity: 'major',
        aspect: 'limit',
        message: `the question asks for ${n} (${s.phrase}); the SQL ${sql.limit === null ? 'has no LIMIT' : `has LIMIT ${sql.limit}`}`,
      });
  } else if (n === null && !c.q.listing && (sql.limit === null || sql.limit >= safetyThreshold(c))) {
    // A safety LIMIT (rule 4) is not a top-k: it does not answer "the top row" any more than no LIMIT does.
    c.issues.push({
      severity: 'minor',
      aspect: 'limit',
      message: `"${s.phrase}" asks for the top row; the SQL returns them all, ordered`,
    });
  }
}

/** An explicit sort order: ORDER BY, in its direction unless it only says "sorted by". */
function explicitOrder(c: Check, o: QuestionOrdering) {
  const first = c.sql.orderBy[0];
  if (!first)
    c.issues.push({
      severity: 'moderate',
      aspect: 'ordering',
      message: `the question asks "${o.phrase}"; the SQL has no ORDER BY`,
    });
  else if (o.phrase !== 'sorted by' && o.phrase !== 'ordered by' && first.direction !== o.direction)
    c.issues.push({
      severity: 'major',
      aspect: 'ordering',
      message: `the question asks "${o.phrase}" (${o.direction}); the SQL orders ${first.direction}`,
    });
}

/** Production rule 3: an ORDER BY nobody asked for is tolerated (noted when it is R_app's default). */
function unaskedOrder(c: Check, first: SqlSpec['orderBy'][number]) {
  const { sql } = c;
  const d = c.rules.default_order;
  const byDefault =
    d &&
    (!d.column || sql.orderBy.some((o) => o.expr.toLowerCase().includes(d.column!.toLowerCase()))) &&
    (!d.direction || first.direction === d.direction);
  c.applied.push({
    rule: 'default_order_by',
    detail: `ORDER BY ${sql.orderBy.map((o) => `${o.expr} ${o.direction}`).join(', ')} not asked for${byDefault ? ' (the R_app default ordering)' : ''}: tolerated`,
  });
}

const ordering: CheckStep = (c) => {
  const first = c.sql.orderBy[0];
  if (c.superlative) rankingOrder(c, c.superlative);
  else if (c.q.ordering?.explicit) explicitOrder(c, c.q.ordering);
  else if (first) unaskedOrder(c, first);
};

/** Production rule 4: a LIMIT at or above the threshold is a safety guard; below it, with no top-k asked, it truncates. */
const limit: CheckStep = (c) => {
  const { sql, superlative } = c;
  const threshold = safetyThreshold(c);
  if (sql.limit !== null && !(superlative && superlative.n !== null)) {
    if (sql.limit >= threshold)
      c.applied.push({
        rule: 'safety_limit',
        detail: `LIMIT ${sql.limit} ≥ ${threshold}: a safety guard, not a top-k`,
      });
    else if (!superlative)
      c.issues.push({
        severity: 'major',
        aspect: 'limit',
        message: `LIMIT ${sql.limit} truncates the answer; the question asks for no top-k (safety threshold ${threshold})`,
      });
  } else if (sql.limit !== null && superlative && superlative.n !== null && sql.limit >= threshold) {
    // A top N was asked (rule 4's "unless explicitly requested"): LIMIT N is that top-k, even at or above the
    // threshold; MAX/MIN already answer a top one, so there the LIMIT is only a guard. Otherwise N is not applied.
    if (answeredByMaxMin(c, superlative))
      c.applied.push({
        rule: 'safety_limit',
        detail: `LIMIT ${sql.limit} ≥ ${threshold}: a safety guard, not a top-k`,
      });
    else if (sql.limit !== superlative.n)
      c.issues.push({
        severity: 'major',
        aspect: 'limit',
        message: `the question asks for ${superlative.n}; LIMIT ${sql.limit} is only a safety guard`,
      });
  }
};

/** Filters, from the alignment: a missing filter is major when none of them is applied. */
const filters: CheckStep = (c) => {
  const { alignment } = c;
  for (const m of alignment.matches) {
    if (m.result === 'mismatched')
      c.issues.push({ severity: 'major', aspect: 'filter', message: `${m.question_filter}: ${m.note}` });
    else if (m.result === 'missing')
      c.issues.push({
        severity: alignment.status === 'not_applied' ? 'major' : 'moderate',
        aspect: 'filter',
        message: `${m.question_filter}: ${m.note}`,
      });
    else if (m.uncertain) c.uncertain++;
  }
  for (const x of alignment.extras) {
    if (x.kind === 'unasked' || x.kind === 'drift')
      c.issues.push({ severity: 'moderate', aspect: 'filter', message: `extra predicate ${x.predicate}: ${x.reason}` });
    if (x.kind === 'unverifiable') c.uncertain++;
  }
};

/** The checks, in the order their issues are reported. */
const CHECKS: readonly CheckStep[] = [aggregations, listedRows, grouping, ordering, limit, filters];

/** One major or two moderate issues make the SQL incorrect. */
function labelOf(issues: Issue[]): VerdictLabel {
  const majors = issues.filter((i) => i.severity === 'major').length;
  const moderates = issues.filter((i) => i.severity === 'moderate').length;
  return majors || moderates >= 2
    ? 'incorrect'
    : moderates
      ? 'potentially_incorrect'
      : issues.length
        ? 'likely_correct'
        : 'correct';
}

/** γ: lower for complex SQL, a question with little to check, drift and each uncertain constraint. */
function confidenceOf(q: QuestionSpec, sql: SqlSpec, drift: Drift | null, uncertain: number): number {
  const thin = !q.aggregations.length && !q.filters.length && !q.groupBy.length && !q.ordering;
  return Math.max(
    0.3,
    Math.round(
      (0.95 -
        (sql.complex ? 0.15 : 0) -
        (thin ? 0.1 : 0) -
        (drift?.drifted ? 0.1 : 0) -
        Math.min(0.15, 0.05 * uncertain)) *
        100,
    ) / 100,
  );
}

function rationaleOf(issues: Issue[]): string {
  return issues.length
    ? issues.map((i) => `${i.severity}: ${i.message}`).join('; ')
    : 'every constraint the question states is in the SQL';
}

/** Rules-only verdict. `alignment` comes from alignFilters. */
export function rulesVerdict(
  q: QuestionSpec,
  sql: SqlSpec,
  sqlText: string,
  alignment: FilterAlignment,
  drift: Drift | null,
  rules: AppRules,
): RulesVerdictResult {
  const c: Check = {
    q,
    sql,
    text: sqlText.toLowerCase(),
    alignment,
    rules,
    aggFuncs: new Set(sql.aggregations.map((a) => a.func)),
    superlative: q.ordering && (!q.ordering.explicit || q.ordering.n !== null) ? q.ordering : null,
    issues: [],
    applied: [],
    uncertain: 0,
  };
  for (const check of CHECKS) check(c);
  const label = labelOf(c.issues);
  const confidence = confidenceOf(q, sql, drift, c.uncertain);
  return {
    verdict: { label, score: VERDICT_SCORE[label], confidence, source: 'rules', rationale: rationaleOf(c.issues) },
    issues: c.issues,
    productionRules: c.applied,
  };
}
