/**
 * The production tolerances (STEF rules 3 and 4) as a stage: a safety LIMIT
 * that cuts nothing, and an ORDER BY the question did not ask for, are not
 * counted as structural differences. Returns a new structure; the one the
 * validation stage built is left as it was.
 */
import type { Compared, Tolerated } from '../evaluation/case-record.ts';
import type { Warning } from '../report/report.ts';
import type { ClauseMatch } from './compare.ts';
import { clauseWeightedDistance, structureScore } from './distance.ts';

function withoutEdits(m: ClauseMatch, clause: keyof ClauseMatch['clauses']): ClauseMatch {
  const c = m.clauses[clause];
  const clauses = {
    ...m.clauses,
    [clause]: { ...c, match: true, divergence: 0, edits: c.edits.filter((e) => e.op === 'keep') },
  };
  const edits = m.edits.filter((e) => e.clause !== clause);
  return { match: Object.values(clauses).every((x) => x.match), clauses, edits };
}

export function tolerate(c: Compared): Tolerated {
  const structure = c.structure;
  const base = structure?.clause_match ?? null;
  const { expectedFeatures, actualFeatures } = c.parsed;
  const untouched: Tolerated = { ...c, structureScore: structure?.structure_score ?? null, clauseMatch: base };
  if (!structure || !base || !expectedFeatures || !actualFeatures) return untouched;
  let clauseMatch = base;
  const warnings: Warning[] = [];
  const aLimit = actualFeatures.limit;
  const threshold = c.config.safety_limit_threshold;
  if (
    expectedFeatures.limit === null &&
    typeof aLimit === 'number' &&
    aLimit >= threshold &&
    c.tables.actual.rows.length < aLimit
  ) {
    clauseMatch = withoutEdits(clauseMatch, 'limit_offset');
    warnings.push({
      code: 'safety_limit_tolerated',
      message: `LIMIT ${aLimit} is a safety guard (≥ ${threshold}, the result is not cut), not a top-k: not counted as a difference.`,
    });
  }
  const orderFree = c.comparison.comparison_mode === 'order-insensitive';
  if (orderFree && expectedFeatures.orderBy.length === 0 && actualFeatures.orderBy.length > 0) {
    clauseMatch = withoutEdits(clauseMatch, 'order_by');
    warnings.push({
      code: 'default_order_by_tolerated',
      message:
        'The candidate adds an ORDER BY the question did not ask for: tolerated (row order is not part of this answer).',
    });
  }
  if (clauseMatch === base) return { ...untouched, warnings: [...c.warnings, ...warnings] };
  const score = structureScore(clauseMatch, structure.normalized_sql_match);
  const distance = clauseWeightedDistance(clauseMatch);
  return {
    ...c,
    warnings: [...c.warnings, ...warnings],
    structure: {
      ...structure,
      clause_match: clauseMatch,
      clause_distance: distance,
      clause_weighted_distance: distance.clause_weighted_distance,
      structure_score: score,
    },
    structureScore: score,
    clauseMatch,
  };
}
