import { describe, expect, it } from 'vitest';
import { CLAUSES, compareStructure } from '../../src/core/structure/index.ts';
import type { ClauseName, Dialect } from '../../src/core/structure/index.ts';
import { readYaml } from './helpers.ts';

interface Case {
  name: string;
  dialect: Dialect;
  expected: string;
  actual: string;
  normalized?: boolean;
  match: boolean;
  /** Clauses whose verdict is stated (false = must not match; true = must match); unlisted clauses must match. */
  clauses?: Partial<Record<ClauseName, boolean>>;
  clauses_extra?: Partial<Record<ClauseName, boolean>>;
  edits?: string[];
}

const { cases } = readYaml<{ cases: Case[] }>('tests/structure/clause-match.cases.yaml');

describe('clause_match: table-driven pairs', () => {
  it('has at least 40 pairs, both dialects, every clause exercised', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    expect(new Set(cases.map((c) => c.dialect))).toEqual(new Set(['sqlite', 'duckdb']));
    const exercised = new Set(
      cases.flatMap((c) =>
        Object.entries({ ...c.clauses, ...c.clauses_extra })
          .filter(([, v]) => v === false)
          .map(([k]) => k),
      ),
    );
    expect([...exercised].sort()).toEqual([...CLAUSES].sort());
  });

  for (const c of cases) {
    it(`${c.dialect}: ${c.name}`, () => {
      const r = compareStructure(c.expected, c.actual, c.dialect);
      expect(r.blocked_reason).toBeNull();
      const m = r.clause_match!;
      if (c.normalized !== undefined) expect(r.normalized_sql_match).toBe(c.normalized);
      const stated = { ...c.clauses, ...c.clauses_extra };
      const verdicts = Object.fromEntries(CLAUSES.map((k) => [k, m.clauses[k].match]));
      const want = Object.fromEntries(CLAUSES.map((k) => [k, stated[k] ?? true]));
      expect(verdicts).toEqual(want);
      expect(m.match).toBe(c.match);
      if (c.edits) expect(m.edits.map((e) => e.text).sort()).toEqual([...c.edits].sort());
      // Distance: 0 exactly when nothing differs.
      if (m.match && !m.edits.some((e) => e.op === 'move')) expect(r.clause_weighted_distance).toBe(0);
      if (!m.match) expect(r.clause_weighted_distance).toBeGreaterThan(0);
      expect(r.structure_score).toBeGreaterThanOrEqual(0);
      expect(r.structure_score).toBeLessThanOrEqual(1);
    });
  }
});
