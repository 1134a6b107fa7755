import type { Expr, LogicalExpr, OrderItem } from '../ir.ts';
import { mapItems, patch } from '../ir.ts';
import { binaryPrecedence, needsParens } from '../print.ts';
import type { CanonicalRule } from './types.ts';
import { isExpr } from './walk.ts';
import { FACT, holds } from './facts.ts';

/** Precedence context a child sits in: null = a delimited slot (function argument, clause), where parentheses never matter. */
type Slot = { prec: number; right: boolean } | null;

const FREE: Slot = null;
const slot = (prec: number, right = false): Slot => ({ prec, right });
const orderSlots = (items: OrderItem[]) => mapItems(items, (o) => patch(o, { expr: clean(o.expr, FREE) }));
const free = (x: Expr) => clean(x, FREE);

/** `e` with its redundant parentheses removed; `e` itself when it has none (unchanged subtrees are shared). */
function clean(e: Expr, at: Slot): Expr {
  let out: Expr;
  switch (e.kind) {
    case 'binary': {
      const p = binaryPrecedence(e.op);
      out = patch(e, {
        left: clean(e.left, slot(p)),
        right: clean(e.right, slot(p, true)),
        ...(e.escape ? { escape: free(e.escape) } : {}),
      });
      break;
    }
    case 'logical': {
      const s = slot(e.op === 'OR' ? 1 : 2);
      const args = mapItems(e.args, (a) => clean(a, s));
      const nested = (a: Expr) => a.kind === 'logical' && a.op === e.op && !a.parens;
      out = patch(e, {
        args: args.some(nested) ? args.flatMap((a) => (nested(a) ? (a as LogicalExpr).args : [a])) : args,
      });
      break;
    }
    case 'not':
      out = patch(e, { arg: clean(e.arg, slot(3)) });
      break;
    case 'unary':
      out = patch(e, { arg: clean(e.arg, slot(9)) });
      break;
    case 'in':
      out = patch(e, { arg: clean(e.arg, slot(4.5)), values: e.values ? mapItems(e.values, free) : null });
      break;
    case 'between': {
      const s = slot(4.5);
      out = patch(e, { arg: clean(e.arg, s), low: clean(e.low, s), high: clean(e.high, s) });
      break;
    }
    case 'func':
      out = patch(e, {
        args: mapItems(e.args, free),
        filter: e.filter ? free(e.filter) : null,
        orderBy: orderSlots(e.orderBy),
        over: e.over
          ? patch(e.over, { partitionBy: mapItems(e.over.partitionBy, free), orderBy: orderSlots(e.over.orderBy) })
          : null,
      });
      break;
    case 'case':
      out = patch(e, {
        operand: e.operand ? free(e.operand) : null,
        whens: mapItems(e.whens, (w) => {
          const when = free(w.when);
          const then = free(w.then);
          return when === w.when && then === w.then && sameKeys(w, WHEN_KEYS) ? w : { when, then };
        }),
        else: e.else ? free(e.else) : null,
      });
      break;
    case 'cast':
      out = patch(e, { expr: clean(e.expr, e.style === '::' ? slot(10) : FREE) });
      break;
    case 'interval':
      out = patch(e, { expr: clean(e.expr, slot(10)) });
      break;
    case 'extract':
      out = patch(e, { source: free(e.source) });
      break;
    case 'list':
      out = patch(e, { items: mapItems(e.items, free) });
      break;
    default:
      out = e;
  }
  if (
    out.parens &&
    (out.kind === 'list' || at === null || !needsParens({ ...out, parens: false }, at.prec, at.right))
  ) {
    const { parens: _drop, ...rest } = out;
    return rest as Expr;
  }
  return out;
}

const WHEN_KEYS = ['when', 'then'];

/** The object's own keys are exactly `keys`, in that order (a rebuilt object would list them so). */
function sameKeys(o: object, keys: string[]): boolean {
  const own = Object.keys(o);
  return own.length === keys.length && own.every((k, i) => k === keys[i]);
}

/** `value` with `f` applied to each field, or `value` itself when every field came back unchanged. */
function mapFields(value: object, f: (key: string, v: unknown) => unknown): object {
  let out: Record<string, unknown> | null = null;
  const rec = value as Record<string, unknown>;
  for (const k in rec) {
    const v = rec[k];
    const r = f(k, v);
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
  return out ?? value;
}

const isComposite = (v: unknown): v is object => typeof v === 'object' && v !== null;

/** Rebuild every top-level expression slot (clauses, select items, ON...), nested queries included. */
function rebuildTopLevel(value: unknown): unknown {
  if (Array.isArray(value)) return mapItems(value, rebuildTopLevel);
  if (!isComposite(value)) return value;
  if (isExpr(value)) return clean(deepQueries(value), null);
  return mapFields(value, (_, v) => rebuildTopLevel(v));
}

/** Clean the queries nested inside an expression before the expression itself. */
function deepQueries(e: Expr): Expr {
  return mapFields(e, (k, v) => {
    if (k === 'query' && v) return rebuildTopLevel(v);
    if (!isComposite(v)) return v;
    return isExpr(v) ? deepQueries(v) : deepArr(v);
  }) as Expr;
}

function deepArr(v: unknown): unknown {
  if (Array.isArray(v)) return mapItems(v, deepArr);
  if (isExpr(v)) return deepQueries(v);
  if (isComposite(v)) return mapFields(v, (k, x) => (k === 'query' && x ? rebuildTopLevel(x) : deepArr(x)));
  return v;
}

export const redundantParentheses: CanonicalRule = {
  name: 'redundant-parentheses',
  description:
    'Parentheses that operator precedence makes redundant are removed ((a = 1) AND (b = 2) → a = 1 AND b = 2; ((x)) → x); nested AND/AND and OR/OR groups are flattened. Parentheses are kept where the engines disagree on precedence (|| against arithmetic).',
  apply: (q) => (holds(q, FACT.parens) ? (rebuildTopLevel(q) as typeof q) : q),
};
