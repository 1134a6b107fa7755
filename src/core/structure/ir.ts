/**
 * The structural layer's own query tree ("IR"). node-sql-parser's ASTs differ
 * by grammar (a column is a string in one, `{expr: {value}}` in another), so
 * every grammar's output is adapted into this one shape (`from-ast.ts`), and
 * everything downstream — the printer, the canonicalization rules, the clause
 * diff, hardness and clause features — works on it alone.
 *
 * The tree is plain JSON (no classes, no cycles), so it crosses the worker
 * boundary and can be compared with {@link sameTree}.
 */

/** An identifier. `quoted` is true when the source spelled it in quotes (its case then matters). */
export interface Ident {
  value: string;
  quoted: boolean;
}

interface Node {
  /** The source wrapped this expression in parentheses. */
  parens?: boolean;
}

export interface ColumnExpr extends Node {
  kind: 'column';
  table: Ident | null;
  name: Ident;
}
export interface StarExpr extends Node {
  kind: 'star';
  table: Ident | null;
}
export interface NumberExpr extends Node {
  kind: 'number';
  /** The literal as written (1.50 stays 1.50: the text is what round-trips). */
  text: string;
}
export interface StringExpr extends Node {
  kind: 'string';
  value: string;
  /** `"` for SQLite's double-quoted strings (an identifier if such a column exists; kept verbatim). */
  quote: "'" | '"';
}
export interface BoolExpr extends Node {
  kind: 'bool';
  value: boolean;
}
export interface NullExpr extends Node {
  kind: 'null';
}
/** `DATE '2025-01-01'`, `TIMESTAMP '...'`. */
export interface TypedLiteralExpr extends Node {
  kind: 'typed';
  type: string;
  value: string;
}
/** Arithmetic, comparison, `||`, LIKE/ILIKE/GLOB/REGEXP (and NOT forms), IS / IS NOT. */
export interface BinaryExpr extends Node {
  kind: 'binary';
  op: string;
  left: Expr;
  right: Expr;
  /** LIKE ... ESCAPE x */
  escape?: Expr | null;
}
/** AND / OR chains, flattened while unparenthesized. */
export interface LogicalExpr extends Node {
  kind: 'logical';
  op: 'AND' | 'OR';
  args: Expr[];
}
export interface NotExpr extends Node {
  kind: 'not';
  arg: Expr;
}
export interface UnaryExpr extends Node {
  kind: 'unary';
  op: string;
  arg: Expr;
}
export interface InExpr extends Node {
  kind: 'in';
  not: boolean;
  arg: Expr;
  /** The value list, or null when the right side is a subquery. */
  values: Expr[] | null;
  query: Query | null;
}
export interface BetweenExpr extends Node {
  kind: 'between';
  not: boolean;
  arg: Expr;
  low: Expr;
  high: Expr;
}
export interface ExistsExpr extends Node {
  kind: 'exists';
  not: boolean;
  query: Query;
}
export interface SubqueryExpr extends Node {
  kind: 'subquery';
  query: Query;
}
export interface FuncExpr extends Node {
  kind: 'func';
  /** As written (a rule folds case). */
  name: string;
  args: Expr[];
  /** COUNT(DISTINCT x) */
  distinct: boolean;
  /** An aggregate function (by name, or because the grammar said so). */
  aggregate: boolean;
  /** COUNT(*) FILTER (WHERE ...) */
  filter: Expr | null;
  over: WindowSpec | null;
  /** string_agg(x, ',' ORDER BY y) */
  orderBy: OrderItem[];
}
export interface CaseExpr extends Node {
  kind: 'case';
  operand: Expr | null;
  whens: { when: Expr; then: Expr }[];
  else: Expr | null;
}
export interface CastExpr extends Node {
  kind: 'cast';
  expr: Expr;
  /** Target type as printed, e.g. `DECIMAL(10, 2)`. */
  type: string;
  style: 'cast' | '::' | 'try_cast';
}
export interface IntervalExpr extends Node {
  kind: 'interval';
  expr: Expr;
  /** '' when the unit is inside the string (`INTERVAL '1 month'`). */
  unit: string;
}
export interface ExtractExpr extends Node {
  kind: 'extract';
  field: string;
  source: Expr;
}
/** A row value `(a, b)`. */
export interface ListExpr extends Node {
  kind: 'list';
  items: Expr[];
}
/** A construct this layer does not model; kept as SQL text so nothing is silently dropped. */
export interface RawExpr extends Node {
  kind: 'raw';
  sql: string;
}

export type Expr =
  | ColumnExpr
  | StarExpr
  | NumberExpr
  | StringExpr
  | BoolExpr
  | NullExpr
  | TypedLiteralExpr
  | BinaryExpr
  | LogicalExpr
  | NotExpr
  | UnaryExpr
  | InExpr
  | BetweenExpr
  | ExistsExpr
  | SubqueryExpr
  | FuncExpr
  | CaseExpr
  | CastExpr
  | IntervalExpr
  | ExtractExpr
  | ListExpr
  | RawExpr;

export interface OrderItem {
  expr: Expr;
  dir: 'ASC' | 'DESC' | null;
  nulls: 'FIRST' | 'LAST' | null;
}

export interface WindowSpec {
  /** `OVER w` (a named window) — then the other fields are empty. */
  ref: string | null;
  partitionBy: Expr[];
  orderBy: OrderItem[];
  /** Frame clause as SQL text (`ROWS BETWEEN 2 PRECEDING AND CURRENT ROW`). */
  frame: string | null;
}

/** How a FROM item is attached to the ones before it. */
export type JoinKind =
  | 'FIRST'
  | 'COMMA'
  | 'INNER'
  | 'LEFT'
  | 'RIGHT'
  | 'FULL'
  | 'CROSS'
  | 'NATURAL INNER'
  | 'NATURAL LEFT'
  | 'NATURAL RIGHT'
  | 'NATURAL FULL';

export type FromSource =
  | { kind: 'table'; schema: Ident | null; name: Ident }
  | { kind: 'derived'; query: Query }
  | { kind: 'values'; rows: Expr[][] }
  | { kind: 'function'; call: Expr };

export interface FromItem {
  source: FromSource;
  alias: Ident | null;
  /** `AS v(id, name)` */
  columnAliases: Ident[];
  join: JoinKind;
  on: Expr | null;
  using: Ident[] | null;
}

export interface SelectItem {
  expr: Expr;
  alias: Ident | null;
}

export interface Cte {
  name: Ident;
  columns: Ident[];
  query: Query;
}

export interface WithClause {
  recursive: boolean;
  ctes: Cte[];
}

export interface Select {
  kind: 'select';
  with: WithClause | null;
  /** null: no DISTINCT; `{on: null}`: DISTINCT; `{on: [...]}`: DISTINCT ON (...). */
  distinct: { on: Expr[] | null } | null;
  columns: SelectItem[];
  from: FromItem[];
  where: Expr | null;
  groupBy: Expr[];
  having: Expr | null;
  /** Named windows: `WINDOW w AS (...)`. */
  windows: { name: string; spec: WindowSpec }[];
  orderBy: OrderItem[];
  limit: Expr | null;
  offset: Expr | null;
  parens?: boolean;
}

/** UNION / INTERSECT / EXCEPT chain as written: arms[0] ops[0] arms[1] ops[1] arms[2] ... */
export interface SetOp {
  kind: 'setop';
  with: WithClause | null;
  arms: Query[];
  /** 'UNION' | 'UNION ALL' | 'INTERSECT' | 'EXCEPT' | ... (upper case) */
  ops: string[];
  orderBy: OrderItem[];
  limit: Expr | null;
  offset: Expr | null;
  parens?: boolean;
}

export type Query = Select | SetOp;

/** Aggregate function names, lower case (both engines). */
export const AGGREGATES = new Set([
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'total',
  'group_concat',
  'string_agg',
  'listagg',
  'array_agg',
  'list',
  'stddev',
  'stddev_pop',
  'stddev_samp',
  'variance',
  'var_pop',
  'var_samp',
  'median',
  'mode',
  'quantile',
  'quantile_cont',
  'quantile_disc',
  'percentile_cont',
  'percentile_disc',
  'arg_max',
  'arg_min',
  'argmax',
  'argmin',
  'max_by',
  'min_by',
  'any_value',
  'first',
  'last',
  'bool_and',
  'bool_or',
  'every',
  'bit_and',
  'bit_or',
  'bit_xor',
  'count_if',
  'countif',
  'approx_count_distinct',
  'corr',
  'covar_pop',
  'covar_samp',
  'entropy',
  'kurtosis',
  'skewness',
  'product',
  'favg',
  'fsum',
  'sumkahan',
  'histogram',
]);

/** Ranking and offset functions that exist only as window functions. */
export const WINDOW_ONLY = new Set([
  'row_number',
  'rank',
  'dense_rank',
  'percent_rank',
  'cume_dist',
  'ntile',
  'lag',
  'lead',
  'first_value',
  'last_value',
  'nth_value',
]);

export function ident(value: string, quoted = false): Ident {
  return { value, quoted };
}

/**
 * Structural equality of two trees (ignoring key order, `undefined` fields and
 * false `parens`): the same answer as comparing their stableJson, without
 * building either string. Canonicalization asks it once per rule per pass, so
 * it walks the trees directly and stops at the first difference; subtrees a
 * rule left untouched are the same object and compare in O(1).
 */
export function sameTree(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++)
      if (!sameTree(a[i] === undefined ? null : a[i], b[i] === undefined ? null : b[i])) return false;
    return true;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    if (Array.isArray(b)) return false;
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    let defined = 0;
    for (const key in ra) {
      const v = ra[key];
      if (!meaningful(key, v)) continue;
      defined++;
      if (!Object.prototype.hasOwnProperty.call(rb, key) || !sameTree(v, rb[key])) return false;
    }
    for (const key in rb) if (meaningful(key, rb[key])) defined--;
    return defined === 0;
  }
  // Primitives: JSON identity (NaN and ±Infinity print as null; -0 as 0).
  if (typeof a === 'number' && typeof b === 'number') return JSON.stringify(a) === JSON.stringify(b);
  if (a === null || b === null) return jsonNull(a) && jsonNull(b);
  return false;
}

/** A key stableJson keeps (functions and symbols never occur in trees). */
function meaningful(key: string, v: unknown): boolean {
  return v !== undefined && !(key === 'parens' && v === false);
}

function jsonNull(v: unknown): boolean {
  return v === null || (typeof v === 'number' && !Number.isFinite(v));
}

/** JSON with sorted keys and without `undefined`/false `parens`: the identity of a tree. */
export function stableJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v === undefined || (key === 'parens' && v === false)) continue;
      out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/** Deep copy (trees are plain JSON). */
export function cloneTree<T>(value: T): T {
  return structuredCloneJson(value);
}

function structuredCloneJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The queries directly nested in an expression (subqueries, IN/EXISTS bodies). */
export function childQueries(expr: Expr): Query[] {
  const out: Query[] = [];
  forEachExpr(expr, (e) => {
    if (e.kind === 'subquery' || e.kind === 'exists') out.push(e.query);
    else if (e.kind === 'in' && e.query) out.push(e.query);
  });
  return out;
}

/**
 * Visit `expr` and its sub-expressions (pre-order), without descending into
 * nested queries. Return false from `visit` to skip a node's children.
 */
export function forEachExpr(expr: Expr, visit: (e: Expr) => boolean | void): void {
  if (visit(expr) === false) return;
  for (const child of exprChildren(expr)) forEachExpr(child, visit);
}

/** Direct sub-expressions (not nested queries). */
export function exprChildren(e: Expr): Expr[] {
  switch (e.kind) {
    case 'binary':
      return e.escape ? [e.left, e.right, e.escape] : [e.left, e.right];
    case 'logical':
      return e.args;
    case 'not':
    case 'unary':
      return [e.arg];
    case 'in':
      return [e.arg, ...(e.values ?? [])];
    case 'between':
      return [e.arg, e.low, e.high];
    case 'func':
      return [
        ...e.args,
        ...(e.filter ? [e.filter] : []),
        ...e.orderBy.map((o) => o.expr),
        ...(e.over ? [...e.over.partitionBy, ...e.over.orderBy.map((o) => o.expr)] : []),
      ];
    case 'case':
      return [
        ...(e.operand ? [e.operand] : []),
        ...e.whens.flatMap((w) => [w.when, w.then]),
        ...(e.else ? [e.else] : []),
      ];
    case 'cast':
      return [e.expr];
    case 'interval':
      return [e.expr];
    case 'extract':
      return [e.source];
    case 'list':
      return e.items;
    default:
      return [];
  }
}

/**
 * `items` with `f` applied to each, or `items` itself when `f` returned every
 * item unchanged: rebuilds share the subtrees they leave alone, so a rule that
 * changes nothing returns the same tree and `sameTree` answers in O(1).
 */
export function mapItems<T>(items: readonly T[], f: (x: T) => T): T[] {
  let out: T[] | null = null;
  for (let i = 0; i < items.length; i++) {
    const x = items[i]!;
    const y = f(x);
    if (out) out.push(y);
    else if (y !== x) {
      out = items.slice(0, i);
      out.push(y);
    }
  }
  return out ?? (items as T[]);
}

/** `{...obj, ...changes}`, or `obj` itself when it already holds every one of the changes. */
export function patch<T extends object>(obj: T, changes: Partial<T>): T {
  for (const key in changes)
    if (!Object.prototype.hasOwnProperty.call(obj, key) || obj[key] !== changes[key]) return { ...obj, ...changes };
  return obj;
}

const patchOrder = (items: OrderItem[], f: (e: Expr) => Expr): OrderItem[] =>
  mapItems(items, (o) => patch(o, { expr: f(o.expr) }));

/**
 * Rebuild an expression bottom-up with `fn` applied to every node (children
 * first). Nested queries are left alone unless `onQuery` is given. Nodes whose
 * children come back unchanged are passed to `fn` as they are (see mapItems).
 */
export function mapExpr(expr: Expr, fn: (e: Expr) => Expr, onQuery?: (q: Query) => Query): Expr {
  const m = (x: Expr) => mapExpr(x, fn, onQuery);
  const q = (x: Query) => (onQuery ? onQuery(x) : x);
  let out: Expr;
  switch (expr.kind) {
    case 'binary':
      out = patch(expr, {
        left: m(expr.left),
        right: m(expr.right),
        ...(expr.escape ? { escape: m(expr.escape) } : {}),
      });
      break;
    case 'logical':
      out = patch(expr, { args: mapItems(expr.args, m) });
      break;
    case 'not':
    case 'unary':
      out = patch(expr, { arg: m(expr.arg) });
      break;
    case 'in':
      out = patch(expr, {
        arg: m(expr.arg),
        values: expr.values ? mapItems(expr.values, m) : null,
        query: expr.query ? q(expr.query) : null,
      });
      break;
    case 'between':
      out = patch(expr, { arg: m(expr.arg), low: m(expr.low), high: m(expr.high) });
      break;
    case 'exists':
    case 'subquery':
      out = patch(expr, { query: q(expr.query) });
      break;
    case 'func':
      out = patch(expr, {
        args: mapItems(expr.args, m),
        filter: expr.filter ? m(expr.filter) : null,
        orderBy: patchOrder(expr.orderBy, m),
        over: expr.over
          ? patch(expr.over, {
              partitionBy: mapItems(expr.over.partitionBy, m),
              orderBy: patchOrder(expr.over.orderBy, m),
            })
          : null,
      });
      break;
    case 'case':
      out = patch(expr, {
        operand: expr.operand ? m(expr.operand) : null,
        whens: mapItems(expr.whens, (w) => {
          const when = m(w.when);
          const then = m(w.then);
          return when === w.when && then === w.then && Object.keys(w).length === 2 ? w : { when, then };
        }),
        else: expr.else ? m(expr.else) : null,
      });
      break;
    case 'cast':
    case 'interval':
      out = patch(expr, { expr: m(expr.expr) });
      break;
    case 'extract':
      out = patch(expr, { source: m(expr.source) });
      break;
    case 'list':
      out = patch(expr, { items: mapItems(expr.items, m) });
      break;
    default:
      out = expr;
  }
  return fn(out);
}

/** Every expression slot of one SELECT (not of nested queries), with a rebuild (sharing what `fn` leaves alone). */
export function mapSelectExprs(select: Select, fn: (e: Expr) => Expr): Select {
  const d = select.distinct;
  let distinct: Select['distinct'] = null;
  if (d) {
    const on = d.on ? mapItems(d.on, fn) : null;
    distinct = on === d.on && Object.keys(d).length === 1 ? d : { on };
  }
  return patch(select, {
    distinct,
    columns: mapItems(select.columns, (c) => patch(c, { expr: fn(c.expr) })),
    from: mapItems(select.from, (f) => patch(f, { on: f.on ? fn(f.on) : null })),
    where: select.where ? fn(select.where) : null,
    groupBy: mapItems(select.groupBy, fn),
    having: select.having ? fn(select.having) : null,
    windows: mapItems(select.windows, (w) =>
      patch(w, {
        spec: patch(w.spec, { partitionBy: mapItems(w.spec.partitionBy, fn), orderBy: patchOrder(w.spec.orderBy, fn) }),
      }),
    ),
    orderBy: patchOrder(select.orderBy, fn),
    limit: select.limit ? fn(select.limit) : null,
    offset: select.offset ? fn(select.offset) : null,
  });
}

/** The expressions of one SELECT's own clauses (not of nested queries). */
export function selectExprs(select: Select): Expr[] {
  const out: Expr[] = [];
  mapSelectExprs(select, (e) => {
    out.push(e);
    return e;
  });
  return out;
}

/**
 * Apply `fn` to every SELECT of a query tree, bottom-up: CTE bodies, set-op
 * arms, derived tables and subqueries inside expressions first.
 */
export function mapQuery(query: Query, fn: (s: Select) => Select): Query {
  const recur = (q: Query) => mapQuery(q, fn);
  const mapWith = (w: WithClause | null): WithClause | null =>
    w ? patch(w, { ctes: mapItems(w.ctes, (c) => patch(c, { query: recur(c.query) })) }) : null;
  // Only expressions that hold a query have a SELECT to reach: the others are left as they are.
  const deep = (e: Expr) => (holdsQuery(e) ? mapExpr(e, (x) => x, recur) : e);
  if (query.kind === 'setop') {
    return patch(query, {
      with: mapWith(query.with),
      arms: mapItems(query.arms, recur),
      orderBy: patchOrder(query.orderBy, deep),
    });
  }
  let s: Select = mapSelectExprs(query, deep);
  s = patch(s, {
    with: mapWith(s.with),
    from: mapItems(s.from, (f) => {
      if (f.source.kind !== 'derived') return f;
      const inner = recur(f.source.query);
      return inner === f.source.query && Object.keys(f.source).length === 2
        ? f
        : { ...f, source: { kind: 'derived', query: inner } };
    }),
  });
  return fn(s);
}

/** Does the expression hold a nested query (subquery, EXISTS, IN (SELECT ...))? */
export function holdsQuery(e: Expr): boolean {
  let found = false;
  forEachExpr(e, (x) => {
    if (x.kind === 'subquery' || x.kind === 'exists' || (x.kind === 'in' && x.query)) found = true;
    return !found;
  });
  return found;
}

/** Every SELECT of a tree (pre-order), nested ones included. */
export function allSelects(query: Query): Select[] {
  const out: Select[] = [];
  mapQuery(query, (s) => {
    out.push(s);
    return s;
  });
  return out;
}

/** The first SELECT of a query (the left-most arm of a set operation). */
export function firstSelect(query: Query): Select {
  return query.kind === 'select' ? query : firstSelect(query.arms[0]!);
}

/** Split a predicate into its top-level AND conjuncts. */
export function conjuncts(expr: Expr | null): Expr[] {
  if (!expr) return [];
  if (expr.kind === 'logical' && expr.op === 'AND') return expr.args.flatMap((a) => conjuncts({ ...a, parens: false }));
  return [expr];
}

/** Join conjuncts back into one predicate (null for none). */
export function andAll(parts: Expr[]): Expr | null {
  if (parts.length === 0) return null;
  if (parts.length === 1) return parts[0]!;
  return { kind: 'logical', op: 'AND', args: parts };
}
