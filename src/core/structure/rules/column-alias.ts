import type { Select } from '../ir.ts';
import { mapItems, mapQuery, patch } from '../ir.ts';
import type { CanonicalRule } from './types.ts';
import { FACT, holds } from './facts.ts';

function sameName(a: string, b: string, quoted: boolean): boolean {
  return quoted ? a === b : a.toLowerCase() === b.toLowerCase();
}

function dropRedundant(s: Select): Select {
  return patch(s, {
    columns: mapItems(s.columns, (c) =>
      c.alias &&
      c.expr.kind === 'column' &&
      sameName(c.expr.name.value, c.alias.value, c.alias.quoted || c.expr.name.quoted)
        ? { ...c, alias: null }
        : c,
    ),
    from: mapItems(s.from, (f) =>
      f.alias &&
      f.source.kind === 'table' &&
      !f.columnAliases.length &&
      sameName(f.source.name.value, f.alias.value, f.alias.quoted || f.source.name.quoted)
        ? { ...f, alias: null }
        : f,
    ),
  });
}

export const columnAlias: CanonicalRule = {
  name: 'column-alias',
  description:
    'Alias formatting: aliases are always printed with AS; an alias equal to the name it renames (`name AS name`, `singer AS singer`) is dropped.',
  apply: (q) => (holds(q, FACT.alias) ? mapQuery(q, dropRedundant) : q),
};
