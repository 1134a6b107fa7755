/**
 * What a tree holds that a rule could rewrite, read once per tree object: a
 * rule whose constructs are absent returns the tree at once instead of
 * rebuilding it. Most rules find nothing to do on most queries, and the
 * fixpoint pass (canonicalize.ts) runs every rule again, so this saves most
 * of the walks. The scan is generic (every object of the tree), so it cannot
 * miss a construct in a slot a typed walk would forget; each fact is a
 * superset of what its rule rewrites.
 */
import type { Query } from '../ir.ts';

export const FACT = {
  /** A `raw` expression (whitespace). */
  raw: 1 << 0,
  /** A function name not in upper case (keyword-case). */
  funcCase: 1 << 1,
  /** An unquoted identifier not in lower case (identifier-case). */
  identCase: 1 << 2,
  /** A column alias or a FROM alias (column-alias, table-alias). */
  alias: 1 << 3,
  /** A qualified column `t.c` (column-qualifier). */
  qualified: 1 << 4,
  /** A JOIN written INNER or CROSS (implicit-join). */
  explicitJoin: 1 << 5,
  /** A comma-joined FROM item (join-order). */
  comma: 1 << 6,
  /** Parentheses on an expression, or AND in AND / OR in OR unparenthesized (redundant-parentheses). */
  parens: 1 << 7,
  /** `!=` (not-equal). */
  notEqual: 1 << 8,
  /** A comparison that has a mirror (mirrored-comparison). */
  comparison: 1 << 9,
  /** An IN list of two values or more (in-list-order). */
  inList: 1 << 10,
  /** AND / OR (commutative-and-or). */
  logical: 1 << 11,
} as const;

const COMPARISONS = new Set(['=', '<>', '!=', '<', '>', '<=', '>=']);

const facts = new WeakMap<object, number>();

/** Does the tree hold any of `mask`'s constructs? (False: the rule that rewrites them has nothing to do.) */
export function holds(query: Query, mask: number): boolean {
  let f = facts.get(query);
  if (f === undefined) facts.set(query, (f = scan(query)));
  return (f & mask) !== 0;
}

function scan(value: unknown): number {
  if (Array.isArray(value)) {
    let f = 0;
    for (const x of value) if (typeof x === 'object' && x !== null) f |= scan(x);
    return f;
  }
  const o = value as Record<string, unknown>;
  let f = own(o);
  for (const k in o) {
    const v = o[k];
    if (typeof v === 'object' && v !== null) f |= scan(v);
  }
  return f;
}

/** The facts of one object (not of what it holds). */
function own(o: Record<string, unknown>): number {
  let f = 0;
  if (o.alias) f |= FACT.alias;
  if (o.join === 'COMMA') f |= FACT.comma;
  else if (o.join === 'INNER' || o.join === 'CROSS') f |= FACT.explicitJoin;
  if (o.parens && o.kind !== 'select' && o.kind !== 'setop') f |= FACT.parens;
  if (typeof o.value === 'string' && o.quoted === false && o.value !== o.value.toLowerCase()) f |= FACT.identCase;
  switch (o.kind) {
    case 'raw':
      return f | FACT.raw;
    case 'func':
      return typeof o.name === 'string' && o.name !== o.name.toUpperCase() ? f | FACT.funcCase : f;
    case 'column':
      return o.table ? f | FACT.qualified : f;
    case 'binary':
      if (o.op === '!=') f |= FACT.notEqual;
      return COMPARISONS.has(o.op as string) ? f | FACT.comparison : f;
    case 'in':
      return Array.isArray(o.values) && o.values.length > 1 ? f | FACT.inList : f;
    case 'logical': {
      const nested = (o.args as Record<string, unknown>[]).some(
        (a) => a.kind === 'logical' && a.op === o.op && !a.parens,
      );
      return f | FACT.logical | (nested ? FACT.parens : 0);
    }
    default:
      return f;
  }
}
