/**
 * Expressions, by the grammars' precedence: AND/OR (one level, rebuilt as the
 * adapter does), NOT, comparison (one predicate), additive, multiplicative
 * (`||` included, as both grammars have it), unary minus, primaries. Each
 * node is built with the adapter's keys in the adapter's order.
 */
import type { Expr, Query } from '../ir.ts';
import { AGGREGATES } from '../ir.ts';
import type { Cursor } from './cursor.ts';
import { decline } from './cursor.ts';
import type { Token } from '../../sql/lexer.ts';
import {
  identOf,
  isCleanDoubleQuoted,
  isNameWord,
  isTypedLiteral,
  NAME_KEYWORDS,
  nameOf,
  numberText,
  stringValue,
} from './words.ts';

/** Query reading lives in query.ts; it is handed in to keep the two modules acyclic. */
export type ReadQuery = (c: Cursor) => Query;

export function readExpr(c: Cursor, q: ReadQuery): Expr {
  const operands: Expr[] = [readNot(c, q)];
  const ops: ('AND' | 'OR')[] = [];
  for (;;) {
    const t = c.peek();
    if (t?.type !== 'word' || (t.upper !== 'AND' && t.upper !== 'OR')) break;
    c.pos++;
    ops.push(t.upper);
    operands.push(readNot(c, q));
  }
  return ops.length === 0 ? operands[0]! : logical(operands, ops);
}

/** from-ast.ts `logical`: AND groups split by OR (operands are never bare AND/OR nodes here). */
function logical(operands: Expr[], ops: ('AND' | 'OR')[]): Expr {
  const groups: Expr[][] = [[operands[0]!]];
  ops.forEach((op, i) => {
    if (op === 'OR') groups.push([operands[i + 1]!]);
    else groups[groups.length - 1]!.push(operands[i + 1]!);
  });
  const ands = groups.map((g) => (g.length === 1 ? g[0]! : ({ kind: 'logical', op: 'AND', args: g } as Expr)));
  return ands.length === 1 ? ands[0]! : { kind: 'logical', op: 'OR', args: ands };
}

function readNot(c: Cursor, q: ReadQuery): Expr {
  if (c.isWord('NOT')) {
    c.pos++;
    if (c.isWord('EXISTS')) {
      c.pos++;
      return { kind: 'exists', not: true, query: readParenQuery(c, q) };
    }
    if (c.isPunct('(') && boundAfterParens(c)) decline();
    return { kind: 'not', arg: readNot(c, q) };
  }
  if (c.eatWord('EXISTS')) return { kind: 'exists', not: false, query: readParenQuery(c, q) };
  return readPredicate(c, q);
}

/**
 * `NOT (x) + y`: the grammars read `NOT (x)` as a function call, an operand of
 * the `+`; the reader's NOT would take the whole `(x) + y`. Such a NOT is left
 * to them: true when an operator or predicate follows the parenthesis.
 */
function boundAfterParens(c: Cursor): boolean {
  const open = c.peek()!;
  let i = c.pos + 1;
  while (i < c.tokens.length && !(c.tokens[i]!.depth === open.depth && c.tokens[i]!.text === ')')) i++;
  const after = c.tokens[i + 1];
  if (after === undefined) return false;
  return after.type === 'op' || after.type === 'punct' ? after.text !== ')' && after.text !== ',' : isPredicate(after);
}

/** `( SELECT ... )` */
export function readParenQuery(c: Cursor, q: ReadQuery): Query {
  c.expectPunct('(');
  if (!c.isWord('SELECT')) decline();
  const query = q(c);
  c.expectPunct(')');
  return query;
}

const COMPARISON = new Set(['=', '<>', '!=', '<', '>', '<=', '>=']);

/** An operand and at most one predicate: a comparison chain, IS [NOT] NULL, [NOT] IN / BETWEEN / LIKE. */
function readPredicate(c: Cursor, q: ReadQuery): Expr {
  let left = readAdditive(c, q);
  const t = c.peek();
  if (t === undefined) return left;
  if (t.type === 'op' && (COMPARISON.has(t.text) || (t.text === '==' && c.profile.eqeq))) {
    while (c.peek()?.type === 'op' && (COMPARISON.has(c.peek()!.text) || c.peek()!.text === '==')) {
      const op = c.next().text;
      if (op === '==' && !c.profile.eqeq) decline();
      left = { kind: 'binary', op: op === '==' ? '=' : op, left, right: readOperand(c, q) };
    }
  } else if (t.type === 'word') {
    left = readWordPredicate(c, q, left);
  }
  // A second predicate on the same operand (`a LIKE b = c`, `a IS NULL IS NULL`) is left to the grammars.
  const after = c.peek();
  if (after && ((after.type === 'op' && (COMPARISON.has(after.text) || after.text === '==')) || isPredicateWord(c)))
    decline();
  return left;
}

function isPredicateWord(c: Cursor): boolean {
  const t = c.peek();
  return t !== undefined && isPredicate(t);
}

function isPredicate(t: Token): boolean {
  if (t.type !== 'word') return false;
  return t.upper === 'IS' || t.upper === 'IN' || t.upper === 'BETWEEN' || t.upper === 'LIKE' || t.upper === 'NOT';
}

function readWordPredicate(c: Cursor, q: ReadQuery, arg: Expr): Expr {
  if (c.eatWord('IS')) {
    const not = c.eatWord('NOT');
    c.expectWord('NULL');
    return { kind: 'binary', op: not ? 'IS NOT' : 'IS', left: arg, right: { kind: 'null' } };
  }
  const not = c.isWord('NOT') && (c.isWord('IN', 1) || c.isWord('BETWEEN', 1) || c.isWord('LIKE', 1));
  if (not) c.pos++;
  if (c.eatWord('IN')) return readIn(c, q, arg, not);
  if (c.eatWord('BETWEEN')) {
    const low = readOperand(c, q);
    c.expectWord('AND');
    return { kind: 'between', not, arg, low, high: readOperand(c, q) };
  }
  if (c.eatWord('LIKE')) {
    const right = readLikePattern(c, q);
    if (c.isWord('ESCAPE')) decline();
    return { kind: 'binary', op: not ? 'NOT LIKE' : 'LIKE', left: arg, right };
  }
  return arg;
}

/**
 * The postgresql and noql grammars take a quoted literal right after LIKE as
 * the whole pattern (`LIKE "x"` is a string there, `LIKE 'a' || b` an error).
 */
function readLikePattern(c: Cursor, q: ReadQuery): Expr {
  const t = c.peek();
  if (!c.profile.likeLiteral) return readAdditive(c, q);
  if (t?.type !== 'string' && t?.type !== 'quoted') {
    // Any other literal is taken alone as well (`LIKE false || x` fails there).
    const e = readAdditive(c, q);
    if (e.kind === 'binary' && LITERALS.has(leftmost(e).kind)) decline();
    return e;
  }
  c.pos++;
  if (c.peek()?.type === 'op') decline();
  if (t.type === 'string') return { kind: 'string', value: stringValue(t), quote: "'" };
  if (!isCleanDoubleQuoted(t)) decline();
  return { kind: 'string', value: t.text, quote: '"' };
}

const LITERALS = new Set(['number', 'string', 'bool', 'null']);

function leftmost(e: Expr): Expr {
  return e.kind === 'binary' && !e.parens ? leftmost(e.left) : e;
}

/** `IN (SELECT ...)` or `IN (v, ...)`; a list holding a subquery or a row is left to the grammars. */
function readIn(c: Cursor, q: ReadQuery, arg: Expr, not: boolean): Expr {
  c.expectPunct('(');
  if (c.isWord('SELECT')) {
    const query = readExprQuery(c, q);
    c.expectPunct(')');
    return { kind: 'in', not, arg, values: null, query };
  }
  const values: Expr[] = [];
  do {
    if (c.isPunct('(')) decline();
    values.push(isLoneDoubleQuoted(c) ? readOperand(c, q) : readExpr(c, q));
  } while (c.eatPunct(','));
  c.expectPunct(')');
  return { kind: 'in', not, arg, values, query: null };
}

/** A predicate's right-hand operand: where noql reads a lone `"x"` as a string. */
function readOperand(c: Cursor, q: ReadQuery): Expr {
  if (c.profile.doubleQuoted !== 'operand' || !isLoneDoubleQuoted(c)) return readAdditive(c, q);
  const t = c.next();
  if (!isCleanDoubleQuoted(t)) decline();
  return { kind: 'string', value: t.text, quote: '"' };
}

/** A double-quoted token with nothing bound to it after (no operator, dot or call). */
function isLoneDoubleQuoted(c: Cursor): boolean {
  const t = c.peek();
  const after = c.peek(1);
  return t?.type === 'quoted' && t.quote === '"' && after?.type !== 'op' && !c.isPunct('.', 1) && !c.isPunct('(', 1);
}

function readAdditive(c: Cursor, q: ReadQuery): Expr {
  let left = readMultiplicative(c, q);
  for (;;) {
    const t = c.peek();
    if (t?.type !== 'op' || (t.text !== '+' && t.text !== '-')) return left;
    if (t.text === '-' && c.profile.dashedNames && dashedName(c)) decline();
    c.pos++;
    left = { kind: 'binary', op: t.text, left, right: readMultiplicative(c, q) };
  }
}

/** A `-` written right after a word, not followed by a number: a dashed name to postgresql and noql. */
function dashedName(c: Cursor): boolean {
  const before = c.tokens[c.pos - 1];
  const dash = c.peek()!;
  return before?.type === 'word' && before.end === dash.start && c.peek(1)?.type !== 'number';
}

const MULTIPLICATIVE = new Set(['*', '/', '%', '||']);

function readMultiplicative(c: Cursor, q: ReadQuery): Expr {
  let left = readUnary(c, q);
  for (;;) {
    const t = c.peek();
    if (t?.type !== 'op' || !MULTIPLICATIVE.has(t.text)) return left;
    c.pos++;
    left = { kind: 'binary', op: t.text, left, right: readUnary(c, q) };
  }
}

/** `-x` is a unary minus; `-3` written together is the number -3, as the grammars read it. */
function readUnary(c: Cursor, q: ReadQuery): Expr {
  const t = c.peek();
  if (t?.type === 'op' && t.text === '-') {
    if (c.profile.dashedNames && dashedName(c)) decline();
    const n = c.peek(1);
    c.pos++;
    if (n?.type === 'number' && n.start === t.end) {
      c.pos++;
      return numberAt(c, n, true);
    }
    return { kind: 'unary', op: '-', arg: readUnary(c, q) };
  }
  return readPrimary(c, q);
}

function numberAt(c: Cursor, t: Token, negative: boolean): Expr {
  // `0x1F`, `1e` and the like: a number glued to a word is not one literal.
  const after = c.peek();
  if (after && after.start === t.end && (after.type === 'word' || after.type === 'number')) decline();
  return { kind: 'number', text: numberText(t, negative) };
}

function readPrimary(c: Cursor, q: ReadQuery): Expr {
  const t = c.next();
  switch (t.type) {
    case 'number':
      return numberAt(c, t, false);
    case 'string':
      return { kind: 'string', value: stringValue(t), quote: "'" };
    case 'quoted':
      if (t.quote === '`') return readColumn(c, t);
      return readQuoted(c, t);
    case 'punct':
      if (t.text === '(') return readParenthesized(c, q);
      return decline();
    case 'word':
      return readWordPrimary(c, q, t);
    default:
      return decline();
  }
}

/** `"x"`: a string to the sqlite grammar, an identifier to the postgresql one. */
function readQuoted(c: Cursor, t: Token): Expr {
  if (!isCleanDoubleQuoted(t)) decline();
  if (c.isPunct('.')) decline();
  if (c.profile.doubleQuoted === 'operand') decline();
  if (c.profile.doubleQuoted === 'string') return { kind: 'string', value: t.text, quote: '"' };
  return { kind: 'column', table: null, name: { value: t.text, quoted: true } };
}

/** `( expr )` (marked parens) or `( SELECT ... )` (a subquery, never marked). */
function readParenthesized(c: Cursor, q: ReadQuery): Expr {
  if (c.isWord('SELECT')) {
    const query = readExprQuery(c, q);
    c.expectPunct(')');
    // The sqlite and postgresql grammars reject a select-list subquery of several columns or a star.
    if (!singleColumn(query)) decline();
    return { kind: 'subquery', query };
  }
  if (c.isPunct('(')) decline();
  const e = readExpr(c, q);
  c.expectPunct(')');
  e.parens = true;
  return e;
}

/**
 * A subquery in an expression (scalar or IN). All three grammars fail on
 * `(SELECT (x) FROM ...)` there, a parenthesis right after SELECT.
 */
function readExprQuery(c: Cursor, q: ReadQuery): Query {
  if (c.isPunct('(', 1)) decline();
  return q(c);
}

function singleColumn(query: Query): boolean {
  if (query.kind === 'setop') return query.arms.every(singleColumn);
  return query.columns.length === 1 && query.columns[0]!.expr.kind !== 'star';
}

function readWordPrimary(c: Cursor, q: ReadQuery, t: Token): Expr {
  switch (t.upper) {
    case 'NULL':
      return { kind: 'null' };
    case 'TRUE':
    case 'FALSE':
      return { kind: 'bool', value: t.upper === 'TRUE' };
    case 'CASE':
      return readCase(c, q);
    case 'CAST':
      return readCast(c, q);
    case 'COUNT':
    case 'SUM':
    case 'AVG':
    case 'MIN':
    case 'MAX':
      return readAggregate(c, q, t.upper);
  }
  if (!isNameWord(t) || isTypedLiteral(t, c.peek())) decline();
  if (c.isPunct('(')) {
    if (NAME_KEYWORDS.has(t.upper)) decline();
    return readCall(c, q, t.text);
  }
  return readColumn(c, t);
}

/** `c`, `t.c` or `t.*` (the dot written tight). */
function readColumn(c: Cursor, t: Token): Expr {
  const first = nameOf(c, t);
  if (first === null) return decline();
  if (!c.isPunct('.')) return { kind: 'column', table: null, name: identOf(c, first) };
  const dot = c.next();
  const n = c.next();
  if (dot.start !== t.end || n.start !== dot.end) decline();
  // `t.*` stands only as a select item (query.ts); the sqlite grammar rejects it elsewhere.
  if (n.type === 'op' && n.text === '*') decline();
  const second = nameOf(c, n);
  if (second === null || c.isPunct('.') || c.isPunct('(')) decline();
  return { kind: 'column', table: identOf(c, first), name: identOf(c, second) };
}

/** COUNT / SUM / AVG / MIN / MAX: the grammars' aggregate rule, name upper-cased, one argument; DISTINCT in COUNT only. */
function readAggregate(c: Cursor, q: ReadQuery, name: string): Expr {
  c.expectPunct('(');
  const distinct = c.eatWord('DISTINCT');
  // `COUNT(DISTINCT (x) || y)`: the grammars may read DISTINCT(x) as a call.
  if (distinct && (name !== 'COUNT' || c.isPunct('('))) decline();
  let arg: Expr;
  if (name === 'COUNT' && !distinct && c.isOp('*') && c.isPunct(')', 1)) {
    c.pos++;
    arg = { kind: 'star', table: null };
  } else arg = readExpr(c, q);
  c.expectPunct(')');
  if (c.isWord('OVER') || c.isWord('FILTER')) decline();
  return {
    kind: 'func',
    name,
    args: [arg],
    distinct,
    aggregate: true,
    filter: null,
    over: null,
    orderBy: [],
  };
}

/** `name(arg, ...)`: a plain function, its name as written. */
function readCall(c: Cursor, q: ReadQuery, name: string): Expr {
  c.expectPunct('(');
  const args: Expr[] = [];
  if (!c.isPunct(')')) {
    do {
      if (c.isWord('DISTINCT') || c.isWord('ALL') || (c.isOp('*') && c.isPunct(')', 1))) decline();
      args.push(readExpr(c, q));
    } while (c.eatPunct(','));
  }
  c.expectPunct(')');
  if (c.isWord('OVER') || c.isWord('FILTER')) decline();
  return {
    kind: 'func',
    name,
    args,
    distinct: false,
    aggregate: AGGREGATES.has(name.toLowerCase()),
    filter: null,
    over: null,
    orderBy: [],
  };
}

function readCase(c: Cursor, q: ReadQuery): Expr {
  // `CASE (x) WHEN`: every grammar fails on a parenthesized operand.
  if (c.isPunct('(')) decline();
  const operand = c.isWord('WHEN') ? null : readExpr(c, q);
  const whens: { when: Expr; then: Expr }[] = [];
  while (c.eatWord('WHEN')) {
    const when = readExpr(c, q);
    c.expectWord('THEN');
    whens.push({ when, then: readExpr(c, q) });
  }
  if (whens.length === 0) decline();
  const elseExpr = c.eatWord('ELSE') ? readExpr(c, q) : null;
  c.expectWord('END');
  return { kind: 'case', operand, whens, else: elseExpr };
}

/** Target types the grammars print as written (upper-cased), with an optional (n) or (n, m). */
const CAST_TYPES = new Set(['INT', 'INTEGER', 'REAL', 'FLOAT', 'TEXT', 'NUMERIC', 'DECIMAL', 'VARCHAR', 'CHAR']);

function readCast(c: Cursor, q: ReadQuery): Expr {
  c.expectPunct('(');
  const e = readExpr(c, q);
  c.expectWord('AS');
  const typeTok = c.next();
  if (typeTok.type !== 'word' || !CAST_TYPES.has(typeTok.upper)) decline();
  let type = typeTok.upper;
  if (c.eatPunct('(')) {
    const size = [readSize(c)];
    if (c.eatPunct(',')) size.push(readSize(c));
    c.expectPunct(')');
    type += `(${size.join(', ')})`;
  }
  c.expectPunct(')');
  return { kind: 'cast', expr: e, type, style: 'cast' };
}

function readSize(c: Cursor): string {
  const t = c.next();
  if (t.type !== 'number' || !/^[1-9][0-9]{0,3}$/.test(t.raw)) decline();
  return t.raw;
}
