/**
 * Seed 001's internal intermediates of the Validation layer — ast_actual,
 * ast_expected, actual_result_table, expected_result_table, actual_schema,
 * expected_schema — written to the report only when asked for
 * (config.include: ["intermediates"], `--include intermediates`): they can
 * be large, and nothing downstream reads them from the report, so asking
 * for them never changes a verdict.
 */
import { canonicalizeQuery } from '../structure/canonicalize.ts';
import type { Dialect } from '../structure/grammar.ts';
import type { Query } from '../structure/ir.ts';
import type { ParseOutcome } from '../structure/parse.ts';
import { encodeResultTable, type JsonResultTable } from '../value/json-codec.ts';
import type { ResultTable } from '../value/kind.ts';

export { INCLUDE_OPTIONS, type IncludeOption } from './include-options.ts';

export interface SchemaColumn {
  name: string;
  /** The engine's own type name (DECIMAL(10,2), INTEGER, ...). */
  engine_type: string;
  /** The value model's kind (integer, decimal, date, ...). */
  kind: string;
}

export interface Intermediates {
  /**
   * The parsed query tree of each side: the structural layer's own tree
   * (src/core/structure/ir.ts), adapted from node-sql-parser's grammar AST;
   * null when that side did not parse (or there is no candidate).
   */
  ast_expected: Query | null;
  ast_actual: Query | null;
  /** The same trees after the canonicalization rules: what normalized_sql_* prints. */
  canonical_ast_expected: Query | null;
  canonical_ast_actual: Query | null;
  /** Every row of each result, in the exact JSON value codec; null when that side has no result. */
  expected_result_table: JsonResultTable | null;
  actual_result_table: JsonResultTable | null;
  expected_schema: SchemaColumn[] | null;
  actual_schema: SchemaColumn[] | null;
}

function schemaOf(table: ResultTable | null): SchemaColumn[] | null {
  return table ? table.columns.map((c) => ({ name: c.name, engine_type: c.engineType, kind: c.kind })) : null;
}

function tables(table: ResultTable | null): JsonResultTable | null {
  return table ? encodeResultTable({ columns: table.columns, rows: table.rows }) : null;
}

export function buildIntermediates(input: {
  dialect: Dialect;
  expectedParsed: ParseOutcome;
  actualParsed: ParseOutcome | null;
  expectedTable: ResultTable | null;
  actualTable: ResultTable | null;
}): Intermediates {
  const tree = (p: ParseOutcome | null) => (p?.ok ? p.value.query : null);
  const canonical = (p: ParseOutcome | null) => (p?.ok ? canonicalizeQuery(p.value.query, input.dialect).query : null);
  return {
    ast_expected: tree(input.expectedParsed),
    ast_actual: tree(input.actualParsed),
    canonical_ast_expected: canonical(input.expectedParsed),
    canonical_ast_actual: canonical(input.actualParsed),
    expected_result_table: tables(input.expectedTable),
    actual_result_table: tables(input.actualTable),
    expected_schema: schemaOf(input.expectedTable),
    actual_schema: schemaOf(input.actualTable),
  };
}
