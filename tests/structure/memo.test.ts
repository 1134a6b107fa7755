/**
 * Parse once: one frozen outcome per (dialect, text), and the tree walk
 * behind sameTree gives exactly the answer of comparing stableJson strings,
 * on every canonicalization step of the built-in goldens' references.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { sameTree, stableJson } from '../../src/core/structure/ir.ts';
import { parseSql } from '../../src/core/structure/parse.ts';
import { RULES } from '../../src/core/structure/rules/index.ts';
import { repoRoot } from '../helpers/paths.ts';

const references = (
  parse(readFileSync(path.join(repoRoot, 'fixtures/corpora/execution_goldens.yaml'), 'utf8')) as {
    cases: { reference_sql?: string }[];
  }
).cases
  .map((c) => c.reference_sql)
  .filter((s): s is string => !!s);

describe('parse cache', () => {
  it('one outcome per dialect and text, frozen', () => {
    const sql = 'SELECT name FROM singer WHERE age > 30';
    const a = parseSql(sql, 'sqlite');
    expect(parseSql(sql, 'sqlite')).toBe(a);
    expect(parseSql(sql, 'duckdb')).not.toBe(a);
    if (!a.ok) throw new Error(a.error.message);
    expect(Object.isFrozen(a.value.query)).toBe(true);
    expect(() => {
      (a.value.query as { kind: string }).kind = 'changed';
    }).toThrow(TypeError);
  });
});

describe('sameTree', () => {
  it('agrees with stableJson equality on every rule step of the goldens', () => {
    let steps = 0;
    let changed = 0;
    for (const sql of references) {
      const parsed = parseSql(sql, 'duckdb');
      if (!parsed.ok) continue;
      let cur = parsed.value.query;
      for (const rule of RULES) {
        const next = rule.apply(cur, { dialect: 'duckdb' });
        const same = sameTree(next, cur);
        expect(same).toBe(stableJson(next) === stableJson(cur));
        steps++;
        if (!same) changed++;
        cur = next;
      }
    }
    // Both answers occur: the check is not vacuous.
    expect(steps).toBeGreaterThan(100);
    expect(changed).toBeGreaterThan(10);
    expect(changed).toBeLessThan(steps);
  });

  it('ignores key order, undefined fields and false parens; sees any other difference', () => {
    expect(sameTree({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(sameTree({ a: 1, parens: false, u: undefined }, { a: 1 })).toBe(true);
    expect(sameTree({ a: 1, parens: true }, { a: 1 })).toBe(false);
    expect(sameTree({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameTree({ a: null }, { a: 0 })).toBe(false);
    expect(sameTree([], {})).toBe(false);
  });
});
