/**
 * The comparison the self-check needs, as a plug-in. The default is the
 * product's policy at zero tolerance (`policy-compare.ts`); {@link exactCompare}
 * is a stricter, policy-free alternative (identical kinds and canonical cells).
 */
import { canonicalCell } from '../digest/canonical-dump.ts';
import type { ResultTable } from '../value/kind.ts';
import type { Shape } from './types.ts';

export interface CompareRequest {
  orderMatters: boolean;
  shape?: Shape;
}

export interface CompareVerdict {
  equal: boolean;
  /** Short reason codes with their evidence, e.g. "row_count_mismatch: expected 3, actual 2". */
  reasons: string[];
}

/** Compare an actual result with an expected one under some policy. */
export type ResultCompare = (expected: ResultTable, actual: ResultTable, request: CompareRequest) => CompareVerdict;

function rowText(table: ResultTable, r: number): string {
  return table.rows[r]!.map((cell, i) => canonicalCell(table.columns[i]!, cell)).join('\t');
}

/**
 * Zero tolerance: the same columns (count and kind), and cells with the same
 * canonical value (decimals by value: 12.50 = 12.5; floats exactly); rows as a
 * bag, or in the same order when order matters. Column names are not compared.
 */
export const exactCompare: ResultCompare = (expected, actual, request) => {
  const reasons: string[] = [];
  if (expected.columns.length !== actual.columns.length)
    return {
      equal: false,
      reasons: [`column_count_mismatch: expected ${expected.columns.length}, actual ${actual.columns.length}`],
    };
  expected.columns.forEach((c, i) => {
    const a = actual.columns[i]!;
    if (c.kind !== a.kind)
      reasons.push(`type_mismatch: column ${i + 1} (${c.name}) expected ${c.kind}, actual ${a.kind} (${a.engineType})`);
  });
  if (request.shape === 'scalar' && (actual.rows.length !== 1 || actual.columns.length !== 1))
    reasons.push(`scalar_shape: expected 1 row × 1 column, actual ${actual.rows.length} × ${actual.columns.length}`);
  if (expected.rows.length !== actual.rows.length) {
    reasons.push(`row_count_mismatch: expected ${expected.rows.length}, actual ${actual.rows.length}`);
    return { equal: false, reasons };
  }
  const e = expected.rows.map((_, r) => rowText(expected, r));
  const a = actual.rows.map((_, r) => rowText(actual, r));
  if (request.orderMatters) {
    const at = e.findIndex((row, r) => row !== a[r]);
    if (at >= 0) {
      const sameBag = [...e].sort().join('\n') === [...a].sort().join('\n');
      reasons.push(
        sameBag
          ? `order_violation: first at row ${at + 1}`
          : `value_mismatch: row ${at + 1} expected [${e[at]}], actual [${a[at]}]`,
      );
    }
  } else {
    const counts = new Map<string, number>();
    for (const row of e) counts.set(row, (counts.get(row) ?? 0) + 1);
    const extra: string[] = [];
    for (const row of a) {
      const n = counts.get(row) ?? 0;
      if (n > 0) counts.set(row, n - 1);
      else extra.push(row);
    }
    if (extra.length > 0) {
      const missing = [...counts].find(([, n]) => n > 0)?.[0];
      reasons.push(`value_mismatch: ${extra.length} row(s) differ; expected [${missing ?? ''}], actual [${extra[0]}]`);
    }
  }
  return { equal: reasons.length === 0, reasons };
};
