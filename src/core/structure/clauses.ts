/** The clauses the structural layer compares, and how edit texts name them (no parser imports: the UI uses it). */
export const CLAUSES = [
  'select',
  'join',
  'where',
  'group_by',
  'having',
  'order_by',
  'limit_offset',
  'distinct',
  'window',
  'set_operators',
  'ctes',
  'subqueries',
] as const;
export type ClauseName = (typeof CLAUSES)[number];

/** How each clause is named in edit texts. */
export const CLAUSE_LABEL: Record<ClauseName, string> = {
  select: 'SELECT',
  join: 'JOIN',
  where: 'WHERE',
  group_by: 'GROUP BY',
  having: 'HAVING',
  order_by: 'ORDER BY',
  limit_offset: 'LIMIT/OFFSET',
  distinct: 'DISTINCT',
  window: 'WINDOW/OVER',
  set_operators: 'Set operators',
  ctes: 'WITH',
  subqueries: 'Subqueries',
};
