/** Generic rebuilding walks over the IR, shared by the rules. */
import type { Expr, Ident, Query } from '../ir.ts';
import { mapItems } from '../ir.ts';

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

/** Children first; a node none of whose children changed is visited as it is (the tree shares what no rule touched). */
function rebuild(value: unknown, visit: (v: unknown) => unknown): unknown {
  if (Array.isArray(value)) return mapItems(value, (x) => rebuild(x, visit));
  if (isObject(value)) {
    let out: Record<string, unknown> | null = null;
    for (const k in value) {
      const v = value[k];
      const r = rebuild(v, visit);
      if (out) out[k] = r;
      else if (r !== v) {
        out = {};
        for (const before in value) {
          if (before === k) break;
          out[before] = value[before];
        }
        out[k] = r;
      }
    }
    return visit(out ?? value);
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
