import { describe, expect, it } from 'vitest';
import { parseSql, printQuery, RULES } from '../../src/core/structure/index.ts';
import type { Dialect } from '../../src/core/structure/index.ts';
import { ruleFixtures } from './helpers.ts';

const fixtures = ruleFixtures();

describe('canonicalization rules: one fixture per rule', () => {
  it('every rule has a fixture and every fixture names a rule', () => {
    expect(fixtures.map((f) => f.rule).sort()).toEqual(RULES.map((r) => r.name).sort());
  });

  for (const rule of RULES) {
    const fixture = fixtures.find((f) => f.rule === rule.name);
    describe(rule.name, () => {
      it('has a description and at least two pairs', () => {
        expect(rule.description.length).toBeGreaterThan(20);
        expect(fixture?.pairs.length ?? 0).toBeGreaterThanOrEqual(2);
      });
      for (const pair of fixture?.pairs ?? []) {
        for (const dialect of pair.dialects ?? (['sqlite', 'duckdb'] as Dialect[])) {
          it(`${dialect}: ${pair.in}`, () => {
            const parsed = parseSql(pair.in, dialect);
            if (!parsed.ok) throw new Error(parsed.error.message);
            const once = rule.apply(parsed.value.query, { dialect });
            expect(printQuery(once, dialect)).toBe(pair.out);
            // A rule is idempotent on its own output, and its output parses.
            expect(printQuery(rule.apply(once, { dialect }), dialect)).toBe(pair.out);
            expect(parseSql(pair.out, dialect).ok).toBe(true);
          });
        }
      }
    });
  }
});
