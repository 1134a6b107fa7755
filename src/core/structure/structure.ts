/**
 * The structural layer for one pair, as the pipeline consumes it: parse both
 * SQL strings, canonicalize, compare clause by clause, score. Output field
 * names are the seed's (snake_case).
 */
import type { ClauseMatch } from './compare.ts';
import { compareClauses } from './compare.ts';
import { canonicalizeQuery } from './canonicalize.ts';
import type { ClauseDistance, ClauseWeights } from './distance.ts';
import { clauseWeightedDistance, structureScore } from './distance.ts';
import type { Dialect } from './grammar.ts';
import type { Hardness } from './hardness.ts';
import { hardnessCounts, hardnessLevel } from './hardness.ts';
import type { ParseFailure, ParseWarning } from './parse.ts';
import { parseSql } from './parse.ts';

export interface StructuralComparison {
  dialect: Dialect;
  parse_success_expected: boolean;
  parse_success_actual: boolean;
  parse_error_expected: ParseFailure | null;
  parse_error_actual: ParseFailure | null;
  normalized_sql_expected: string | null;
  normalized_sql_actual: string | null;
  normalized_sql_match: boolean;
  /** Null when either side did not parse (see blocked_reason). */
  clause_match: ClauseMatch | null;
  clause_weighted_distance: number | null;
  clause_distance: ClauseDistance | null;
  structure_score: number | null;
  /** Spider hardness of each side (null when it did not parse). */
  difficulty_expected: Hardness | null;
  difficulty_actual: Hardness | null;
  /** Canonicalization rules that changed each side. */
  rules_applied_expected: string[];
  rules_applied_actual: string[];
  warnings: { side: 'expected' | 'actual'; warning: ParseWarning }[];
  /**
   * The engine runs that side's SQL but the structural parser cannot parse
   * it (set by the pipeline, which knows what the engine said): that side's
   * parse_success_* is then true and its parse_error_* carries the code
   * validation.parser_unsupported.
   */
  parser_unsupported_expected: boolean;
  parser_unsupported_actual: boolean;
  /**
   * Why the clause comparison did not run: `parse_failure` (the SQL does not
   * parse), or `parser_unsupported` (valid SQL the structural parser cannot
   * read: results are still compared).
   */
  blocked_reason: 'parse_failure' | 'parser_unsupported' | null;
}

export interface CompareStructureOptions {
  weights?: Partial<ClauseWeights>;
  /** Weight of the all-clauses-match bit in structure_score (default 0.2). */
  matchWeight?: number;
  /** Quoted identifiers are case-sensitive, as in PostgreSQL (`"A"` is not `a`); DuckDB and SQLite: false. */
  quotedIdentifierCase?: boolean;
}

/** Layer 2 for one pair. Never throws for user SQL. */
export function compareStructure(
  expectedSql: string,
  actualSql: string,
  dialect: Dialect,
  opts: CompareStructureOptions = {},
): StructuralComparison {
  const pe = parseSql(expectedSql, dialect);
  const pa = parseSql(actualSql, dialect);
  const ce = pe.ok ? canonicalizeQuery(pe.value.query, dialect) : null;
  const ca = pa.ok ? canonicalizeQuery(pa.value.query, dialect) : null;
  const level = (q: typeof pe) => {
    if (!q.ok) return null;
    const c = hardnessCounts(q.value.query);
    return hardnessLevel(c.component1, c.component2, c.others);
  };
  const base: StructuralComparison = {
    dialect,
    parse_success_expected: pe.ok,
    parse_success_actual: pa.ok,
    parse_error_expected: pe.ok ? null : pe.error,
    parse_error_actual: pa.ok ? null : pa.error,
    normalized_sql_expected: ce?.sql ?? null,
    normalized_sql_actual: ca?.sql ?? null,
    normalized_sql_match: !!ce && !!ca && ce.sql === ca.sql,
    clause_match: null,
    clause_weighted_distance: null,
    clause_distance: null,
    structure_score: null,
    difficulty_expected: level(pe),
    difficulty_actual: level(pa),
    rules_applied_expected: ce?.applied ?? [],
    rules_applied_actual: ca?.applied ?? [],
    warnings: [
      ...(pe.ok ? pe.value.warnings.map((warning) => ({ side: 'expected' as const, warning })) : []),
      ...(pa.ok ? pa.value.warnings.map((warning) => ({ side: 'actual' as const, warning })) : []),
    ],
    parser_unsupported_expected: false,
    parser_unsupported_actual: false,
    blocked_reason: ce && ca ? null : 'parse_failure',
  };
  if (!ce || !ca) return base;
  const clauseMatch = compareClauses(ce.query, ca.query, dialect, {
    canonical: true,
    quotedIdentifierCase: opts.quotedIdentifierCase === true,
  });
  const distance = clauseWeightedDistance(clauseMatch, opts.weights);
  return {
    ...base,
    clause_match: clauseMatch,
    clause_weighted_distance: distance.clause_weighted_distance,
    clause_distance: distance,
    structure_score: structureScore(clauseMatch, base.normalized_sql_match, {
      weights: opts.weights,
      matchWeight: opts.matchWeight,
    }),
  };
}

/**
 * The structure section once the engine has spoken: a side the engine runs
 * but the parser cannot read is parser_unsupported, not a parse failure.
 */
export function markParserUnsupported(
  s: StructuralComparison,
  sides: { expected: boolean; actual: boolean },
): StructuralComparison {
  if (!sides.expected && !sides.actual) return s;
  const relabel = (e: ParseFailure | null): ParseFailure | null =>
    e ? { ...e, code: 'validation.parser_unsupported' } : e;
  const out: StructuralComparison = {
    ...s,
    parser_unsupported_expected: sides.expected,
    parser_unsupported_actual: sides.actual,
    parse_success_expected: s.parse_success_expected || sides.expected,
    parse_success_actual: s.parse_success_actual || sides.actual,
    parse_error_expected: sides.expected ? relabel(s.parse_error_expected) : s.parse_error_expected,
    parse_error_actual: sides.actual ? relabel(s.parse_error_actual) : s.parse_error_actual,
  };
  // Still parse_failure if a side the parser rejected is not one the engine runs.
  if (out.blocked_reason === 'parse_failure' && out.parse_success_expected && out.parse_success_actual)
    out.blocked_reason = 'parser_unsupported';
  return out;
}
