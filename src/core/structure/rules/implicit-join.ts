import type { Select } from '../ir.ts';
import { andAll, conjuncts, mapQuery } from '../ir.ts';
import type { CanonicalRule } from './types.ts';
import { FACT, holds } from './facts.ts';

const INNER = new Set(['FIRST', 'COMMA', 'INNER', 'CROSS']);

function toImplicit(s: Select): Select {
  if (s.from.length < 2) return s;
  // Only a FROM made entirely of inner and cross joins: an outer join, USING or NATURAL changes what WHERE sees.
  if (!s.from.every((f) => INNER.has(f.join) && !f.using)) return s;
  if (!s.from.some((f) => f.join === 'INNER' || f.join === 'CROSS')) return s;
  const onParts = s.from.flatMap((f) => conjuncts(f.on));
  return {
    ...s,
    from: s.from.map((f, i) => ({ ...f, join: i === 0 ? 'FIRST' : 'COMMA', on: null })),
    where: andAll([...onParts, ...conjuncts(s.where)]),
  };
}

export const implicitJoin: CanonicalRule = {
  name: 'implicit-join',
  description:
    'Inner joins are written as a comma list with their ON predicates in WHERE (a JOIN b ON p WHERE w ≡ a, b WHERE p AND w), only when every join of that FROM is INNER or CROSS without USING.',
  apply: (q) => (holds(q, FACT.explicitJoin) ? mapQuery(q, toImplicit) : q),
};
