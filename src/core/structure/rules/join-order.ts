import type { Select } from '../ir.ts';
import { mapQuery, patch } from '../ir.ts';
import { printFrom } from '../print.ts';
import type { CanonicalRule } from './types.ts';
import { FACT, holds } from './facts.ts';

function sortFrom(s: Select): Select {
  if (s.from.length < 2 || !s.from.every((f) => f.join === 'FIRST' || f.join === 'COMMA')) return s;
  // `*` expands in FROM order; LIMIT without a total order could keep other rows.
  if (s.columns.some((c) => c.expr.kind === 'star') || s.limit || s.offset) return s;
  // The text of each item alone (as `SELECT FROM item` would print it, less the constant prefix).
  const key = (i: number) => printFrom([{ ...s.from[i]!, join: 'FIRST', on: null }]);
  const order = s.from.map((_, i) => ({ i, k: key(i) })).sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.i - b.i));
  const from = order.map(({ i }, k) => patch(s.from[i]!, { join: k === 0 ? 'FIRST' : 'COMMA' }));
  // Already in order: the SELECT itself (a rule that changes nothing returns the same tree).
  return from.every((f, k) => f === s.from[k]) ? s : { ...s, from };
}

export const joinOrder: CanonicalRule = {
  name: 'join-order',
  description:
    'The items of a comma-joined FROM (after implicit-join) are sorted by text, unless the select list has a `*` (whose column order follows FROM) or the query has LIMIT/OFFSET.',
  apply: (q) => (holds(q, FACT.comma) ? mapQuery(q, sortFrom) : q),
};
