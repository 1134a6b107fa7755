/**
 * clause_weighted_distance and structure_score.
 *
 * Each clause of clause_match has a divergence d ∈ [0, 1]: the share of its
 * items (projection expressions, WHERE conjuncts, GROUP BY keys, tables and
 * join conditions, ...) that are inserted, removed or updated; for the nested
 * clauses (set operators, CTEs, subqueries) the mean divergence of the nested
 * comparisons, an unmatched nested query counting 1.
 *
 *   clause_weighted_distance = Σ_c w_c · d_c          (0 = identical)
 *   max_distance             = Σ_c w_c over clauses present in either query or differing
 *   clause_weighted_similarity = 1 − distance / max_distance   (1 when nothing is present)
 *   structure_score          = 1 if normalized_sql_match, else
 *                              (1 − α) · clause_weighted_similarity + α · [clause_match.match]
 *
 * with α = 0.2 by default, so that a pair whose every clause matches but whose
 * canonical texts still differ (a moved projection column) scores 1, and a
 * near miss stays below a clean match.
 */
import type { ClauseMatch, ClauseName } from './compare.ts';
import { CLAUSES } from './compare.ts';

export type ClauseWeights = Record<ClauseName, number>;

/**
 * Default weights: what a clause difference usually does to the answer.
 * Projection, filters and the join graph decide which rows and values come
 * back; grouping and set operators change the grain; ordering, limits and
 * DISTINCT change the shape less often.
 */
export const DEFAULT_CLAUSE_WEIGHTS: Readonly<ClauseWeights> = {
  select: 2,
  join: 2,
  where: 2,
  group_by: 1.5,
  having: 1,
  order_by: 1,
  limit_offset: 1,
  distinct: 0.5,
  window: 1,
  set_operators: 1.5,
  ctes: 1,
  subqueries: 1.5,
};

export interface ClauseDistance {
  /** Σ w_c · d_c; 0 = identical. */
  clause_weighted_distance: number;
  /** Σ w_c over the clauses present in either query. */
  max_distance: number;
  /** 1 − distance / max_distance. */
  clause_weighted_similarity: number;
  /** Per clause: weight, divergence and contribution, for the report. */
  per_clause: Partial<Record<ClauseName, { weight: number; divergence: number; contribution: number }>>;
}

export function clauseWeightedDistance(m: ClauseMatch, weights: Partial<ClauseWeights> = {}): ClauseDistance {
  const w: ClauseWeights = { ...DEFAULT_CLAUSE_WEIGHTS, ...weights };
  let distance = 0;
  let max = 0;
  const perClause: ClauseDistance['per_clause'] = {};
  for (const c of CLAUSES) {
    const d = m.clauses[c];
    // A clause absent from both queries does not count; one that differs always does (the FROM of a
    // single table is not a join, "present" false on both sides, yet FROM singer vs FROM stadium differs).
    if (!d.present.expected && !d.present.actual && d.divergence === 0) continue;
    const weight = Math.max(0, w[c]);
    const contribution = weight * d.divergence;
    distance += contribution;
    max += weight;
    perClause[c] = { weight, divergence: round(d.divergence), contribution: round(contribution) };
  }
  return {
    clause_weighted_distance: round(distance),
    max_distance: round(max),
    clause_weighted_similarity: max === 0 ? 1 : round(1 - distance / max),
    per_clause: perClause,
  };
}

export interface StructureScoreOptions {
  weights?: Partial<ClauseWeights>;
  /** Weight of the all-clauses-match bit in the blend (default 0.2). */
  matchWeight?: number;
}

export function structureScore(m: ClauseMatch, normalizedSqlMatch: boolean, opts: StructureScoreOptions = {}): number {
  if (normalizedSqlMatch) return 1;
  const alpha = opts.matchWeight ?? 0.2;
  const sim = clauseWeightedDistance(m, opts.weights).clause_weighted_similarity;
  return round((1 - alpha) * sim + alpha * (m.match ? 1 : 0));
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
