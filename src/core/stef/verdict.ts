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

/** Rules-only verdict. `alignment` comes from alignFilters. */
export function rulesVerdict(
  q: QuestionSpec,
  sql: SqlSpec,
  sqlText: string,
  alignment: FilterAlignment,
  drift: Drift | null,
  rules: AppRules,
): RulesVerdictResult {
  const issues: Issue[] = [];
  const applied: ProductionRuleApplied[] = [];
  let uncertain = 0;
  const text = sqlText.toLowerCase();
  const threshold = rules.safety_limit_threshold ?? DEFAULT_SAFETY_LIMIT;
  const aggFuncs = new Set(sql.aggregations.map((a) => a.func));
  const superlative = q.ordering && (!q.ordering.explicit || q.ordering.n !== null) ? q.ordering : null;

  // Aggregations.
  for (const a of q.aggregations) {
    const extreme =
      (a.func === 'MAX' && sql.orderBy[0]?.direction === 'DESC') ||
      (a.func === 'MIN' && sql.orderBy[0]?.direction === 'ASC');
    if (aggFuncs.has(a.func) || (extreme && sql.limit !== null && sql.limit <= 1)) {
      if (
        a.func === 'COUNT' &&
        a.distinct &&
        !sql.aggregations.some((x) => x.func === 'COUNT' && x.distinct) &&
        !/\bdistinct\b/.test(text)
      )
        issues.push({
          severity: 'moderate',
          aspect: 'distinct',
          message: `the question counts different ${a.target ?? 'values'} ("${a.phrase}"); the SQL counts without DISTINCT`,
        });
      if (a.column) {
        const args = sql.aggregations
          .filter((x) => x.func === a.func)
          .flatMap((x) => x.args)
          .join(' ');
        if (!termMatches(a.column, null, args, rules) && !(a.func === 'COUNT' && args.includes('*')))
          issues.push({
            severity: 'moderate',
            aspect: 'projection',
            message: `${a.func} should apply to ${a.column} (R_app), the SQL aggregates ${args || 'something else'}`,
          });
      }
      continue;
    }
    if (hasFunc(text, a.func)) {
      uncertain++;
      continue;
    }
    if (
      a.func === 'COUNT' &&
      sql.limit === null &&
      !sql.projections.some((p) => p.aggregate) &&
      sql.projections.length
    ) {
      issues.push({
        severity: 'moderate',
        aspect: 'aggregation',
        message: `the question asks "${a.phrase}" (COUNT); the SQL lists rows instead of counting them`,
      });
      continue;
    }
    issues.push({
      severity: 'major',
      aspect: 'aggregation',
      message: `the question asks "${a.phrase}" (${a.func}); the SQL has ${aggFuncs.size ? [...aggFuncs].join(', ') : 'no aggregate'}`,
    });
  }
  if (
    !q.aggregations.length &&
    !superlative &&
    sql.projections.some((p) => p.aggregate) &&
    q.listing &&
    !q.groupBy.length
  )
    issues.push({
      severity: 'minor',
      aspect: 'aggregation',
      message: `the question lists rows; the SQL aggregates (${[...aggFuncs].join(', ')})`,
    });

  // Grouping.
  const matchedKeys = new Set<string>();
  for (const g of q.groupBy) {
    const key = sql.groupBy.find((k) => termMatches(g.column ?? g.term, null, k, rules));
    if (key) {
      matchedKeys.add(key);
      continue;
    }
    if (!sql.groupBy.length) {
      const partitioned = /\bpartition\s+by\b/.test(text) || (sql.complex && /\bgroup\s+by\b/.test(text));
      if (partitioned) uncertain++;
      else
        issues.push({
          severity: 'major',
          aspect: 'grouping',
          message: `the question asks "${g.phrase}"; the SQL has no GROUP BY`,
        });
    } else
      issues.push({
        severity: 'moderate',
        aspect: 'grouping',
        message: `the question asks "${g.phrase}"; the SQL groups by ${sql.groupBy.join(', ')}`,
      });
  }
  for (const key of sql.groupBy) {
    if (matchedKeys.has(key)) continue;
    const rule = toleratedGroupKey(key, sql);
    if (rule) {
      applied.push(rule);
      if (rule.rule === 'required_group_by' && !q.groupBy.length && !q.listing && !superlative && q.aggregations.length)
        issues.push({
          severity: 'minor',
          aspect: 'grouping',
          message: `the question asks for one value; the SQL splits it by ${key}`,
        });
    } else if (q.groupBy.length) {
      if (!sql.projections.some((p) => p.expr === key))
        issues.push({ severity: 'minor', aspect: 'grouping', message: `extra GROUP BY key ${key}` });
    } else
      issues.push({
        severity: 'moderate',
        aspect: 'grouping',
        message: `GROUP BY ${key} is not asked and not required by the SELECT`,
      });
  }

  // Ordering and limit.
  const first = sql.orderBy[0];
  if (superlative) {
    const n = superlative.n;
    const viaAggregate =
      n === null || n === 1
        ? (superlative.direction === 'DESC' ? aggFuncs.has('MAX') : aggFuncs.has('MIN')) && !sql.groupBy.length
        : false;
    if (viaAggregate) {
      /* MAX/MIN answers a superlative without ORDER BY. */
    } else if (!first) {
      if (
        /\b(rank|dense_rank|row_number)\s*\(/.test(text) ||
        (sql.complex && (hasFunc(text, 'max') || hasFunc(text, 'min') || /order\s+by/.test(text)))
      )
        uncertain++;
      else
        issues.push({
          severity: n !== null ? 'major' : 'moderate',
          aspect: 'ordering',
          message: `the question asks "${superlative.phrase}"; the SQL has no ORDER BY`,
        });
    } else if (first.direction !== superlative.direction) {
      issues.push({
        severity: 'major',
        aspect: 'ordering',
        message: `the question asks "${superlative.phrase}" (${superlative.direction}); the SQL orders ${first.expr} ${first.direction}`,
      });
    } else if (n !== null && sql.limit !== n) {
      if (sql.limit === null && /\b(rank|dense_rank)\s*\(/.test(text)) uncertain++;
      else
        issues.push({
          severity: 'major',
          aspect: 'limit',
          message: `the question asks for ${n} (${superlative.phrase}); the SQL ${sql.limit === null ? 'has no LIMIT' : `has LIMIT ${sql.limit}`}`,
        });
    } else if (n === null && sql.limit === null && !q.listing) {
      issues.push({
        severity: 'minor',
        aspect: 'limit',
        message: `"${superlative.phrase}" asks for the top row; the SQL returns them all, ordered`,
      });
    }
  } else if (q.ordering?.explicit) {
    if (!first)
      issues.push({
        severity: 'moderate',
        aspect: 'ordering',
        message: `the question asks "${q.ordering.phrase}"; the SQL has no ORDER BY`,
      });
    else if (
      q.ordering.phrase !== 'sorted by' &&
      q.ordering.phrase !== 'ordered by' &&
      first.direction !== q.ordering.direction
    )
      issues.push({
        severity: 'major',
        aspect: 'ordering',
        message: `the question asks "${q.ordering.phrase}" (${q.ordering.direction}); the SQL orders ${first.direction}`,
      });
  } else if (first) {
    const d = rules.default_order;
    const byDefault =
      d &&
      (!d.column || sql.orderBy.some((o) => o.expr.toLowerCase().includes(d.column!.toLowerCase()))) &&
      (!d.direction || first.direction === d.direction);
    applied.push({
      rule: 'default_order_by',
      detail: `ORDER BY ${sql.orderBy.map((o) => `${o.expr} ${o.direction}`).join(', ')} not asked for${byDefault ? ' (the R_app default ordering)' : ''}: tolerated`,
    });
  }
  if (sql.limit !== null && !(superlative && superlative.n !== null)) {
    if (sql.limit >= threshold)
      applied.push({ rule: 'safety_limit', detail: `LIMIT ${sql.limit} ≥ ${threshold}: a safety guard, not a top-k` });
    else if (!superlative)
      issues.push({
        severity: 'major',
        aspect: 'limit',
        message: `LIMIT ${sql.limit} truncates the answer; the question asks for no top-k (safety threshold ${threshold})`,
      });
  } else if (sql.limit !== null && superlative?.n !== null && sql.limit >= threshold && superlative) {
    issues.push({
      severity: 'major',
      aspect: 'limit',
      message: `the question asks for ${superlative.n}; LIMIT ${sql.limit} is only a safety guard`,
    });
  }

  // Filters, from the alignment.
  for (const m of alignment.matches) {
    if (m.result === 'mismatched')
      issues.push({ severity: 'major', aspect: 'filter', message: `${m.question_filter}: ${m.note}` });
    else if (m.result === 'missing')
      issues.push({
        severity: alignment.status === 'not_applied' ? 'major' : 'moderate',
        aspect: 'filter',
        message: `${m.question_filter}: ${m.note}`,
      });
    else if (m.uncertain) uncertain++;
  }
  for (const x of alignment.extras) {
    if (x.kind === 'unasked' || x.kind === 'drift')
      issues.push({ severity: 'moderate', aspect: 'filter', message: `extra predicate ${x.predicate}: ${x.reason}` });
    if (x.kind === 'unverifiable') uncertain++;
  }

  const majors = issues.filter((i) => i.severity === 'major').length;
  const moderates = issues.filter((i) => i.severity === 'moderate').length;
  const label: VerdictLabel =
    majors || moderates >= 2
      ? 'incorrect'
      : moderates
        ? 'potentially_incorrect'
        : issues.length
          ? 'likely_correct'
          : 'correct';
  const thin = !q.aggregations.length && !q.filters.length && !q.groupBy.length && !q.ordering;
  const confidence = Math.max(
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
  const rationale = issues.length
    ? issues.map((i) => `${i.severity}: ${i.message}`).join('; ')
    : 'every constraint the question states is in the SQL';
  return {
    verdict: { label, score: VERDICT_SCORE[label], confidence, source: 'rules', rationale },
    issues,
    productionRules: applied,
  };
}
