/**
 * node-sql-parser AST (any of the grammars we use) → the structural IR.
 *
 * Strict by design: a SELECT key the adapter does not know, holding a value,
 * is an {@link UnsupportedConstructError} naming it (never silently dropped),
 * so a clause we cannot model blocks the structural layer instead of being
 * compared wrongly. Unknown *expression* node types are kept verbatim as
 * `raw` SQL text produced by the grammar's own printer.
 */
import type {
  Cte,
  Expr,
  FromItem,
  Ident,
  JoinKind,
  OrderItem,
  Query,
  Select,
  SelectItem,
  WindowSpec,
  WithClause,
} from './ir.ts';
import { AGGREGATES } from './ir.ts';

/* node-sql-parser's AST is loosely typed JSON; this module is where it is read. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AstNode = any;

export class UnsupportedConstructError extends Error {
  constructor(readonly construct: string) {
    super(`unsupported construct: ${construct}`);
  }
}

export interface AdaptContext {
  /** Identifiers the source spelled in quotes (their case is kept). */
  quoted: ReadonlySet<string>;
  /** Print one expression node with the grammar's own printer (for `raw`). */
  exprToSql: (node: AstNode) => string;
}

/** Keys of a SELECT node we read, or know to be empty/irrelevant. */
const SELECT_KEYS = new Set([
  'with',
  'type',
  'options',
  'distinct',
  'columns',
  'into',
  'from',
  'where',
  'groupby',
  'having',
  'orderby',
  'limit',
  'window',
  'for_update',
  'locking_read',
  'collate',
  '_next',
  'set_op',
  'parentheses',
  'loc',
  'tableList',
  'columnList',
  'ast',
  'parentheses_symbol',
]);

export function adaptQuery(node: AstNode, ctx: AdaptContext): Query {
  if (node && node.ast && node.type === undefined) return adaptQuery(node.ast, ctx);
  if (!node || node.type !== 'select') {
    throw new UnsupportedConstructError(
      node?.type ? `${String(node.type).toUpperCase()} statement` : 'non-SELECT statement',
    );
  }
  // A set-operation chain: select._next / set_op.
  if (node._next) {
    const arms: Select[] = [];
    const ops: string[] = [];
    let cur: AstNode = node;
    while (cur) {
      arms.push(adaptSelect(cur, ctx, arms.length > 0));
      if (cur._next)
        ops.push(
          String(cur.set_op ?? 'union')
            .toUpperCase()
            .replace(/\s+/g, ' '),
        );
      cur = cur._next;
    }
    // ORDER BY / LIMIT written after the last arm belong to the whole chain.
    const last = arms[arms.length - 1]!;
    const withClause = arms[0]!.with;
    arms[0] = { ...arms[0]!, with: null };
    const out: Query = {
      kind: 'setop',
      with: withClause,
      arms: arms.map((a, i) =>
        i === arms.length - 1 && !a.parens ? { ...a, orderBy: [], limit: null, offset: null } : a,
      ),
      ops,
      orderBy: last.parens ? [] : last.orderBy,
      limit: last.parens ? null : last.limit,
      offset: last.parens ? null : last.offset,
    };
    return out;
  }
  return adaptSelect(node, ctx, false);
}

function adaptSelect(node: AstNode, ctx: AdaptContext, _isArm: boolean): Select {
  for (const key of Object.keys(node)) {
    if (SELECT_KEYS.has(key)) continue;
    const v = node[key];
    if (v === null || v === undefined || v === false || (Array.isArray(v) && v.length === 0)) continue;
    throw new UnsupportedConstructError(key.toUpperCase().replace(/_/g, ' '));
  }
  if (node.options && (!Array.isArray(node.options) || node.options.length > 0)) {
    throw new UnsupportedConstructError(`SELECT option ${JSON.stringify(node.options)}`);
  }
  if (node.into && (node.into.expr || node.into.type)) throw new UnsupportedConstructError('SELECT INTO');
  const { limit, offset } = adaptLimit(node.limit, ctx);
  const select: Select = {
    kind: 'select',
    with: adaptWith(node.with, ctx),
    distinct: adaptDistinct(node.distinct, ctx),
    columns: adaptColumns(node.columns, ctx),
    from: adaptFrom(node.from, ctx),
    where: node.where ? expr(node.where, ctx) : null,
    groupBy: adaptGroupBy(node.groupby, ctx),
    having: node.having ? expr(node.having, ctx) : null,
    windows: adaptWindows(node.window, ctx),
    orderBy: adaptOrder(node.orderby, ctx),
    limit,
    offset,
  };
  if (node.parentheses || node._parentheses) select.parens = true;
  return select;
}

function adaptWith(list: AstNode, ctx: AdaptContext): WithClause | null {
  if (!list || !Array.isArray(list) || list.length === 0) return null;
  const ctes: Cte[] = list.map((w: AstNode) => ({
    name: identOf(w.name, ctx),
    columns: Array.isArray(w.columns) ? w.columns.map((c: AstNode) => identOf(c.column ?? c, ctx)) : [],
    query: adaptQuery(w.stmt?.ast ?? w.stmt, ctx),
  }));
  return { recursive: list.some((w: AstNode) => w.recursive === true), ctes };
}

function adaptDistinct(d: AstNode, ctx: AdaptContext): Select['distinct'] {
  if (!d) return null;
  if (typeof d === 'string') return /distinct/i.test(d) ? { on: null } : null;
  if (d.type === null || d.type === undefined) return null;
  if (/on/i.test(String(d.type)) && Array.isArray(d.columns))
    return { on: d.columns.map((c: AstNode) => expr(c.expr ?? c, ctx)) };
  if (/distinct/i.test(String(d.type))) return { on: null };
  if (/all/i.test(String(d.type))) return null;
  throw new UnsupportedConstructError(`SELECT ${String(d.type)}`);
}

function adaptColumns(cols: AstNode, ctx: AdaptContext): SelectItem[] {
  if (cols === '*') return [{ expr: { kind: 'star', table: null }, alias: null }];
  if (!Array.isArray(cols)) throw new UnsupportedConstructError('select list');
  return cols.map((c: AstNode) => {
    if (c === '*') return { expr: { kind: 'star', table: null }, alias: null };
    const e = expr(c.expr ?? c, ctx);
    return { expr: e, alias: c.as ? aliasOf(c.as, ctx) : null };
  });
}

function adaptGroupBy(g: AstNode, ctx: AdaptContext): Expr[] {
  if (!g) return [];
  const cols = Array.isArray(g) ? g : g.columns;
  if (g.modifiers && g.modifiers.some((m: AstNode) => m)) throw new UnsupportedConstructError('GROUP BY modifier');
  if (!cols) return [];
  return cols.map((c: AstNode) => expr(c, ctx));
}

function adaptOrder(list: AstNode, ctx: AdaptContext): OrderItem[] {
  if (!list || !Array.isArray(list)) return [];
  return list.map((o: AstNode) => ({
    expr: expr(o.expr, ctx),
    dir: o.type ? (String(o.type).toUpperCase() === 'DESC' ? 'DESC' : 'ASC') : null,
    nulls: o.nulls ? (/first/i.test(String(o.nulls)) ? 'FIRST' : 'LAST') : null,
  }));
}

function adaptLimit(limit: AstNode, ctx: AdaptContext): { limit: Expr | null; offset: Expr | null } {
  if (!limit || !Array.isArray(limit.value) || limit.value.length === 0) return { limit: null, offset: null };
  const vals = limit.value.map((v: AstNode) => expr(v, ctx));
  if (vals.length === 1) return { limit: vals[0]!, offset: null };
  // `LIMIT a, b` (MySQL/SQLite) is LIMIT b OFFSET a; `LIMIT a OFFSET b` is LIMIT a OFFSET b.
  if (limit.seperator === ',') return { limit: vals[1]!, offset: vals[0]! };
  return { limit: vals[0]!, offset: vals[1]! };
}

function adaptWindows(w: AstNode, ctx: AdaptContext): Select['windows'] {
  if (!w || !Array.isArray(w.expr)) return [];
  return w.expr.map((item: AstNode) => ({
    name: String(item.name),
    spec: windowSpec(item.as_window_specification, ctx),
  }));
}

const JOIN_KINDS: Record<string, JoinKind> = {
  'INNER JOIN': 'INNER',
  JOIN: 'INNER',
  'LEFT JOIN': 'LEFT',
  'LEFT OUTER JOIN': 'LEFT',
  'RIGHT JOIN': 'RIGHT',
  'RIGHT OUTER JOIN': 'RIGHT',
  'FULL JOIN': 'FULL',
  'FULL OUTER JOIN': 'FULL',
  'CROSS JOIN': 'CROSS',
  'NATURAL JOIN': 'NATURAL INNER',
  'NATURAL INNER JOIN': 'NATURAL INNER',
  'NATURAL LEFT JOIN': 'NATURAL LEFT',
  'NATURAL LEFT OUTER JOIN': 'NATURAL LEFT',
  'NATURAL RIGHT JOIN': 'NATURAL RIGHT',
  'NATURAL FULL JOIN': 'NATURAL FULL',
};

/** DuckDB join kinds the grammars read as a table alias (`a ASOF JOIN b` → `a AS asof JOIN b`). */
const DUCKDB_JOINS = new Set(['ASOF', 'POSITIONAL', 'SEMI', 'ANTI']);
const JOIN_WORDS = new Set(['CROSS', 'NATURAL', 'LEFT', 'RIGHT', 'FULL', 'INNER', 'OUTER', 'JOIN']);

function adaptFrom(from: AstNode, ctx: AdaptContext): FromItem[] {
  if (!from) return [];
  const list = (Array.isArray(from) ? from : [from]).map((f: AstNode) => ({ ...f }));
  // The sqlite and noql grammars read `a CROSS JOIN b` as `a AS "CROSS" JOIN b`
  // (and NATURAL likewise); repair when the next item is a bare JOIN.
  for (let i = 0; i + 1 < list.length; i++) {
    const word = typeof list[i].as === 'string' ? list[i].as.toUpperCase() : '';
    const next = list[i + 1];
    if (DUCKDB_JOINS.has(word) && next.join) throw new UnsupportedConstructError(`${word} JOIN`);
    if (
      (word === 'CROSS' || word === 'NATURAL') &&
      /^(INNER )?JOIN$/i.test(String(next.join ?? '')) &&
      !next.on &&
      !next.using
    ) {
      list[i].as = null;
      next.join = word === 'CROSS' ? 'CROSS JOIN' : 'NATURAL JOIN';
    }
  }
  return list.map((f: AstNode, i: number) => {
    let join: JoinKind = i === 0 ? 'FIRST' : 'COMMA';
    if (f.join) {
      const k = JOIN_KINDS[String(f.join).toUpperCase().replace(/\s+/g, ' ')];
      if (!k) throw new UnsupportedConstructError(String(f.join).toUpperCase());
      join = k;
    }
    if (f.type === 'dual') throw new UnsupportedConstructError('FROM DUAL');
    let source: FromItem['source'];
    let alias: Ident | null = null;
    let columnAliases: Ident[] = [];
    if (f.table !== undefined && f.expr === undefined) {
      source = { kind: 'table', schema: f.db ? identOf(f.db, ctx) : null, name: identOf(f.table, ctx) };
    } else if (f.expr && (f.expr.ast || f.expr.type === 'select')) {
      source = { kind: 'derived', query: adaptQuery(f.expr.ast ?? f.expr, ctx) };
    } else if (f.expr && f.expr.type === 'values') {
      source = {
        kind: 'values',
        rows: f.expr.values.map((row: AstNode) => (row.value ?? [row]).map((v: AstNode) => expr(v, ctx))),
      };
    } else if (f.expr && (f.expr.type === 'function' || f.type === 'expr')) {
      source = { kind: 'function', call: expr(f.expr, ctx) };
    } else {
      throw new UnsupportedConstructError('FROM item');
    }
    if (f.as && typeof f.as === 'string' && JOIN_WORDS.has(f.as.toUpperCase())) {
      // The sqlite grammar reads `a CROSS JOIN b` as `a AS "CROSS" JOIN b`.
      throw new UnsupportedConstructError(`${f.as.toUpperCase()} JOIN`);
    }
    if (f.as) {
      const m = /^([^()]+)\((.*)\)$/s.exec(String(typeof f.as === 'string' ? f.as : (f.as.value ?? '')));
      if (m) {
        alias = ident(m[1]!.trim(), ctx);
        columnAliases = m[2]!.split(',').map((c) => ident(c.trim(), ctx));
      } else alias = aliasOf(f.as, ctx);
    }
    if (f.lateral || f.prefix === 'LATERAL') throw new UnsupportedConstructError('LATERAL');
    if (f.tablesample || f.sample) throw new UnsupportedConstructError('TABLESAMPLE');
    const using = Array.isArray(f.using) ? f.using.map((u: AstNode) => identOf(u, ctx)) : null;
    return { source, alias, columnAliases, join, on: f.on ? expr(f.on, ctx) : null, using };
  });
}

const PLAIN = /^[A-Za-z_][A-Za-z0-9_]*$/;

function ident(value: string, ctx: AdaptContext): Ident {
  if (ctx.quoted.has(value)) return { value, quoted: true };
  // An unquoted name that is not a plain identifier is a mis-lexed token
  // (the sqlite grammar reads `a::INTEGER` and `'x\'` as column names).
  if (!PLAIN.test(value)) throw new UnsupportedConstructError(`unparsed token \`${value}\``);
  return { value, quoted: false };
}

/** A name that may be a string or `{type, value}` / `{expr: {value}}`. */
function identOf(n: AstNode, ctx: AdaptContext): Ident {
  if (typeof n === 'string') return ident(n, ctx);
  if (n && typeof n === 'object') {
    if (n.expr) return identOf(n.expr, ctx);
    if (typeof n.value === 'string')
      return n.type !== 'default' && n.type !== undefined ? { value: n.value, quoted: true } : ident(n.value, ctx);
  }
  throw new UnsupportedConstructError('identifier');
}

function aliasOf(a: AstNode, ctx: AdaptContext): Ident {
  return identOf(a, ctx);
}

function nameOfFunc(name: AstNode): string {
  if (typeof name === 'string') return name;
  if (name && Array.isArray(name.name)) return name.name.map((p: AstNode) => p.value).join('.');
  if (name && typeof name.value === 'string') return name.value;
  throw new UnsupportedConstructError('function name');
}

function argList(args: AstNode, ctx: AdaptContext): Expr[] {
  if (!args) return [];
  if (args.type === 'expr_list') return (args.value ?? []).map((a: AstNode) => expr(a, ctx));
  if (Array.isArray(args)) return args.map((a: AstNode) => expr(a, ctx));
  return [expr(args, ctx)];
}

function windowSpec(over: AstNode, ctx: AdaptContext): WindowSpec {
  if (typeof over === 'string') return { ref: over, partitionBy: [], orderBy: [], frame: null };
  const spec = over?.window_specification ?? over;
  if (!spec || typeof spec !== 'object') throw new UnsupportedConstructError('window specification');
  if (spec.name) return { ref: String(spec.name), partitionBy: [], orderBy: [], frame: null };
  const partition = spec.partitionby ?? [];
  return {
    ref: null,
    partitionBy: (Array.isArray(partition) ? partition : [partition]).map((p: AstNode) => expr(p.expr ?? p, ctx)),
    orderBy: adaptOrder(spec.orderby, ctx),
    frame: spec.window_frame_clause ? frameText(spec.window_frame_clause, ctx) : null,
  };
}

function frameText(f: AstNode, ctx: AdaptContext): string {
  if (typeof f === 'string') return f.toUpperCase();
  if (f.type === 'binary_expr' && f.operator === 'BETWEEN' && f.left?.type === 'origin') {
    const bound = (b: AstNode) => (b.type === 'origin' ? String(b.value) : String(b.value)).toUpperCase();
    return `${String(f.left.value).toUpperCase()} BETWEEN ${bound(f.right.value[0])} AND ${bound(f.right.value[1])}`;
  }
  if (f.raw) return String(f.raw).toUpperCase();
  return ctx.exprToSql(f).toUpperCase();
}

function over(o: AstNode, ctx: AdaptContext): WindowSpec | null {
  if (!o) return null;
  if (o.type === 'window' || o.as_window_specification !== undefined) return windowSpec(o.as_window_specification, ctx);
  return windowSpec(o, ctx);
}

const BINARY_ALIASES: Record<string, string> = { '==': '=' };

/** One expression node. */
export function expr(n: AstNode, ctx: AdaptContext): Expr {
  const e = exprInner(n, ctx);
  if (n && typeof n === 'object' && n.parentheses === true && e.kind !== 'subquery') e.parens = true;
  return e;
}

function exprInner(n: AstNode, ctx: AdaptContext): Expr {
  if (n === null || n === undefined) throw new UnsupportedConstructError('empty expression');
  if (typeof n === 'number') return { kind: 'number', text: String(n) };
  if (typeof n === 'string') return { kind: 'raw', sql: n };
  if (n.ast) return { kind: 'subquery', query: adaptQuery(n.ast, ctx) };
  // `'ANN' COLLATE NOCASE`: the SQLite grammar hangs the COLLATE on a literal as a suffix the readers never
  // read, so the predicate lost it. Kept verbatim instead.
  if (n.suffix?.collate) return raw(n, ctx);
  const read = NODE_READERS.get(n.type);
  return read ? read(n, ctx) : raw(n, ctx);
}

type NodeReader = (n: AstNode, ctx: AdaptContext) => Expr;

const stringOf =
  (quote: "'" | '"'): NodeReader =>
  (n) => ({ kind: 'string', value: String(n.value), quote });
const numberOf: NodeReader = (n) => ({ kind: 'number', text: String(n.value) });
const typedOf: NodeReader = (n) => ({ kind: 'typed', type: String(n.type).toUpperCase(), value: String(n.value) });
const boolOf: NodeReader = (n) => ({
  kind: 'bool',
  value: n.value === true || String(n.value).toUpperCase() === 'TRUE',
});

/** The expression node types the adapter models, by the grammars' `type`; any other is kept as raw SQL. */
const NODE_READERS = new Map<string, NodeReader>([
  ['column_ref', columnRef],
  ['star', () => ({ kind: 'star', table: null })],
  ['number', numberOf],
  ['bigint', numberOf],
  ['single_quote_string', stringOf("'")],
  ['string', stringOf("'")],
  ['double_quote_string', stringOf('"')],
  ['bool', boolOf],
  ['boolean', boolOf],
  ['null', () => ({ kind: 'null' })],
  ['date', typedOf],
  ['time', typedOf],
  ['timestamp', typedOf],
  ['datetime', typedOf],
  ['binary_expr', (n, ctx) => binary(n, ctx)],
  ['unary_expr', unary],
  ['expr_list', (n, ctx) => ({ kind: 'list', items: (n.value ?? []).map((v: AstNode) => expr(v, ctx)) })],
  ['aggr_func', aggregateCall],
  ['function', functionCall],
  ['window_func', functionCall],
  ['case', caseOf],
  ['cast', castOf],
  ['interval', (n, ctx) => ({ kind: 'interval', expr: expr(n.expr, ctx), unit: String(n.unit ?? '').toUpperCase() })],
  [
    'extract',
    (n, ctx) =>
      !n.args?.source || n.args.cast_type
        ? raw(n, ctx)
        : { kind: 'extract', field: String(n.args.field).toUpperCase(), source: expr(n.args.source, ctx) },
  ],
]);

function columnRef(n: AstNode, ctx: AdaptContext): Expr {
  if (n.collate) return raw(n, ctx);
  const table = n.table ? identOf(n.table, ctx) : null;
  if (n.column === '*') return { kind: 'star', table };
  if (n.schema || n.db) return raw(n, ctx);
  // The postgresql grammar reads an unterminated-looking '...\' as a column named by a string.
  const colExpr = n.column?.expr;
  if (colExpr && (colExpr.type === 'single_quote_string' || colExpr.type === 'string'))
    return { kind: 'string', value: String(colExpr.value), quote: "'" };
  return { kind: 'column', table, name: identOf(n.column, ctx) };
}

function unary(n: AstNode, ctx: AdaptContext): Expr {
  const op = String(n.operator).toUpperCase();
  if (op === 'NOT') return { kind: 'not', arg: expr(n.expr, ctx) };
  if (op === 'NOT EXISTS' || op === 'EXISTS') {
    const q = n.expr?.ast ?? n.expr;
    return { kind: 'exists', not: op === 'NOT EXISTS', query: adaptQuery(q, ctx) };
  }
  return { kind: 'unary', op, arg: expr(n.expr, ctx) };
}

function aggregateCall(n: AstNode, ctx: AdaptContext): Expr {
  const a = n.args ?? {};
  if (a.separator || a.parentheses === false) return raw(n, ctx);
  return {
    kind: 'func',
    name: nameOfFunc(n.name),
    args: a.expr ? argList(a.expr, ctx) : [],
    distinct: /distinct/i.test(String(a.distinct ?? '')),
    aggregate: true,
    filter: n.filter?.where ? expr(n.filter.where, ctx) : null,
    over: over(n.over, ctx),
    orderBy: adaptOrder(a.orderby, ctx),
  };
}

function functionCall(n: AstNode, ctx: AdaptContext): Expr {
  const name = nameOfFunc(n.name);
  const upper = name.toUpperCase();
  if (upper === 'NOT' && n.args?.value?.length === 1)
    return { kind: 'not', arg: { ...expr(n.args.value[0], ctx), parens: true } };
  if ((upper === 'EXISTS' || upper === 'NOT EXISTS') && n.args?.value?.length === 1) {
    const q = n.args.value[0];
    return { kind: 'exists', not: upper === 'NOT EXISTS', query: adaptQuery(q.ast ?? q, ctx) };
  }
  if (n.args_parentheses === false || n.suffix || n.within_group) return raw(n, ctx);
  return {
    kind: 'func',
    name,
    args: argList(n.args, ctx),
    distinct: false,
    aggregate: AGGREGATES.has(name.toLowerCase()),
    filter: n.filter?.where ? expr(n.filter.where, ctx) : null,
    over: over(n.over, ctx),
    orderBy: [],
  };
}

function caseOf(n: AstNode, ctx: AdaptContext): Expr {
  const whens: { when: Expr; then: Expr }[] = [];
  let elseExpr: Expr | null = null;
  for (const a of n.args ?? []) {
    if (a.type === 'when') whens.push({ when: expr(a.cond, ctx), then: expr(a.result, ctx) });
    else elseExpr = expr(a.result, ctx);
  }
  return { kind: 'case', operand: n.expr ? expr(n.expr, ctx) : null, whens, else: elseExpr };
}

function castOf(n: AstNode, ctx: AdaptContext): Expr {
  const target = Array.isArray(n.target) ? n.target : [n.target];
  if (target.length !== 1) return raw(n, ctx);
  const t = target[0];
  let type = String(t.dataType ?? '').toUpperCase();
  if (!type) return raw(n, ctx);
  if (t.length !== undefined && t.length !== null)
    type += `(${t.length}${t.scale !== undefined && t.scale !== null ? `, ${t.scale}` : ''})`;
  if (Array.isArray(t.suffix) && t.suffix.length) return raw(n, ctx);
  const style = n.symbol === '::' ? '::' : String(n.keyword).toLowerCase() === 'try_cast' ? 'try_cast' : 'cast';
  return { kind: 'cast', expr: expr(n.expr, ctx), type, style };
}

function raw(n: AstNode, ctx: AdaptContext): Expr {
  return { kind: 'raw', sql: ctx.exprToSql(n) };
}

function binary(n: AstNode, ctx: AdaptContext): Expr {
  let op = String(n.operator).toUpperCase().replace(/\s+/g, ' ');
  op = BINARY_ALIASES[op] ?? op;
  if (op === 'AND' || op === 'OR') return logical(n, ctx);
  if (op === 'IN' || op === 'NOT IN') {
    const right = n.right;
    const not = op === 'NOT IN';
    const arg = expr(n.left, ctx);
    if (right?.type === 'expr_list') {
      const vals = right.value ?? [];
      if (vals.length === 1 && vals[0]?.ast)
        return { kind: 'in', not, arg, values: null, query: adaptQuery(vals[0].ast, ctx) };
      return { kind: 'in', not, arg, values: vals.map((v: AstNode) => expr(v, ctx)), query: null };
    }
    if (right?.ast) return { kind: 'in', not, arg, values: null, query: adaptQuery(right.ast, ctx) };
    return raw(n, ctx);
  }
  if (op === 'BETWEEN' || op === 'NOT BETWEEN') {
    const vals = n.right?.value;
    if (!Array.isArray(vals) || vals.length !== 2) return raw(n, ctx);
    return {
      kind: 'between',
      not: op === 'NOT BETWEEN',
      arg: expr(n.left, ctx),
      low: expr(vals[0], ctx),
      high: expr(vals[1], ctx),
    };
  }
  const right = n.right;
  if (right && right.type === 'expr_list' && !/^(=|<>|!=|<|>|<=|>=)$/.test(op)) return raw(n, ctx);
  // `x -> x + 1` (a DuckDB lambda) is read as the JSON operator `(x -> x) + 1`.
  if (op === '->' && n.left?.type === 'column_ref' && !n.left.table) throw new UnsupportedConstructError('lambda ->');
  const out: Expr = { kind: 'binary', op, left: expr(n.left, ctx), right: expr(right, ctx) };
  // node-sql-parser hangs `ESCAPE x` on the pattern (n.right.escape), not on the LIKE node: keep it (raw text).
  if (n.escape || right?.escape) return raw(n, ctx);
  return out;
}

/**
 * node-sql-parser gives AND and OR the same precedence and associates them to
 * the left (`a OR b AND c` becomes `(a OR b) AND c`; upstream issue
 * taozhi8833998/node-sql-parser#1154). The in-order sequence of operands and
 * operators is still the source's, so it is read back flat and rebuilt with
 * SQL's precedence: AND binds tighter than OR. Parenthesized groups stay whole.
 */
function logical(n: AstNode, ctx: AdaptContext): Expr {
  const operands: AstNode[] = [];
  const ops: ('AND' | 'OR')[] = [];
  const walk = (node: AstNode, top: boolean) => {
    const op = node?.type === 'binary_expr' ? String(node.operator).toUpperCase() : '';
    if ((op === 'AND' || op === 'OR') && (top || !node.parentheses)) {
      walk(node.left, false);
      ops.push(op);
      walk(node.right, false);
    } else operands.push(node);
  };
  walk(n, true);
  const groups: Expr[][] = [[expr(operands[0], ctx)]];
  ops.forEach((op, i) => {
    const next = expr(operands[i + 1], ctx);
    if (op === 'OR') groups.push([next]);
    else groups[groups.length - 1]!.push(next);
  });
  const flat = (op: 'AND' | 'OR', items: Expr[]): Expr[] =>
    items.flatMap((e) => (e.kind === 'logical' && e.op === op && !e.parens ? e.args : [e]));
  const ands = groups.map((g) =>
    g.length === 1 ? g[0]! : ({ kind: 'logical', op: 'AND', args: flat('AND', g) } as Expr),
  );
  return ands.length === 1 ? ands[0]! : { kind: 'logical', op: 'OR', args: flat('OR', ands) };
}
