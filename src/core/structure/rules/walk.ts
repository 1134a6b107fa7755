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
  // The two field tests first: Object.keys allocates, and most objects are not identifiers.
  if (!isObject(v) || typeof v.value !== 'string' || typeof v.quoted !== 'boolean') return false;
  return Object.keys(v).length === 2;
}

/** Children first; a node none of whose children changed is visited as it is (the tree shares what no rule touched). */
function rebuild(value: unknown, visit: (v: unknown) => unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return rebuildArray(value, visit);
  const rec = value as Record<string, unknown>;
  let out: Record<string, unknown> | null = null;
  for (const k in rec) {
    const v = rec[k];
    const r = rebuild(v, visit);
    if (out) out[k] = r;
    else if (r !== v) {
      out = {};
      for (const before in rec) {
        if (before === k) break;
        out[before] = rec[before];
      }
      out[k] = r;
    }
  }
  return visit(out ?? value);
}

/** mapItems without a closure per array (this walk runs over every node of every tree, for several rules). */
function rebuildArray(items: readonly unknown[], visit: (v: unknown) => unknown): unknown[] {
  let out: unknown[] | null = null;
  for (let i = 0; i < items.length; i++) {
    const x = items[i];
    const y = rebuild(x, visit);
    if (out) out.push(y);
    else if (y !== x) {
      out = items.slice(0, i);
      out.push(y);
    }
  }
  return out ?? (items as unknown[]);
}

/** Apply `fn` to every expression of the tree, nested queries included, children first. */
export function mapAllExprs(query: Query, fn: (e: Expr) => Expr): Query {
  return rebuild(query, (v) => (isExpr(v) ? fn(v) : v)) as Query;
}

/** Apply `fn` to every identifier of the tree. */
export function mapAllIdents(query: Query, fn: (id: Ident) => Ident): Query {
  return rebuild(query, (v) => (isIdent(v) ? fn(v) : v)) as Query;
}
