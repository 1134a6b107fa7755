import type { Expr } from '../ir.ts';
import { binaryPrecedence, needsParens } from '../print.ts';
import type { CanonicalRule } from './types.ts';
import { isExpr } from './walk.ts';

/** Precedence context a child sits in: null = a delimited slot (function argument, clause), where parentheses never matter. */
type Slot = { prec: number; right: boolean } | null;

function clean(e: Expr, slot: Slot): Expr {
  const c = (x: Expr, s: Slot) => clean(x, s);
  const free: Slot = null;
  let out: Expr;
  switch (e.kind) {
    case 'binary': {
      const p = binaryPrecedence(e.op);
      out = {
        ...e,
        left: c(e.left, { prec: p, right: false }),
        right: c(e.right, { prec: p, right: true }),
        ...(e.escape ? { escape: c(e.escape, free) } : {}),
      };
      break;
    }
    case 'logical': {
      const p = e.op === 'OR' ? 1 : 2;
      const args = e.args.map((a) => c(a, { prec: p, right: false }));
      out = { ...e, args: args.flatMap((a) => (a.kind === 'logical' && a.op === e.op && !a.parens ? a.args : [a])) };
      break;
    }
    case 'not':
      out = { ...e, arg: c(e.arg, { prec: 3, right: false }) };
      break;
    case 'unary':
      out = { ...e, arg: c(e.arg, { prec: 9, right: false }) };
      break;
    case 'in':
      out = {
        ...e,
        arg: c(e.arg, { prec: 4.5, right: false }),
        values: e.values ? e.values.map((v) => c(v, free)) : null,
      };
      break;
    case 'between': {
      const s = { prec: 4.5, right: false };
      out = { ...e, arg: c(e.arg, s), low: c(e.low, s), high: c(e.high, s) };
      break;
    }
    case 'func':
      out = {
        ...e,
        args: e.args.map((a) => c(a, free)),
        filter: e.filter ? c(e.filter, free) : null,
        orderBy: e.orderBy.map((o) => ({ ...o, expr: c(o.expr, free) })),
        over: e.over
          ? {
              ...e.over,
              partitionBy: e.over.partitionBy.map((x) => c(x, free)),
              orderBy: e.over.orderBy.map((o) => ({ ...o, expr: c(o.expr, free) })),
            }
          : null,
      };
      break;
    case 'case':
      out = {
        ...e,
        operand: e.operand ? c(e.operand, free) : null,
        whens: e.whens.map((w) => ({ when: c(w.when, free), then: c(w.then, free) })),
        else: e.else ? c(e.else, free) : null,
      };
      break;
    case 'cast':
      out = { ...e, expr: c(e.expr, e.style === '::' ? { prec: 10, right: false } : free) };
      break;
    case 'interval':
      out = { ...e, expr: c(e.expr, { prec: 10, right: false }) };
      break;
    case 'extract':
      out = { ...e, source: c(e.source, free) };
      break;
    case 'list':
      out = { ...e, items: e.items.map((x) => c(x, free)) };
      break;
    default:
      out = e;
  }
  if (
    out.parens &&
    (out.kind === 'list' || slot === null || !needsParens({ ...out, parens: false }, slot.prec, slot.right))
  ) {
    const { parens: _drop, ...rest } = out;
    return rest as Expr;
  }
  return out;
}

/** Rebuild every top-level expression slot (clauses, select items, ON...), nested queries included. */
function rebuildTopLevel(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rebuildTopLevel);
  if (value && typeof value === 'object') {
    if (isExpr(value)) return clean(deepQueries(value), null);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = rebuildTopLevel(v);
    return out;
  }
  return value;
}

/** Clean the queries nested inside an expression before the expression itself. */
function deepQueries(e: Expr): Expr {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) {
    if (k === 'query' && v) out[k] = rebuildTopLevel(v);
    else if (Array.isArray(v) || (v && typeof v === 'object')) out[k] = isExpr(v) ? deepQueries(v) : deepArr(v);
    else out[k] = v;
  }
  return out as unknown as Expr;
}

function deepArr(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(deepArr);
  if (isExpr(v)) return deepQueries(v);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = k === 'query' && x ? rebuildTopLevel(x) : deepArr(x);
    return out;
  }
  return v;
}

export const redundantParentheses: CanonicalRule = {
  name: 'redundant-parentheses',
  description:
    'Parentheses that operator precedence makes redundant are removed ((a = 1) AND (b = 2) → a = 1 AND b = 2; ((x)) → x); nested AND/AND and OR/OR groups are flattened. Parentheses are kept where the engines disagree on precedence (|| against arithmetic).',
  apply: (q) => rebuildTopLevel(q) as typeof q,
};
