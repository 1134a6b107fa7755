/** Layer 3 as a stage: the two results compared under the case's policy. */
import type { Compared, Validated } from '../evaluation/case-record.ts';
import type { ClauseFeatures } from '../structure/features.ts';
import type { ResultTable } from '../value/kind.ts';
import { compareResults } from './compare.ts';

/** ORDER BY keys of the reference as indices into its result columns, or null when unknown. */
export function orderKeyIndices(features: ClauseFeatures | null, expected: ResultTable): number[] | null {
  if (!features) return null;
  // A star (`*`, `t.*`, COLUMNS(*)) yields many output columns: a projection's place in the SELECT list
  // is its output column only before the star, or after a single star once its width is known
  // (`SELECT *, upper(s) AS u … ORDER BY u` has u at output column 5, not 1).
  const stars = features.projections.flatMap((p, i) => (/(^|\.)\*$|^COLUMNS\(/i.test(p.expr) ? [i] : []));
  const starWidth = expected.columns.length - (features.projections.length - 1);
  const outputOf = (p: number): number => {
    if (p < 0 || !stars.length || p < stars[0]!) return p;
    if (stars.length > 1 || starWidth < 0 || p === stars[0]) return -1;
    return p + starWidth - 1;
  };
  const keys: number[] = [];
  for (const key of features.orderBy) {
    // A bare integer is a position in the output (ORDER BY 3), also over SELECT *, where no projection
    // names the column: the keys were unknown and the order strict, failing candidates that break ties
    // another way.
    if (/^\d+$/.test(key.expr)) {
      const position = Number(key.expr);
      if (position < 1 || position > expected.columns.length) return null;
      keys.push(position - 1);
      continue;
    }
    let index = outputOf(
      features.projections.findIndex((p) => p.expr === key.expr || (p.alias !== null && p.alias === key.expr)),
    );
    if (index < 0) index = expected.columns.findIndex((c) => c.name === key.expr);
    if (index < 0 || index >= expected.columns.length) return null;
    keys.push(index);
  }
  return keys;
}

/** Only for a case nothing blocked: both tables exist. */
export function compareStage(v: Validated): Compared {
  const t = v.now();
  const tables = { expected: v.tables.expected!, actual: v.tables.actual! };
  const orderKeys = orderKeyIndices(v.parsed.expectedFeatures, tables.expected);
  const result = compareResults(tables.expected, tables.actual, v.comparison, {
    ...(v.request.context.shape ? { shape: v.request.context.shape } : {}),
    orderKeys,
  });
  return {
    ...v,
    tables,
    result,
    pass: result.result_equality_family.mode_pass,
    orderKeys,
    timings: { ...v.timings, compare: v.now() - t },
  };
}
