import type { Expr } from '../ir.ts';
import type { CanonicalRule } from './types.ts';
import { compareExprs } from './order-key.ts';
import { mapAllExprs } from './walk.ts';
import { FACT, holds } from './facts.ts';

function sortValues(e: Expr): Expr {
  if (e.kind !== 'in' || !e.values) return e;
  const values = [...e.values].sort(compareExprs);
  // Already in order: the node itself (a rule that changes nothing returns the same tree).
  return values.every((v, i) => v === e.values![i]) ? e : { ...e, values };
}

export const inListOrder: CanonicalRule = {
  name: 'in-list-order',
  description:
    "The values of an IN list are sorted (x IN ('b', 'a') → x IN ('a', 'b')); membership does not depend on order.",
  apply: (q) => (holds(q, FACT.inList) ? mapAllExprs(q, sortValues) : q),
};
