/**
 * resource_cost_score (seed 001, Optional Performance Metrics): how much
 * work the candidate makes the engine do, relative to the reference, from
 * what the engine exposes. 1 is the same work; 2 is twice; 0.5 half.
 *
 * The work of one query is, in order of preference:
 * - `operator_rows`: the rows every plan operator produced, summed — measured
 *   by DuckDB's EXPLAIN ANALYZE (the sandbox allows it: the statement passes
 *   the same gate as execute), or the optimizer's estimates when only EXPLAIN
 *   is available. A join fan-out multiplies these rows before any aggregate
 *   hides them, which is what the metric is for.
 * - `result_bytes`: the size of the materialized result in the exact JSON
 *   value codec — the only measure SQLite gives (its EXPLAIN QUERY PLAN has
 *   no cardinalities).
 * Both sides always use the same basis; `rows_scanned` (rows produced by scan
 * operators) and `result_rows` are reported beside it.
 */
import type { PlanSummary } from '../engine.ts';
import { encodeResultTable } from '../value/json-codec.ts';
import type { ResultTable } from '../value/kind.ts';

export type ResourceCostBasis = 'operator_rows' | 'result_bytes';

export interface QueryResourceCost {
  /** Rows produced by all plan operators; null when the engine gives no cardinalities. */
  operator_rows: number | null;
  /** Rows produced by the scan operators (rows read from tables). */
  rows_scanned: number | null;
  /** Where the cardinalities came from. */
  cardinality_source: 'analyze' | 'estimate' | null;
  result_rows: number;
  /** UTF-8 bytes of the result rows in the exact JSON codec. */
  result_bytes: number;
}

export interface ResourceCost {
  resource_cost_score: number | null;
  basis: ResourceCostBasis;
  actual: QueryResourceCost;
  expected: QueryResourceCost;
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** The measures of one query from its plan (may be null) and its materialized result. */
export function queryResourceCost(plan: PlanSummary | null, table: ResultTable): QueryResourceCost {
  const cards = plan?.cardinalities ?? null;
  return {
    operator_rows: cards ? cards.reduce((sum, c) => sum + c.rows, 0) : null,
    rows_scanned: cards ? cards.filter((c) => /SCAN/.test(c.operator)).reduce((sum, c) => sum + c.rows, 0) : null,
    cardinality_source: cards ? (plan?.cardinality_source ?? 'estimate') : null,
    result_rows: table.rows.length,
    result_bytes: utf8Length(JSON.stringify(encodeResultTable(table).rows)),
  };
}

/** Candidate work over reference work on a common basis, to three places; null when the reference did none. */
export function resourceCost(actual: QueryResourceCost, expected: QueryResourceCost): ResourceCost {
  const byRows =
    actual.operator_rows !== null &&
    expected.operator_rows !== null &&
    actual.cardinality_source === expected.cardinality_source;
  const basis: ResourceCostBasis = byRows ? 'operator_rows' : 'result_bytes';
  const a = byRows ? actual.operator_rows! : actual.result_bytes;
  const e = byRows ? expected.operator_rows! : expected.result_bytes;
  return { resource_cost_score: e > 0 ? Math.round((a / e) * 1000) / 1000 : null, basis, actual, expected };
}
