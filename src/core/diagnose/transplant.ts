/**
 * Counterfactual SQL: the candidate with one clause taken from the reference
 * (and the reverse). Executed in the sandbox, the swap that makes the results
 * agree is the strongest evidence of which clause is wrong (SPEC 2, layer 4).
 * Works on the structural layer's IR and prints SQL with its printer; only
 * plain SELECTs are transplanted (not set operations).
 */
import type { Query, Select } from '../structure/ir.ts';
import { sameTree } from '../structure/ir.ts';
import { printQuery } from '../structure/print.ts';
import type { Dialect } from '../structure/grammar.ts';

export const TRANSPLANT_CLAUSES = ['where', 'having', 'from', 'group_by', 'select', 'order_limit', 'distinct'] as const;
export type TransplantClause = (typeof TRANSPLANT_CLAUSES)[number];

/** Which likely_source_clause a fixing transplant points to. */
export const TRANSPLANT_SOURCE: Record<TransplantClause, string> = {
  where: 'selection_predicate',
  having: 'selection_predicate',
  from: 'join',
  group_by: 'aggregation_grain',
  select: 'projection',
  order_limit: 'top_k',
  distinct: 'projection',
};

export const TRANSPLANT_LABEL: Record<TransplantClause, string> = {
  where: 'WHERE',
  having: 'HAVING',
  from: 'FROM/JOIN',
  group_by: 'GROUP BY',
  select: 'SELECT list',
  order_limit: 'ORDER BY/LIMIT',
  distinct: 'DISTINCT',
};

function swap(target: Select, donor: Select, clause: TransplantClause): Select {
  const out: Select = { ...target };
  switch (clause) {
    case 'where':
      out.where = donor.where;
      break;
    case 'having':
      out.having = donor.having;
      break;
    case 'from':
      out.from = donor.from;
      break;
    case 'group_by':
      out.groupBy = donor.groupBy;
      break;
    case 'select':
      out.columns = donor.columns;
      break;
    case 'order_limit':
      out.orderBy = donor.orderBy;
      out.limit = donor.limit;
      out.offset = donor.offset;
      break;
    case 'distinct':
      out.distinct = donor.distinct;
      break;
  }
  return out;
}

/** The Select fields each transplant moves. */
const FIELDS: Record<TransplantClause, (keyof Select)[]> = {
  where: ['where'],
  having: ['having'],
  from: ['from'],
  group_by: ['groupBy'],
  select: ['columns'],
  order_limit: ['orderBy', 'limit', 'offset'],
  distinct: ['distinct'],
};

function clauseDiffers(a: Select, b: Select, clause: TransplantClause, dialect: Dialect): boolean {
  // Equal trees print the same: most clauses of a pair are equal, and need no printing.
  if (FIELDS[clause].every((k) => sameTree(a[k], b[k]))) return false;
  const probe = (s: Select) => printQuery(swap(emptySelect(), s, clause), dialect);
  return probe(a) !== probe(b);
}

function emptySelect(): Select {
  return {
    kind: 'select',
    with: null,
    distinct: null,
    columns: [],
    from: [],
    where: null,
    groupBy: [],
    having: null,
    windows: [],
    orderBy: [],
    limit: null,
    offset: null,
  };
}

export interface Transplant {
  clause: TransplantClause;
  /** candidate_with_reference_clause: the candidate repaired by one clause; reference_with_candidate_clause: the reverse. */
  direction: 'candidate_with_reference_clause' | 'reference_with_candidate_clause';
  sql: string;
}

/**
 * The transplants worth running: clauses whose printed form differs between
 * the two queries, both directions, at most `limit` SQL strings. CTEs are
 * shared by copying the donor's WITH when the target has none.
 */
export function planTransplants(expected: Query, actual: Query, dialect: Dialect, limit: number): Transplant[] {
  if (expected.kind !== 'select' || actual.kind !== 'select') return [];
  const out: Transplant[] = [];
  for (const clause of TRANSPLANT_CLAUSES) {
    if (!clauseDiffers(expected, actual, clause, dialect)) continue;
    const repaired = swap(actual, expected, clause);
    if (!repaired.with && expected.with && clause !== 'order_limit') repaired.with = expected.with;
    out.push({ clause, direction: 'candidate_with_reference_clause', sql: printQuery(repaired, dialect) });
    const broken = swap(expected, actual, clause);
    if (!broken.with && actual.with && clause !== 'order_limit') broken.with = actual.with;
    out.push({ clause, direction: 'reference_with_candidate_clause', sql: printQuery(broken, dialect) });
  }
  // Repairs first: they are the stronger evidence.
  out.sort((a, b) => (a.direction === b.direction ? 0 : a.direction === 'candidate_with_reference_clause' ? -1 : 1));
  return out.slice(0, limit);
}
