/**
 * Clause features: what a query asks for, clause by clause, as plain data for
 * the later layers — diagnostics (which clause explains a result mismatch)
 * and the schema-agnostic STEF mode (which compares them with what the
 * question asks for). Computed on the canonical tree, so aliases are already
 * resolved where that is safe and the texts are canonical SQL.
 */
import type { Dialect } from './grammar.ts';
import type { Expr, Query, Select, OrderItem } from './ir.ts';
import { AGGREGATES, childQueries, conjuncts, forEachExpr, selectExprs } from './ir.ts';
import { canonicalizeQuery } from './canonicalize.ts';
import { memoByTree } from './memo.ts';
import { resolveOutputRefs } from './compare.ts';
import { printExpr, printExprBare } from './print.ts';

/** A column reference: table is the qualifier as written after canonicalization (a table name, or a remaining alias). */
export interface ColumnRefFeature {
  table: string | null;
  column: string;
}

export interface ProjectionFeature {
  /** Canonical SQL of the expression. */
  expr: string;
  alias: string | null;
  /** The expression contains an aggregate. */
  aggregate: boolean;
  /** A window function (… OVER …). */
  window: boolean;
  columns: ColumnRefFeature[];
}

export interface AggregateFeature {
  /** Upper-case function name: SUM, COUNT, AVG... */
  func: string;
  /** Canonical SQL of each argument (`*` for COUNT(*)). */
  args: string[];
  distinct: boolean;
  /** FILTER (WHERE ...) text, if any. */
  filter: string | null;
  /** Where it appears. */
  clause: 'select' | 'having' | 'order_by';
  /** The whole call, canonical SQL. */
  expr: string;
}

export interface FilterFeature {
  clause: 'where' | 'having';
  /** The conjunct as canonical SQL. */
  expr: string;
  /** The column it constrains, when its left side is a column. */
  column: ColumnRefFeature | null;
  /** Left side when it is not a plain column (e.g. `COUNT(*)` in HAVING). */
  subject: string;
  /** =, <>, <, >, <=, >=, LIKE, NOT LIKE, IN, NOT IN, BETWEEN, NOT BETWEEN, IS, IS NOT, EXISTS, OR (a disjunction), ... */
  operator: string;
  /** Literal value(s) as canonical SQL; empty when the right side is not a literal. */
  values: string[];
  /** Right side is a subquery. */
  subquery: boolean;
  /** A disjunction kept whole (its parts are not separate filters). */
  disjunction: boolean;
}

export interface TableFeature {
  name: string;
  alias: string | null;
  /** INNER for comma and inner joins, else LEFT, RIGHT, FULL... */
  join: string;
  derived: boolean;
}

export interface OrderKeyFeature {
  expr: string;
  direction: 'ASC' | 'DESC';
  nulls: 'FIRST' | 'LAST' | null;
}

export interface WindowFeature {
  expr: string;
  func: string;
  /** The call's arguments, and its window (`OVER (…)`) as the text after `F(args)`: read apart from the function. */
  args: string[];
  over: string;
  partitionBy: string[];
  orderBy: OrderKeyFeature[];
}

export interface ClauseFeatures {
  projections: ProjectionFeature[];
  distinct: boolean;
  aggregates: AggregateFeature[];
  /** GROUP BY keys as canonical SQL, ordinals and output aliases resolved to their expressions. */
  groupBy: string[];
  /** Columns among the GROUP BY keys. */
  groupedColumns: ColumnRefFeature[];
  filters: FilterFeature[];
  /** Join conditions: ON predicates, and WHERE comparisons between columns of two FROM items of an inner join. */
  joinConditions: string[];
  tables: TableFeature[];
  /** ORDER BY keys, ordinals and output aliases resolved to their expressions. */
  orderBy: OrderKeyFeature[];
  /** LIMIT as a number when it is a literal, else its SQL; null when absent. */
  limit: number | string | null;
  offset: number | string | null;
  windows: WindowFeature[];
  /** UNION, UNION ALL, INTERSECT, EXCEPT... in order. */
  setOperators: string[];
  ctes: string[];
  /** Number of nested queries (subqueries, derived tables, CTE bodies, set-operation arms). */
  subqueryCount: number;
}

const literalKinds = new Set(['number', 'string', 'bool', 'null', 'typed', 'interval']);
const isLiteral = (e: Expr) =>
  literalKinds.has(e.kind) ||
  (e.kind === 'unary' && e.arg.kind === 'number') ||
  (e.kind === 'cast' && literalKinds.has(e.expr.kind));

function columnsOf(e: Expr): ColumnRefFeature[] {
  const out: ColumnRefFeature[] = [];
  forEachExpr(e, (x) => {
    if (x.kind === 'column') out.push({ table: x.table?.value ?? null, column: x.name.value });
  });
  return out;
}

function hasAggregate(e: Expr): boolean {
  let found = false;
  forEachExpr(e, (x) => {
    if (x.kind === 'func' && x.aggregate && !x.over) found = true;
  });
  return found;
}

function hasWindow(e: Expr): boolean {
  let found = false;
  forEachExpr(e, (x) => {
    if (x.kind === 'func' && x.over) found = true;
  });
  return found;
}

function numberOrText(e: Expr | null, d: Dialect): number | string | null {
  if (!e) return null;
  if (e.kind === 'number' && /^\d+$/.test(e.text)) return Number(e.text);
  return printExpr(e, d);
}

function filterOf(e: Expr, clause: 'where' | 'having', d: Dialect): FilterFeature {
  const x = { ...e, parens: false } as Expr;
  const text = printExpr(x, d);
  const base = {
    clause,
    expr: text,
    column: null,
    subject: '',
    operator: '',
    values: [] as string[],
    subquery: false,
    disjunction: false,
  };
  const col = (l: Expr) => (l.kind === 'column' ? { table: l.table?.value ?? null, column: l.name.value } : null);
  switch (x.kind) {
    case 'binary':
      return {
        ...base,
        column: col(x.left),
        subject: printExpr(x.left, d),
        operator: x.op,
        values: isLiteral(x.right) ? [printExpr(x.right, d)] : [],
        subquery: x.right.kind === 'subquery',
      };
    case 'in':
      return {
        ...base,
        column: col(x.arg),
        subject: printExpr(x.arg, d),
        operator: x.not ? 'NOT IN' : 'IN',
        values: (x.values ?? []).filter(isLiteral).map((v) => printExpr(v, d)),
        subquery: !!x.query,
      };
    case 'between':
      return {
        ...base,
        column: col(x.arg),
        subject: printExpr(x.arg, d),
        operator: x.not ? 'NOT BETWEEN' : 'BETWEEN',
        values: [x.low, x.high].filter(isLiteral).map((v) => printExpr(v, d)),
      };
    case 'exists':
      return { ...base, operator: x.not ? 'NOT EXISTS' : 'EXISTS', subquery: true };
    case 'logical':
      return { ...base, operator: x.op, disjunction: x.op === 'OR' };
    case 'not':
      return { ...base, operator: 'NOT', subject: printExpr(x.arg, d) };
    default:
      return { ...base, subject: text, operator: 'TRUE' };
  }
}

function orderKeys(items: Select['orderBy'], d: Dialect): OrderKeyFeature[] {
  return items.map((o) => ({
    expr: printExprBare(o.expr, d),
    direction: o.dir ?? 'ASC',
    nulls: o.nulls,
  }));
}

function countNested(q: Query): number {
  let n = 0;
  const visitQuery = (x: Query) => {
    n++;
    walk(x);
  };
  const walk = (x: Query) => {
    for (const c of x.with?.ctes ?? []) visitQuery(c.query);
    if (x.kind === 'setop') {
      x.arms.forEach((a, i) => (i === 0 ? walk(a) : visitQuery(a)));
      return;
    }
    for (const f of x.from) if (f.source.kind === 'derived') visitQuery(f.source.query);
    for (const e of selectExprs(x)) for (const sub of childQueries(e)) visitQuery(sub);
  };
  walk(q);
  return n;
}

/**
 * Features of the outermost query (its first SELECT for a set operation;
 * ORDER BY/LIMIT of the whole set operation). Canonicalizes unless told the
 * tree already is canonical.
 */
export function clauseFeatures(
  query: Query,
  dialect: Dialect = 'duckdb',
  opts: { canonical?: boolean } = {},
): ClauseFeatures {
  // Once per tree: the features of a canonical tree are those of the tree it came from.
  const q = opts.canonical ? query : canonicalizeQuery(query, dialect).query;
  return memoByTree(`features:${dialect}`, q, () => featuresOf(q, dialect));
}

function featuresOf(q: Query, dialect: Dialect): ClauseFeatures {
  let s: Query = q;
  while (s.kind === 'setop') s = s.arms[0]!;
  // ORDER BY / GROUP BY / HAVING references to output aliases and ordinals name their expressions.
  const sel = resolveOutputRefs(s);
  // Without the node's own parentheses; the printer keeps the texts of shared (frozen) nodes.
  const text = (e: Expr) => printExprBare(e, dialect);
  const ordering = q.kind === 'setop' ? q.orderBy : sel.orderBy;
  const { joinConditions, isJoinCondition, whereParts } = joinsOf(sel, text);
  const limitSource = q.kind === 'setop' ? q : sel;
  return {
    projections: sel.columns.map((c) => ({
      expr: text(c.expr),
      alias: c.alias?.value ?? null,
      aggregate: hasAggregate(c.expr),
      window: hasWindow(c.expr),
      columns: columnsOf(c.expr),
    })),
    distinct: !!sel.distinct,
    aggregates: aggregatesOf(sel, ordering, text),
    groupBy: sel.groupBy.map(text),
    groupedColumns: sel.groupBy.flatMap(columnsOf),
    filters: [
      ...whereParts.filter((e) => sel.from.length < 2 || !isJoinCondition(e)).map((e) => filterOf(e, 'where', dialect)),
      ...conjuncts(sel.having).map((e) => filterOf(e, 'having', dialect)),
    ],
    joinConditions,
    tables: sel.from.map((f) => tableOf(f, dialect)),
    orderBy: orderKeys(ordering, dialect),
    limit: numberOrText(limitSource.limit, dialect),
    offset: numberOrText(limitSource.offset, dialect),
    windows: windowsOf(sel, text, dialect),
    setOperators: q.kind === 'setop' ? q.ops : [],
    ctes: (q.with?.ctes ?? []).map((c) => c.name.value),
    subqueryCount: countNested(q),
  };
}

/** Plain aggregate calls (not window ones) of the SELECT list, HAVING and ORDER BY, in that order. */
function aggregatesOf(sel: Select, ordering: readonly OrderItem[], text: (e: Expr) => string): AggregateFeature[] {
  const aggregates: AggregateFeature[] = [];
  const collectAggs = (e: Expr, clause: AggregateFeature['clause']) =>
    forEachExpr(e, (x) => {
      if (x.kind === 'func' && x.aggregate && !x.over && AGGREGATES.has(x.name.toLowerCase())) {
        const star = x.args.length === 1 && x.args[0]!.kind === 'star';
        aggregates.push({
          func: x.name.toUpperCase(),
          args: star ? ['*'] : x.args.map(text),
          distinct: x.distinct,
          filter: x.filter ? text(x.filter) : null,
          clause,
          expr: text(x),
        });
      }
    });
  sel.columns.forEach((c) => collectAggs(c.expr, 'select'));
  if (sel.having) collectAggs(sel.having, 'having');
  ordering.forEach((o) => collectAggs(o.expr, 'order_by'));
  return aggregates;
}

function windowsOf(sel: Select, text: (e: Expr) => string, dialect: Dialect): WindowFeature[] {
  const windows: WindowFeature[] = [];
  for (const c of sel.columns)
    forEachExpr(c.expr, (x) => {
      if (x.kind === 'func' && x.over) {
        const whole = text(x);
        const call = text({ ...x, over: null });
        windows.push({
          expr: whole,
          func: x.name.toUpperCase(),
          args: x.args.map(text),
          over: whole.startsWith(call) ? whole.slice(call.length).trim() : whole,
          partitionBy: x.over.partitionBy.map(text),
          orderBy: orderKeys(x.over.orderBy, dialect),
        });
      }
    });
  return windows;
}

/** Join conditions: the ON clauses, and WHERE equalities between columns of two different FROM items. */
function joinsOf(sel: Select, text: (e: Expr) => string) {
  const bindings = new Set(
    sel.from.flatMap((f) =>
      f.alias ? [f.alias.value.toLowerCase()] : f.source.kind === 'table' ? [f.source.name.value.toLowerCase()] : [],
    ),
  );
  const isJoinCondition = (e: Expr) =>
    e.kind === 'binary' &&
    e.left.kind === 'column' &&
    e.right.kind === 'column' &&
    !!e.left.table &&
    !!e.right.table &&
    e.left.table.value.toLowerCase() !== e.right.table.value.toLowerCase() &&
    bindings.has(e.left.table.value.toLowerCase()) &&
    bindings.has(e.right.table.value.toLowerCase());
  const whereParts = conjuncts(sel.where);
  const joinConditions = [
    ...sel.from.flatMap((f) => conjuncts(f.on)),
    ...(sel.from.length > 1 ? whereParts.filter(isJoinCondition) : []),
  ].map(text);
  return { joinConditions, isJoinCondition, whereParts };
}

function tableOf(f: Select['from'][number], dialect: Dialect): ClauseFeatures['tables'][number] {
  return {
    name:
      f.source.kind === 'table'
        ? f.source.name.value
        : f.source.kind === 'derived'
          ? '(subquery)'
          : f.source.kind === 'values'
            ? '(values)'
            : printExpr(f.source.call, dialect),
    alias: f.alias?.value ?? null,
    join: ['FIRST', 'COMMA', 'INNER', 'CROSS'].includes(f.join) ? 'INNER' : f.join,
    derived: f.source.kind === 'derived',
  };
}
