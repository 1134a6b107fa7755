/**
 * Two results that are the same table: the same columns (names, kinds and
 * engine types, in order) and the same rows in the same order, cell for cell.
 * Every comparison mode passes such a pair, so a caller that only needs the
 * verdict (a counterfactual transplant that gives back the target's rows)
 * can skip the full comparison. Nested values, floats that are not equal to
 * themselves and NULLs (unequal under sql_semantic) are left to compareResults.
 */
import type { Cell, ResultTable } from '../value/kind.ts';

function sameCell(a: Cell, b: Cell): boolean {
  if (a === b) return a !== null;
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  return false;
}

export function identicalResults(a: ResultTable, b: ResultTable): boolean {
  if (a.columns.length !== b.columns.length || a.rows.length !== b.rows.length) return false;
  for (let j = 0; j < a.columns.length; j++) {
    const x = a.columns[j]!;
    const y = b.columns[j]!;
    if (x.name !== y.name || x.kind !== y.kind || x.engineType !== y.engineType || x.children || y.children)
      return false;
  }
  for (let i = 0; i < a.rows.length; i++) {
    const r = a.rows[i]!;
    const s = b.rows[i]!;
    if (r.length !== s.length) return false;
    for (let j = 0; j < r.length; j++) if (!sameCell(r[j]!, s[j]!)) return false;
  }
  return true;
}
