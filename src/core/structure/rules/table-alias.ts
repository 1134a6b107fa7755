import type { Expr, FromItem, Ident, Query, Select } from '../ir.ts';
import { childQueries, forEachExpr, mapExpr, mapQuery, mapSelectExprs, selectExprs } from '../ir.ts';
import type { CanonicalRule } from './types.ts';
import { FACT, holds } from './facts.ts';

const lc = (s: string) => s.toLowerCase();

/** Names a SELECT's FROM binds: each item's alias, or its table name. */
function bindings(s: Select): string[] {
  return s.from.flatMap((f) =>
    f.alias ? [lc(f.alias.value)] : f.source.kind === 'table' ? [lc(f.source.name.value)] : [],
  );
}

function nestedQueries(s: Select): Query[] {
  const out = selectExprs(s).flatMap(childQueries);
  for (const f of s.from) if (f.source.kind === 'derived') out.push(f.source.query);
  return out;
}

function ownRefs(s: Select, name: string): boolean {
  let found = false;
  for (const e of selectExprs(s)) {
    forEachExpr(e, (x) => {
      if ((x.kind === 'column' || x.kind === 'star') && x.table && lc(x.table.value) === name) found = true;
    });
  }
  return found;
}

/** Does the query refer to qualifier `name` where it is not re-bound? */
function refersTo(q: Query, name: string): boolean {
  if (q.kind === 'setop') return q.arms.some((a) => refersTo(a, name));
  if (bindings(q).includes(name)) return false;
  return ownRefs(q, name) || nestedQueries(q).some((n) => refersTo(n, name));
}

class Unsafe extends Error {}

function renameRefs(e: Expr, a: string, t: Ident): Expr {
  return mapExpr(
    e,
    (x) => ((x.kind === 'column' || x.kind === 'star') && x.table && lc(x.table.value) === a ? { ...x, table: t } : x),
    (q) => renameQuery(q, a, t),
  );
}

function renameQuery(q: Query, a: string, t: Ident): Query {
  if (q.kind === 'setop') return { ...q, arms: q.arms.map((arm) => renameQuery(arm, a, t)) };
  const b = bindings(q);
  if (b.includes(a)) return q;
  if (b.includes(lc(t.value))) {
    if (refersTo(q, a)) throw new Unsafe();
    return q;
  }
  return renameIn(q, a, t);
}

function renameIn(s: Select, a: string, t: Ident): Select {
  const out = mapSelectExprs(s, (e) => renameRefs(e, a, t));
  return {
    ...out,
    from: out.from.map((f) =>
      f.source.kind === 'derived' ? { ...f, source: { kind: 'derived', query: renameQuery(f.source.query, a, t) } } : f,
    ),
  };
}

function resolve(s: Select): Select {
  let cur = s;
  for (let i = 0; i < cur.from.length; i++) {
    const f: FromItem = cur.from[i]!;
    if (f.source.kind !== 'table' || !f.alias || f.columnAliases.length) continue;
    const table = f.source.name;
    const a = lc(f.alias.value);
    const t = lc(table.value);
    if (a === t) {
      cur = { ...cur, from: cur.from.map((x, k) => (k === i ? { ...x, alias: null } : x)) };
      continue;
    }
    const sameTable = cur.from.filter((x) => x.source.kind === 'table' && lc(x.source.name.value) === t).length;
    const clash = cur.from.some((x, k) => k !== i && x.alias && lc(x.alias.value) === t);
    if (sameTable !== 1 || clash) continue;
    // A `t.x` already in this scope means an outer `t`: renaming would capture it.
    if (ownRefs(cur, t) || nestedQueries(cur).some((q) => refersTo(q, t))) continue;
    try {
      const renamed = renameIn(
        { ...cur, from: cur.from.map((x, k) => (k === i ? { ...x, alias: null } : x)) },
        a,
        table,
      );
      cur = renamed;
    } catch (thrown) {
      if (!(thrown instanceof Unsafe)) throw thrown;
    }
  }
  return cur;
}

/**
 * Rename qualifier `from` to `to` in one SELECT and its nested scopes (not where
 * re-bound). Null when a nested scope would capture the new name.
 */
export function renameQualifier(s: Select, from: string, to: Ident): Select | null {
  try {
    return renameIn(s, lc(from), to);
  } catch (thrown) {
    if (thrown instanceof Unsafe) return null;
    throw thrown;
  }
}

export const tableAlias: CanonicalRule = {
  name: 'table-alias',
  description:
    'A table alias is replaced by the table name it stands for (FROM singer AS T1 … T1.name → FROM singer … singer.name) when the table occurs once in its scope and no nested scope would capture the name differently.',
  apply: (q) => (holds(q, FACT.alias) ? mapQuery(q, resolve) : q),
};
