import type { Expr, Select } from '../ir.ts';
import { mapExpr, mapQuery, mapSelectExprs } from '../ir.ts';
import type { CanonicalRule } from './types.ts';
import { FACT, holds } from './facts.ts';

const lc = (s: string) => s.toLowerCase();

function unqualify(s: Select): Select {
  if (s.from.length !== 1) return s;
  const only = s.from[0]!;
  const binding = only.alias ? only.alias.value : only.source.kind === 'table' ? only.source.name.value : null;
  if (!binding) return s;
  const b = lc(binding);
  // An unqualified name may resolve to an output alias (ORDER BY, GROUP BY, and in DuckDB even WHERE): leave those qualified.
  const aliases = new Set(s.columns.flatMap((c) => (c.alias ? [lc(c.alias.value)] : [])));
  const strip = (e: Expr): Expr =>
    mapExpr(e, (x) => {
      if (x.kind === 'column' && x.table && lc(x.table.value) === b && !aliases.has(lc(x.name.value)))
        return { ...x, table: null };
      return x;
    });
  return mapSelectExprs(s, strip);
}

export const columnQualifier: CanonicalRule = {
  name: 'column-qualifier',
  description:
    'In a SELECT over a single FROM item, `t.col` is written `col` (it can only mean that item), except where `col` is also an output alias.',
  apply: (q) => (holds(q, FACT.qualified) ? mapQuery(q, unqualify) : q),
};
