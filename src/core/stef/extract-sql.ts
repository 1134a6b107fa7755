/** SQL side of the extraction: the structural layer's clause features, normalized. */
import type { Dialect, ParseFailure } from '../structure/index.ts';
import { clauseFeatures, parseSql } from '../structure/index.ts';
import { normValue } from './normalize.ts';
import type { SqlSpec } from './types.ts';

export type SqlSpecOutcome = { ok: true; value: SqlSpec; text: string } | { ok: false; error: ParseFailure };

/** Parse S and extract its semantic specification (outermost query). */
export function extractSql(sql: string, dialect: Dialect = 'duckdb'): SqlSpecOutcome {
  const parsed = parseSql(sql, dialect);
  if (!parsed.ok) return parsed;
  const f = clauseFeatures(parsed.value.query, dialect);
  const spec: SqlSpec = {
    projections: f.projections.map((p) => ({
      expr: p.expr,
      aggregate: p.aggregate,
      columns: p.columns.map((c) => c.column.toLowerCase()),
    })),
    aggregations: f.aggregates.map((a) => ({ func: a.func, args: a.args, distinct: a.distinct })),
    filters: f.filters.map((x) => ({
      clause: x.clause,
      expr: x.expr,
      column: x.column?.column.toLowerCase() ?? null,
      subject: x.subject,
      operator: x.operator.toUpperCase(),
      values: x.values.map(normValue),
    })),
    groupBy: f.groupBy,
    groupedColumns: f.groupedColumns.map((c) => c.column.toLowerCase()),
    orderBy: f.orderBy.map((o) => ({ expr: o.expr, direction: o.direction })),
    limit: typeof f.limit === 'number' ? f.limit : null,
    complex: f.subqueryCount > 0 || f.ctes.length > 0 || f.setOperators.length > 0 || f.windows.length > 0,
    tables: f.tables.map((t) => t.name),
  };
  return { ok: true, value: spec, text: parsed.value.sql };
}
