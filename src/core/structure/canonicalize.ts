/**
 * Canonical SQL: the ordered rules of `rules/` applied to the parsed tree,
 * printed by `print.ts`. Two queries whose canonical texts are equal are
 * structurally identical up to presentation (normalized_sql_match).
 */
import type { Dialect } from './grammar.ts';
import type { Query } from './ir.ts';
import { sameTree } from './ir.ts';
import { memoByTree } from './memo.ts';
import type { ParsedSql, ParseOutcome } from './parse.ts';
import { parseSql } from './parse.ts';
import { printQuery } from './print.ts';
import type { CanonicalRule } from './rules/index.ts';
import { RULES } from './rules/index.ts';

export interface CanonicalSql {
  /** The canonical SQL text (normalized_sql_*). */
  sql: string;
  query: Query;
  /** Names of the rules that changed something, in order. */
  applied: string[];
}

export type CanonicalOutcome = { ok: true; value: CanonicalSql } | Extract<ParseOutcome, { ok: false }>;

/**
 * Apply rules to a tree (one pass each, repeated until the text is stable: sort
 * keys depend on other rules' output). With the standard rules, computed once
 * per tree object (memo.ts).
 */
export function canonicalizeQuery(
  query: Query,
  dialect: Dialect,
  rules: readonly CanonicalRule[] = RULES,
): CanonicalSql {
  if (rules === RULES) return memoByTree(`canonical:${dialect}`, query, () => applyRules(query, dialect, rules));
  return applyRules(query, dialect, rules);
}

function applyRules(query: Query, dialect: Dialect, rules: readonly CanonicalRule[]): CanonicalSql {
  const applied = new Set<string>();
  let cur = query;
  // The text before any rule is only the answer when no rule changes anything: printed then, not before.
  let text: string | null = null;
  for (let pass = 0; pass < 4; pass++) {
    let changed = false;
    for (const rule of rules) {
      const next = rule.apply(cur, { dialect });
      if (!sameTree(next, cur)) {
        applied.add(rule.name);
        changed = true;
      }
      cur = next;
    }
    // Rules are pure: a pass that changed nothing is the fixpoint (another pass would repeat it).
    if (!changed) break;
    const printed = printQuery(cur, dialect);
    if (printed === text && pass > 0) break;
    text = printed;
  }
  return {
    sql: text ?? printQuery(cur, dialect),
    query: cur,
    applied: RULES.filter((r) => applied.has(r.name)).map((r) => r.name),
  };
}

/** Canonical SQL for SQL text, a parse result or a tree. Never throws for user SQL. */
export function canonicalize(input: string | ParsedSql | Query, dialect: Dialect): CanonicalOutcome {
  let query: Query;
  if (typeof input === 'string') {
    const parsed = parseSql(input, dialect);
    if (!parsed.ok) return parsed;
    query = parsed.value.query;
  } else if ('query' in input && 'grammar' in input) query = input.query;
  else query = input as Query;
  return { ok: true, value: canonicalizeQuery(query, dialect) };
}

export interface NormalizedSqlMatch {
  normalized_sql_expected: string | null;
  normalized_sql_actual: string | null;
  /** True when both canonical texts exist and are equal. */
  normalized_sql_match: boolean;
}

/** The normalized_sql_* fields of the report for one pair. */
export function normalizedSqlMatch(expected: CanonicalOutcome, actual: CanonicalOutcome): NormalizedSqlMatch {
  const e = expected.ok ? expected.value.sql : null;
  const a = actual.ok ? actual.value.sql : null;
  return { normalized_sql_expected: e, normalized_sql_actual: a, normalized_sql_match: e !== null && e === a };
}
