/**
 * SELECT statements: a chain of SELECT cores joined by set operators, then
 * ORDER BY / LIMIT, built as from-ast.ts builds them (a set operation's
 * trailing ORDER BY / LIMIT belong to the chain, its arms keep none).
 */
import type { Expr, FromItem, Ident, OrderItem, Query, Select, SelectItem } from '../ir.ts';
import { childQueries } from '../ir.ts';
import type { Cursor } from './cursor.ts';
import { decline } from './cursor.ts';
import { readExpr, readParenQuery } from './expr.ts';
import { identOf, isCleanDoubleQuoted, nameOf, numberText, readName, stringValue } from './words.ts';

export function readQuery(c: Cursor): Query {
  const arms: Select[] = [readCore(c)];
  const ops: string[] = [];
  for (;;) {
    const op = setOperator(c);
    if (op === null) break;
    ops.push(op);
    arms.push(readCore(c));
  }
  const orderBy = c.isWord('ORDER') ? readOrderBy(c) : [];
  // parse.ts's keyword accounting does not look into a set operation's ORDER BY.
  if (ops.length > 0 && orderBy.some((o) => childQueries(o.expr).length > 0)) decline();
  const { limit, offset } = readLimit(c);
  if (ops.length === 0) {
    const s = arms[0]!;
    s.orderBy = orderBy;
    s.limit = limit;
    s.offset = offset;
    return s;
  }
  return { kind: 'setop', with: null, arms, ops, orderBy, limit, offset };
}

function setOperator(c: Cursor): string | null {
  const t = c.peek();
  if (t?.type !== 'word') return null;
  if (t.upper === 'UNION') {
    c.pos++;
    if (c.eatWord('ALL')) return 'UNION ALL';
    if (c.isWord('DISTINCT')) decline();
    return 'UNION';
  }
  if (t.upper === 'INTERSECT' || t.upper === 'EXCEPT') {
    if (!c.profile.intersectExcept) decline();
    c.pos++;
    if (c.isWord('ALL') || c.isWord('DISTINCT')) decline();
    return t.upper;
  }
  return null;
}

/** SELECT [DISTINCT] items [FROM ...] [WHERE] [GROUP BY] [HAVING]; ORDER BY / LIMIT are the caller's. */
function readCore(c: Cursor): Select {
  c.expectWord('SELECT');
  // `SELECT*` (no space) fails in every grammar; keep SELECT apart from what follows.
  if (c.peek() && c.peek()!.start === c.tokens[c.pos - 1]!.end) decline();
  const distinct = c.eatWord('DISTINCT') ? { on: null } : null;
  if (c.isWord('ALL') || c.isWord('DISTINCT') || c.isWord('ON')) decline();
  const columns = readColumns(c);
  const from = c.eatWord('FROM') ? readFrom(c) : [];
  const where = c.eatWord('WHERE') ? readExpr(c, readQuery) : null;
  let groupBy: Expr[] = [];
  if (c.eatWord('GROUP')) {
    c.expectWord('BY');
    groupBy = readExprList(c);
  }
  const having = c.eatWord('HAVING') ? readExpr(c, readQuery) : null;
  return {
    kind: 'select',
    with: null,
    distinct,
    columns,
    from,
    where,
    groupBy,
    having,
    windows: [],
    orderBy: [],
    limit: null,
    offset: null,
  };
}

function readExprList(c: Cursor): Expr[] {
  const out = [readExpr(c, readQuery)];
  while (c.eatPunct(',')) out.push(readExpr(c, readQuery));
  return out;
}

function readColumns(c: Cursor): SelectItem[] {
  const out: SelectItem[] = [];
  do {
    if (c.isOp('*')) {
      c.pos++;
      out.push({ expr: { kind: 'star', table: null }, alias: null });
      continue;
    }
    const star = tableStar(c);
    if (star) {
      out.push({ expr: star, alias: null });
      continue;
    }
    const expr = readExpr(c, readQuery);
    out.push({ expr, alias: readColumnAlias(c) });
  } while (c.eatPunct(','));
  return out;
}

/** `t.*` as a select item (the dot written tight), or null. */
function tableStar(c: Cursor): Expr | null {
  const t = c.peek();
  const table = nameOf(c, t);
  if (table === null || !c.isPunct('.', 1) || !c.isOp('*', 2)) return null;
  const dot = c.peek(1)!;
  if (dot.start !== t!.end || c.peek(2)!.start !== dot.end) return null;
  c.pos += 3;
  return { kind: 'star', table: identOf(c, table) };
}

/** `AS name`, `AS "name"`, `AS 'name'` (sqlite, noql), or a bare `name` / `"name"`. */
function readColumnAlias(c: Cursor): Ident | null {
  if (c.eatWord('AS')) {
    const t = c.peek();
    if (t?.type === 'string' && c.profile.stringAlias) {
      c.pos++;
      const v = stringValue(t);
      if (v !== t.text || v === '') decline();
      return identOf(c, v);
    }
    return readAliasName(c);
  }
  const t = c.peek();
  if (nameOf(c, t) === null && t?.type !== 'quoted') return null;
  c.implicitAlias = true;
  return readAliasName(c);
}

/** A bare name, or a double-quoted one (always quoted: the lexer saw its quotes). */
function readAliasName(c: Cursor): Ident {
  const t = c.peek();
  if (t?.type === 'quoted' && t.quote === '"') {
    if (!isCleanDoubleQuoted(t)) decline();
    c.pos++;
    return identOf(c, t.text);
  }
  return readName(c);
}

function readFrom(c: Cursor): FromItem[] {
  const items: FromItem[] = [readFromItem(c, 'FIRST')];
  for (;;) {
    if (c.eatPunct(',')) {
      items.push(readFromItem(c, 'COMMA'));
      continue;
    }
    const join = readJoinKind(c, items);
    if (join === null) return items;
    const item = readFromItem(c, join);
    if (join === 'CROSS' && (c.isWord('ON') || c.isWord('USING'))) decline();
    if (c.eatWord('ON')) {
      item.on = readExpr(c, readQuery);
      // The sqlite grammar reads `ON x, t2` as an expression list, not ON x then a comma join.
      if (c.isPunct(',')) decline();
    } else if (c.eatWord('USING')) item.using = readUsing(c);
    items.push(item);
  }
}

function readJoinKind(c: Cursor, items: FromItem[]): FromItem['join'] | null {
  if (c.eatWord('JOIN')) return 'INNER';
  if (c.isWord('INNER') && c.isWord('JOIN', 1)) {
    c.pos += 2;
    return 'INNER';
  }
  if (c.isWord('LEFT')) {
    c.pos++;
    c.eatWord('OUTER');
    c.expectWord('JOIN');
    return 'LEFT';
  }
  if (c.isWord('CROSS') && c.isWord('JOIN', 1)) {
    // The sqlite grammar reads CROSS as the alias of the table before (the
    // adapter repairs that); after an alias or a derived table it fails.
    const prev = items[items.length - 1]!;
    if (c.profile.crossAfterBareTable && (prev.alias || prev.on || prev.using || prev.source.kind !== 'table'))
      decline();
    c.pos += 2;
    return 'CROSS';
  }
  return null;
}

function readUsing(c: Cursor): Ident[] {
  c.expectPunct('(');
  const out = [readName(c)];
  while (c.eatPunct(',')) out.push(readName(c));
  c.expectPunct(')');
  return out;
}

/** A table or a derived table, with its alias. */
function readFromItem(c: Cursor, join: FromItem['join']): FromItem {
  let source: FromItem['source'];
  if (c.isPunct('(')) source = { kind: 'derived', query: readParenQuery(c, readQuery) };
  else {
    const t = c.next();
    const value = isCleanDoubleQuoted(t) ? t.text : nameOf(c, t);
    if (value === null) return decline();
    const name = identOf(c, value);
    if (c.isPunct('.')) decline();
    source = { kind: 'table', schema: null, name };
  }
  let alias: Ident | null = null;
  if (c.eatWord('AS')) alias = readAliasName(c);
  else if (nameOf(c, c.peek()) !== null) alias = readName(c);
  if (c.isPunct('(')) decline();
  return { source, alias, columnAliases: [], join, on: null, using: null };
}

function readOrderBy(c: Cursor): OrderItem[] {
  c.expectWord('ORDER');
  c.expectWord('BY');
  const out: OrderItem[] = [];
  do {
    const expr = readExpr(c, readQuery);
    const dir = c.eatWord('ASC') ? 'ASC' : c.eatWord('DESC') ? 'DESC' : null;
    if (c.isWord('NULLS')) decline();
    out.push({ expr, dir, nulls: null });
  } while (c.eatPunct(','));
  return out;
}

/** `LIMIT n`, `LIMIT n OFFSET m`, and SQLite's `LIMIT m, n` (= LIMIT n OFFSET m); plain integers only. */
function readLimit(c: Cursor): { limit: Expr | null; offset: Expr | null } {
  if (!c.eatWord('LIMIT')) {
    if (c.isWord('OFFSET') || c.isWord('FETCH')) decline();
    return { limit: null, offset: null };
  }
  const first = readCount(c);
  if (c.eatPunct(',')) {
    if (!c.profile.limitComma) decline();
    return { limit: readCount(c), offset: first };
  }
  if (c.eatWord('OFFSET')) return { limit: first, offset: readCount(c) };
  return { limit: first, offset: null };
}

function readCount(c: Cursor): Expr {
  const t = c.next();
  if (t.type !== 'number' || !/^(?:0|[1-9][0-9]{0,9})$/.test(t.raw)) decline();
  return { kind: 'number', text: numberText(t, false) };
}
