import type { Ident, Query } from '../ir.ts';
import type { CanonicalRule } from './types.ts';
import { mapAllIdents } from './walk.ts';
import { FACT, holds } from './facts.ts';

/** DuckDB and SQLite match unquoted identifiers case-insensitively; quoted ones keep their spelling. */
function foldCase(id: Ident): Ident {
  if (id.quoted) return id;
  const value = id.value.toLowerCase();
  // Already folded: the identifier itself (a rule that changes nothing returns the same tree).
  return value === id.value ? id : { value, quoted: false };
}

export const identifierCase: CanonicalRule = {
  name: 'identifier-case',
  description:
    'Unquoted identifiers (tables, columns, aliases, CTE names) are folded to lower case; quoted identifiers keep their case.',
  apply: (q: Query) => (holds(q, FACT.identCase) ? mapAllIdents(q, foldCase) : q),
};
