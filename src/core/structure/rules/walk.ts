/** Generic rebuilding walks over the IR, shared by the rules. */
import type { Expr, Ident, Query } from '../ir.ts';

const EXPR_KINDS = new Set([
  'column',
  'star',
  'number',
  'string',
  'bool',
  'null',
  'typed',
  'binary',
  'logical',
  'not',
  'unary',
  'in',
  'between',
  'exists',
  'subquery',
  'func',
  'case',
  'cast',
  'interval',
  'extract',
  'list',
  'raw',
]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isExpr(v: unknown): v is Expr {
  return isObject(v) && typeof v.kind === 'string' && EXPR_KINDS.has(v.kind);
}

function isIdent(v: unknown): v is Ident {
  if (!isObject(v)) return false;
  const keys = Object.keys(v);
  return keys.length === 2 && typeof v.value === 'string' && typeof v.quoted === 'boolean';
}

function rebuild(value: unknown, visit: (v: unknown) => unknown): unknown {
  if (Array.isArray(value)) return value.map((x) => rebuild(x, visit));
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = rebuild(v, visit);
    return visit(out);
  }
  return value;
}

/** Apply `fn` to every expression of the tree, nested queries included, children first. */
export function mapAllExprs(query: Query, fn: (e: Expr) => Expr): Query {
  return rebuild(query, (v) => (isExpr(v) ? fn(v) : v)) as Query;
}

/** Apply `fn` to every identifier of the tree. */
export function mapAllIdents(query: Query, fn: (id: Ident) => Ident): Query {
  return rebuild(query, (v) => (isIdent(v) ? fn(v) : v)) as Query;
}
