import type { CanonicalRule } from './types.ts';
import { compareExprs } from './order-key.ts';
import { mapAllExprs } from './walk.ts';

export const inListOrder: CanonicalRule = {
  name: 'in-list-order',
  description:
    "The values of an IN list are sorted (x IN ('b', 'a') → x IN ('a', 'b')); membership does not depend on order.",
  apply: (q) =>
    mapAllExprs(q, (e) => (e.kind === 'in' && e.values ? { ...e, values: [...e.values].sort(compareExprs) } : e)),
};
