import type { Query } from '../ir.ts';
import type { CanonicalRule } from './types.ts';
import { mapAllIdents } from './walk.ts';

/** DuckDB and SQLite match unquoted identifiers case-insensitively; quoted ones keep their spelling. */
export const identifierCase: CanonicalRule = {
  name: 'identifier-case',
  description:
    'Unquoted identifiers (tables, columns, aliases, CTE names) are folded to lower case; quoted identifiers keep their case.',
  apply: (q: Query) => mapAllIdents(q, (id) => (id.quoted ? id : { value: id.value.toLowerCase(), quoted: false })),
};
