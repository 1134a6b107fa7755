/**
 * IR → SQL text. One line, single spaces, upper-case keywords, parentheses
 * where the source had them or where precedence needs them. The printer is
 * where the canonical form's *layout* comes from (keyword case, whitespace);
 * the rules in `rules/` decide its *content*.
 */
import type { Expr, FromItem, Ident, OrderItem, Query, Select, WindowSpec, WithClause } from './ir.ts';

export type PrintDialect = 'duckdb' | 'sqlite';

/** Words that must be quoted to be read as identifiers. */
const RESERVED = new Set(
  (
    'all alter and any as asc between by case cast check collate column constraint create cross current_date current_time ' +
    'current_timestamp default delete desc distinct drop else end escape except exists false fetch filter for foreign from ' +
    'full glob group having ilike in index inner insert intersect interval into is isnull join lateral left like limit ' +
    'natural not notnull null offset on or order outer over partition pivot primary qualify references regexp right ' +
    'select set similar some table then to true union unique unpivot update using values when where window with'
  ).split(' '),
);

/**
 * An identifier as SQL: bare when it may be, else quoted — with backticks for
 * SQLite (where a double-quoted word in an expression may read as a string),
 * double quotes for DuckDB.
 */
export function printIdent(id: Ident, dialect: PrintDialect = 'duckdb'): string {
  const plain = /^[A-Za-z_][A-Za-z0-9_]*$/.test(id.value) && !RESERVED.has(id.value.toLowerCase());
  if (!id.quoted && plain) return id.value;
  if (dialect === 'sqlite') return `\`${id.value.replace(/`/g, '``')}\``;
  return `"${id.value.replace(/"/g, '""')}"`;
}

/** Binding strength; higher binds tighter. `||` and bit operators are kept apart from arithmetic (engines disagree). */
export function precedence(e: Expr): number {
  switch (e.kind) {
    case 'logical':
      return e.op === 'OR' ? 1 : 2;
    case 'not':
      return 3;
    case 'in':
    case 'between':
      return 4;
    case 'binary':
      return binaryPrecedence(e.op);
    case 'unary':
      return 9;
    default:
      return 10;
  }
}

export function binaryPrecedence(op: string): number {
  if (/^(=|==|<>|!=|<|>|<=|>=|IS|IS NOT|IS DISTINCT FROM|IS NOT DISTINCT FROM)$/.test(op)) return 4;
  if (/(LIKE|GLOB|REGEXP|MATCH|SIMILAR TO)$/.test(op)) return 4;
  if (op === '||') return 5.5;
  if (op === '+' || op === '-') return 6;
  if (op === '*' || op === '/' || op === '%' || op === '//') return 7;
  return 5;
}

/**
 * Must `child` be parenthesized as an operand of an operator of precedence
 * `parentPrec` (on its right side when `right`)? Conservative where the engines
 * disagree: `||` against arithmetic (SQLite binds `||` tighter, DuckDB looser)
 * and comparisons nested in comparisons (SQLite ranks < above =).
 */
export function needsParens(child: Expr, parentPrec: number, right: boolean): boolean {
  const p = precedence(child);
  const arithmetic = (x: number) => x >= 5 && x <= 7;
  const mixedConcat = (p === 5.5) !== (parentPrec === 5.5) && arithmetic(p) && arithmetic(parentPrec);
  return p < parentPrec || (right && p === parentPrec && p >= 4) || mixedConcat || (p === 4 && parentPrec === 4);
}

export function printQuery(q: Query, dialect: PrintDialect = 'duckdb'): string {
  return new Printer(dialect).query(q);
}

/** An expression as SQL without its own parentheses (`printExpr({ ...e, parens: false })`). */
export function printExprBare(e: Expr, dialect: PrintDialect = 'duckdb'): string {
  return new Printer(dialect).bare(e);
}

/** A FROM list as SQL (the text after `FROM`). */
export function printFrom(items: FromItem[], dialect: PrintDialect = 'duckdb'): string {
  return new Printer(dialect).from(items);
}

/**
 * Texts of frozen expressions (the shared trees of memo.ts), per dialect: a
 * frozen node never changes, and the same nodes are printed many times over
 * (sort keys of several rules in every pass, clause texts, features, probes).
 */
const frozenTexts = new Map<PrintDialect, WeakMap<Expr | Query, string>>();

function textsOf(dialect: PrintDialect): WeakMap<Expr | Query, string> {
  let texts = frozenTexts.get(dialect);
  if (!texts) frozenTexts.set(dialect, (texts = new WeakMap()));
  return texts;
}

export function printExpr(e: Expr, dialect: PrintDialect = 'duckdb'): string {
  return new Printer(dialect).expr(e);
}

class Printer {
  private readonly texts: WeakMap<Expr | Query, string>;
  constructor(readonly dialect: PrintDialect) {
    this.texts = textsOf(dialect);
  }

  private id(i: Ident): string {
    return printIdent(i, this.dialect);
  }

  query(q: Query): string {
    // Nested queries of shared trees are printed again by every comparison with them (subqueries, arms, CTEs).
    const frozen = Object.isFrozen(q);
    let text = frozen ? this.texts.get(q) : undefined;
    if (text === undefined) {
      text = q.kind === 'select' ? this.select(q) : this.setop(q);
      if (frozen) this.texts.set(q, text);
    }
    return text;
  }

  private withClause(w: WithClause | null): string {
    if (!w || w.ctes.length === 0) return '';
    const ctes = w.ctes.map((c) => {
      const cols = c.columns.length ? `(${c.columns.map((x) => this.id(x)).join(', ')})` : '';
      return `${this.id(c.name)}${cols} AS (${this.query(c.query)})`;
    });
    return `WITH ${w.recursive ? 'RECURSIVE ' : ''}${ctes.join(', ')} `;
  }

  private arm(q: Query): string {
    const text = this.query(q);
    return q.parens ? `(${text})` : text;
  }

  private setop(q: Extract<Query, { kind: 'setop' }>): string {
    let out = this.withClause(q.with) + this.arm(q.arms[0]!);
    q.ops.forEach((op, i) => {
      out += ` ${op} ${this.arm(q.arms[i + 1]!)}`;
    });
    return out + this.tail(q.orderBy, q.limit, q.offset);
  }

  private tail(orderBy: OrderItem[], limit: Expr | null, offset: Expr | null): string {
    let out = '';
    if (orderBy.length) out += ` ORDER BY ${orderBy.map((o) => this.orderItem(o)).join(', ')}`;
    if (limit) out += ` LIMIT ${this.expr(limit)}`;
    if (offset) out += `${limit ? '' : this.dialect === 'sqlite' ? ' LIMIT -1' : ''} OFFSET ${this.expr(offset)}`;
    return out;
  }

  private select(s: Select): string {
    let out = this.withClause(s.with) + 'SELECT ';
    if (s.distinct)
      out += s.distinct.on ? `DISTINCT ON (${s.distinct.on.map((e) => this.expr(e)).join(', ')}) ` : 'DISTINCT ';
    out += s.columns.map((c) => this.expr(c.expr) + (c.alias ? ` AS ${this.id(c.alias)}` : '')).join(', ');
    if (s.from.length) out += ` FROM ${this.from(s.from)}`;
    if (s.where) out += ` WHERE ${this.expr(s.where)}`;
    if (s.groupBy.length) out += ` GROUP BY ${s.groupBy.map((e) => this.expr(e)).join(', ')}`;
    if (s.having) out += ` HAVING ${this.expr(s.having)}`;
    if (s.windows.length)
      out += ` WINDOW ${s.windows.map((w) => `${w.name} AS (${this.windowBody(w.spec)})`).join(', ')}`;
    return out + this.tail(s.orderBy, s.limit, s.offset);
  }

  from(items: FromItem[]): string {
    let out = '';
    items.forEach((f, i) => {
      const src = this.fromSource(f);
      if (i === 0) out += src;
      else if (f.join === 'COMMA') out += `, ${src}`;
      else out += ` ${f.join === 'INNER' ? 'JOIN' : `${f.join} JOIN`} ${src}`;
      if (f.on) out += ` ON ${this.expr(f.on)}`;
      if (f.using) out += ` USING (${f.using.map((x) => this.id(x)).join(', ')})`;
    });
    return out;
  }

  private fromSource(f: FromItem): string {
    let src: string;
    switch (f.source.kind) {
      case 'table':
        src = (f.source.schema ? `${this.id(f.source.schema)}.` : '') + this.id(f.source.name);
        break;
      case 'derived':
        src = `(${this.query(f.source.query)})`;
        break;
      case 'values':
        src = `(VALUES ${f.source.rows.map((r) => `(${r.map((e) => this.expr(e)).join(', ')})`).join(', ')})`;
        break;
      case 'function':
        src = this.expr(f.source.call);
        break;
    }
    if (f.alias) src += ` AS ${this.id(f.alias)}`;
    if (f.columnAliases.length) src += `(${f.columnAliases.map((x) => this.id(x)).join(', ')})`;
    return src;
  }

  private orderItem(o: OrderItem): string {
    return this.expr(o.expr) + (o.dir ? ` ${o.dir}` : '') + (o.nulls ? ` NULLS ${o.nulls}` : '');
  }

  private windowBody(w: WindowSpec): string {
    if (w.ref) return w.ref;
    const parts: string[] = [];
    if (w.partitionBy.length) parts.push(`PARTITION BY ${w.partitionBy.map((e) => this.expr(e)).join(', ')}`);
    if (w.orderBy.length) parts.push(`ORDER BY ${w.orderBy.map((o) => this.orderItem(o)).join(', ')}`);
    if (w.frame) parts.push(w.frame);
    return parts.join(' ');
  }

  /** An operand, parenthesized when it binds looser than its parent (or equal, on the right). */
  private operand(child: Expr, parentPrec: number, right: boolean): string {
    const text = this.expr(child);
    if (child.parens) return text;
    return needsParens(child, parentPrec, right) ? `(${text})` : text;
  }

  expr(e: Expr): string {
    const text = this.bare(e);
    return e.parens ? `(${text})` : text;
  }

  bare(e: Expr): string {
    const frozen = Object.isFrozen(e);
    let text = frozen ? this.texts.get(e) : undefined;
    if (text === undefined) {
      text = this.exprBare(e);
      if (frozen) this.texts.set(e, text);
    }
    return text;
  }

  private exprBare(e: Expr): string {
    switch (e.kind) {
      case 'column':
        return (e.table ? `${this.id(e.table)}.` : '') + this.id(e.name);
      case 'star':
        return e.table ? `${this.id(e.table)}.*` : '*';
      case 'number':
        return e.text;
      case 'string':
        return e.quote === '"' ? `"${e.value}"` : `'${e.value.replace(/(?<!')'(?!')/g, "''")}'`;
      case 'bool':
        return e.value ? 'TRUE' : 'FALSE';
      case 'null':
        return 'NULL';
      case 'typed':
        return `${e.type} '${e.value}'`;
      case 'binary': {
        const p = binaryPrecedence(e.op);
        return `${this.operand(e.left, p, false)} ${e.op} ${this.operand(e.right, p, true)}`;
      }
      case 'logical': {
        const p = e.op === 'OR' ? 1 : 2;
        return e.args.map((a) => this.operand(a, p, false)).join(` ${e.op} `);
      }
      case 'not':
        return `NOT ${this.operand(e.arg, 3, false)}`;
      case 'unary':
        return e.op.length === 1
          ? `${e.op}${this.operand(e.arg, 9, false)}`
          : `${e.op} ${this.operand(e.arg, 9, false)}`;
      case 'in': {
        const rhs = e.query ? this.query(e.query) : (e.values ?? []).map((v) => this.expr(v)).join(', ');
        return `${this.operand(e.arg, 4.5, false)} ${e.not ? 'NOT IN' : 'IN'} (${rhs})`;
      }
      case 'between':
        return `${this.operand(e.arg, 4.5, false)} ${e.not ? 'NOT BETWEEN' : 'BETWEEN'} ${this.operand(e.low, 4.5, false)} AND ${this.operand(e.high, 4.5, false)}`;
      case 'exists':
        return `${e.not ? 'NOT EXISTS' : 'EXISTS'} (${this.query(e.query)})`;
      case 'subquery':
        return `(${this.query(e.query)})`;
      case 'func': {
        const star = e.args.length === 1 && e.args[0]!.kind === 'star' && !e.args[0]!.table;
        let args = star ? '*' : e.args.map((a) => this.expr(a)).join(', ');
        if (e.distinct) args = `DISTINCT ${args}`;
        if (e.orderBy.length) args += ` ORDER BY ${e.orderBy.map((o) => this.orderItem(o)).join(', ')}`;
        let out = `${e.name}(${args})`;
        if (e.filter) out += ` FILTER (WHERE ${this.expr(e.filter)})`;
        if (e.over) out += e.over.ref ? ` OVER ${e.over.ref}` : ` OVER (${this.windowBody(e.over)})`;
        return out;
      }
      case 'case': {
        let out = 'CASE';
        if (e.operand) out += ` ${this.expr(e.operand)}`;
        for (const w of e.whens) out += ` WHEN ${this.expr(w.when)} THEN ${this.expr(w.then)}`;
        if (e.else) out += ` ELSE ${this.expr(e.else)}`;
        return `${out} END`;
      }
      case 'cast':
        if (e.style === '::') return `${this.operand(e.expr, 10, false)}::${e.type}`;
        return `${e.style === 'try_cast' ? 'TRY_CAST' : 'CAST'}(${this.expr(e.expr)} AS ${e.type})`;
      case 'interval':
        return `INTERVAL ${this.expr(e.expr)}${e.unit ? ` ${e.unit}` : ''}`;
      case 'extract':
        return `EXTRACT(${e.field} FROM ${this.expr(e.source)})`;
      case 'list':
        return `(${e.items.map((i) => this.expr(i)).join(', ')})`;
      case 'raw':
        return e.sql;
    }
  }
}
