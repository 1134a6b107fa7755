import type { Expr } from '../ir.ts';
import type { CanonicalRule } from './types.ts';
import { compareExprs } from './order-key.ts';
import { mapAllExprs } from './walk.ts';
import { FACT, holds } from './facts.ts';

const MIRROR: Record<string, string> = { '=': '=', '<>': '<>', '!=': '!=', '<': '>', '>': '<', '<=': '>=', '>=': '<=' };

function orient(e: Expr): Expr {
  if (e.kind !== 'binary' || !(e.op in MIRROR)) return e;
  if (compareExprs(e.left, e.right) <= 0) return e;
  return { ...e, op: MIRROR[e.op]!, left: e.right, right: e.left };
}

export const mirroredComparison: CanonicalRule = {
  name: 'mirrored-comparison',
  description:
    'Comparisons are oriented one way: column before expression before literal, ties broken by text, mirroring the operator (3 < a → a > 3; b = a → a = b).',
  apply: (q) => (holds(q, FACT.comparison) ? mapAllExprs(q, orient) : q),
};
