/**
 * Spider's difficulty levels (easy / medium / hard / extra), reimplemented
 * from `eval_hardness` in Spider's evaluation.py (taoyds/spider and
 * taoyds/test-suite-sql-eval): three counts over Spider's own parse of the
 * query, then fixed thresholds. The counts are computed on the *parsed*
 * (not canonicalized) tree, reading it the way Spider's parser does:
 *
 * - a condition is the flat sequence of its comparisons ("cond units")
 *   joined by AND/OR; FROM's conditions are the ON predicates of its joins;
 * - a set operation is the first SELECT plus one nested query
 *   (ORDER BY/LIMIT after it belong to the last arm in Spider's parse);
 * - subqueries count as nested only as the right-hand value of a condition
 *   in FROM/WHERE/HAVING (not in FROM, not in SELECT).
 *
 * Faithful quirks, kept on purpose so levels match Spider's published ones:
 * `count_others` counts aggregates with `has_agg(unit) = unit[0] != 0`, which
 * for WHERE's cond units reads the NOT flag (`x NOT IN (...)` counts as an
 * aggregate) and for HAVING also counts each AND/OR token.
 */
import type { Outcome } from '../errors.ts';
import { ok } from '../errors.ts';
import type { Dialect } from './grammar.ts';
import type { Expr, Query, Select } from './ir.ts';
import { firstSelect } from './ir.ts';
import { memoByTree } from './memo.ts';
import { parseSql } from './parse.ts';
import { SPIDER_DIFFICULTIES, type SpiderDifficulty } from '../vocabulary.ts';

/** Spider's hardness levels are its difficulty labels. */
export type Hardness = SpiderDifficulty;
export const HARDNESS_LEVELS: readonly Hardness[] = SPIDER_DIFFICULTIES;

export interface HardnessResult {
  hardness: Hardness;
  /** Spider's count_component1: WHERE, GROUP BY, ORDER BY, LIMIT, joins, ORs, LIKEs. */
  component1: number;
  /** Spider's count_component2: nested queries in conditions, and INTERSECT/UNION/EXCEPT. */
  component2: number;
  /** Spider's count_others: >1 aggregate, >1 select column, >1 WHERE condition, >1 GROUP BY column. */
  others: number;
}

/** Spider's AGG_OPS (other aggregate functions are not aggregates to Spider). */
const SPIDER_AGGS = new Set(['max', 'min', 'count', 'sum', 'avg']);

interface Condition {
  units: Expr[];
  /** The AND/OR tokens between them. */
  connectors: ('AND' | 'OR')[];
}

/** Flatten an AND/OR tree into Spider's [unit, op, unit, op, ...] reading. */
function condition(e: Expr | null): Condition {
  const out: Condition = { units: [], connectors: [] };
  const walk = (x: Expr) => {
    if (x.kind === 'logical') {
      x.args.forEach((a, i) => {
        if (i > 0) out.connectors.push(x.op);
        walk(a);
      });
    } else out.units.push(x);
  };
  if (e) walk(e);
  return out;
}

function fromConditions(s: Select): Condition {
  const all: Condition = { units: [], connectors: [] };
  for (const f of s.from) {
    if (!f.on) continue;
    const c = condition(f.on);
    if (all.units.length && c.units.length) all.connectors.push('AND');
    all.units.push(...c.units);
    all.connectors.push(...c.connectors);
  }
  return all;
}

const isLike = (u: Expr) => u.kind === 'binary' && (u.op === 'LIKE' || u.op === 'NOT LIKE');

/** Spider's not_op: `x NOT IN`, `x NOT LIKE`, `x NOT BETWEEN`. */
const hasNot = (u: Expr) =>
  (u.kind === 'binary' && u.op.startsWith('NOT ')) || ((u.kind === 'in' || u.kind === 'between') && u.not);

function isSpiderAgg(e: Expr): boolean {
  return e.kind === 'func' && e.aggregate && !e.over && SPIDER_AGGS.has(e.name.toLowerCase());
}

/** Nested queries among a cond unit's values (val1, val2). */
function nestedValues(u: Expr): number {
  if (u.kind === 'in') return u.query ? 1 : 0;
  if (u.kind === 'between') return (u.low.kind === 'subquery' ? 1 : 0) + (u.high.kind === 'subquery' ? 1 : 0);
  if (u.kind === 'binary') return u.right.kind === 'subquery' ? 1 : 0;
  return 0;
}

/** Aggregates in an ORDER BY key: Spider's val_unit (col_unit1 op col_unit2). */
function orderAggs(e: Expr): number {
  const x = { ...e, parens: false } as Expr;
  if (isSpiderAgg(x)) return 1;
  if (x.kind === 'binary' && ['+', '-', '*', '/'].includes(x.op))
    return (isSpiderAgg(x.left) ? 1 : 0) + (isSpiderAgg(x.right) ? 1 : 0);
  return 0;
}

/** Spider's three counts for a parsed tree, once per tree (the structure section and the case's difficulty both ask). */
export function hardnessCounts(query: Query): Omit<HardnessResult, 'hardness'> {
  return memoByTree('hardness', query, () => countsOf(query));
}

function countsOf(query: Query): Omit<HardnessResult, 'hardness'> {
  const s = firstSelect(query);
  const where = condition(s.where);
  const having = condition(s.having);
  const fromConds = fromConditions(s);
  const allUnits = [...fromConds.units, ...where.units, ...having.units];
  const allConnectors = [...fromConds.connectors, ...where.connectors, ...having.connectors];

  let component1 = 0;
  if (where.units.length) component1++;
  if (s.groupBy.length) component1++;
  if (s.orderBy.length) component1++;
  if (s.limit) component1++;
  if (s.from.length > 0) component1 += s.from.length - 1;
  component1 += allConnectors.filter((c) => c === 'OR').length;
  component1 += allUnits.filter(isLike).length;

  let component2 = allUnits.reduce((n, u) => n + nestedValues(u), 0);
  if (query.kind === 'setop') component2 += 1;

  let aggs = s.columns.filter((c) => isSpiderAgg({ ...c.expr, parens: false } as Expr)).length;
  aggs += where.units.filter(hasNot).length;
  aggs += s.groupBy.filter(isSpiderAgg).length;
  aggs += s.orderBy.reduce((n, o) => n + orderAggs(o.expr), 0);
  aggs += having.connectors.length + having.units.filter(hasNot).length;
  let others = 0;
  if (aggs > 1) others++;
  if (s.columns.length > 1) others++;
  if (where.units.length > 1) others++;
  if (s.groupBy.length > 1) others++;
  return { component1, component2, others };
}

/** Spider's eval_hardness thresholds. */
export function hardnessLevel(c1: number, c2: number, others: number): Hardness {
  if (c1 <= 1 && others === 0 && c2 === 0) return 'easy';
  if ((others <= 2 && c1 <= 1 && c2 === 0) || (c1 <= 2 && others < 2 && c2 === 0)) return 'medium';
  if (
    (others > 2 && c1 <= 2 && c2 === 0) ||
    (c1 > 2 && c1 <= 3 && others <= 2 && c2 === 0) ||
    (c1 <= 1 && others === 0 && c2 <= 1)
  )
    return 'hard';
  return 'extra';
}

/** Spider hardness of SQL text (parsed in `dialect`) or of a parsed tree. */
export function hardness(input: string | Query, dialect: Dialect = 'sqlite'): Outcome<HardnessResult> {
  let query: Query;
  if (typeof input === 'string') {
    const parsed = parseSql(input, dialect);
    if (!parsed.ok) return parsed;
    query = parsed.value.query;
  } else query = input;
  const counts = hardnessCounts(query);
  return ok({ hardness: hardnessLevel(counts.component1, counts.component2, counts.others), ...counts });
}

export interface CaseDifficulty {
  /** What the case is counted as: the stated level when there is one, else the computed one. */
  difficulty: Hardness | null;
  stated: Hardness | null;
  computed: Hardness | null;
  counts: Omit<HardnessResult, 'hardness'> | null;
  /** Set when the stated level is not a level, disagrees with the computed one, or none could be computed. */
  warning: string | null;
}

/**
 * The difficulty of a corpus case: computed from its reference SQL with
 * Spider's rules when the case states none; a stated level that disagrees is
 * kept and reported as a warning.
 */
export function caseDifficulty(referenceSql: string, dialect: Dialect, stated?: string | null): CaseDifficulty {
  const valid = stated == null ? null : (HARDNESS_LEVELS.find((h) => h === String(stated).toLowerCase()) ?? null);
  const r = hardness(referenceSql, dialect);
  const computed = r.ok ? r.value.hardness : null;
  const counts = r.ok
    ? { component1: r.value.component1, component2: r.value.component2, others: r.value.others }
    : null;
  let warning: string | null = null;
  if (stated != null && !valid) warning = `difficulty "${stated}" is not one of ${HARDNESS_LEVELS.join(', ')}`;
  else if (!r.ok) warning = `difficulty could not be computed: ${r.error.message}`;
  else if (valid && valid !== computed)
    warning = `difficulty is stated as ${valid}, Spider's rules give ${computed} (component1 ${counts!.component1}, component2 ${counts!.component2}, others ${counts!.others})`;
  return { difficulty: valid ?? computed, stated: valid, computed, counts, warning };
}
