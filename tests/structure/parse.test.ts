import { describe, expect, it } from 'vitest';
import {
  CONSTRUCTS,
  detectConstructs,
  GRAMMAR_CHAIN,
  parseSql,
  printQuery,
  unsupportedConstruct,
} from '../../src/core/structure/index.ts';
import type { Dialect } from '../../src/core/structure/index.ts';

describe('parseSql: guarded holes of the parser', () => {
  for (const dialect of ['sqlite', 'duckdb'] as Dialect[]) {
    it(`${dialect}: empty text, whitespace, a bare comment or ';' is empty_sql, not a query`, () => {
      for (const sql of ['', '   \n', '-- nothing here', '/* a comment */', ';', ' ; ; ']) {
        const r = parseSql(sql, dialect);
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.error.code).toBe('validation.empty_sql');
      }
    });
    it(`${dialect}: several statements are refused`, () => {
      const r = parseSql('SELECT 1; SELECT 2', dialect);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.statement_kind).toBe('multiple_statements');
    });
    it(`${dialect}: a non-SELECT statement is not a query`, () => {
      const r = parseSql('DROP TABLE singer', dialect);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.code).toBe('validation.parse_error');
    });
    it(`${dialect}: SELECT a b FROM t parses as an alias, with a warning`, () => {
      const r = parseSql('SELECT name country FROM singer', dialect);
      expect(r.ok).toBe(true);
      if (r.ok) {
        expect(r.value.warnings.map((w) => w.code)).toEqual(['implicit_column_alias']);
        expect(printQuery(r.value.query, dialect)).toBe('SELECT name AS country FROM singer');
      }
      const explicit = parseSql('SELECT name AS country FROM singer', dialect);
      expect(explicit.ok && explicit.value.warnings).toEqual([]);
    });
    it(`${dialect}: a trailing semicolon and comments are fine`, () => {
      const r = parseSql('-- top\nSELECT name FROM singer; -- end', dialect);
      expect(r.ok).toBe(true);
    });
    it(`${dialect}: a syntax error is data with the position, never a throw`, () => {
      const r = parseSql('SELECT name FROM singer WHERE', dialect);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe('validation.parse_error');
        expect(r.error.attempts.length).toBe(GRAMMAR_CHAIN[dialect].length);
      }
    });
  }

  it('AND binds tighter than OR (node-sql-parser reads them left to right; repaired)', () => {
    const r = parseSql('SELECT a FROM t WHERE x = 1 OR y = 2 AND z = 3', 'sqlite');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const w = r.value.query.kind === 'select' ? r.value.query.where : null;
    expect(w?.kind).toBe('logical');
    if (w?.kind === 'logical') {
      expect(w.op).toBe('OR');
      expect(w.args[1]?.kind).toBe('logical');
    }
    const grouped = parseSql('SELECT a FROM t WHERE (x = 1 OR y = 2) AND z = 3', 'sqlite');
    expect(
      grouped.ok &&
        grouped.value.query.kind === 'select' &&
        grouped.value.query.where?.kind === 'logical' &&
        grouped.value.query.where.op,
    ).toBe('AND');
  });

  it('a tree that lost a set operation or a parenthesized arm is refused (keyword accounting)', () => {
    for (const dialect of ['sqlite', 'duckdb'] as Dialect[]) {
      for (const sql of [
        'SELECT a FROM t UNION (SELECT b FROM u)',
        "SELECT a FROM t WHERE s = 'x' UNION (SELECT b FROM u GROUP BY b)",
      ]) {
        const r = parseSql(sql, dialect);
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.error.constructs[0]).toBe('parenthesized set-operation arm');
      }
    }
  });

  it('CROSS JOIN is a join, not an alias named CROSS', () => {
    const r = parseSql('SELECT count(*) FROM singer CROSS JOIN concert', 'sqlite');
    expect(r.ok && printQuery(r.value.query, 'sqlite')).toBe('SELECT COUNT(*) FROM singer CROSS JOIN concert');
  });

  it('SQLite falls back to the noql grammar for INTERSECT, EXCEPT and window functions', () => {
    for (const sql of [
      'SELECT a FROM t INTERSECT SELECT a FROM u',
      'SELECT a FROM t EXCEPT SELECT a FROM u',
      'SELECT a, rank() OVER (ORDER BY a) FROM t',
    ]) {
      const r = parseSql(sql, 'sqlite');
      expect(r.ok).toBe(true);
      if (r.ok) expect(r.value.grammar).toBe('noql');
    }
  });
});

describe('dialect constructs the parser does not support', () => {
  for (const c of CONSTRUCTS) {
    it(`${c.name}: detected, and rejected by ${c.unsupportedBy.join(' and ')}`, () => {
      expect(detectConstructs(c.example)).toContain(c.name);
      for (const dialect of c.unsupportedBy) {
        const r = parseSql(c.example, dialect);
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.error.constructs[0]).toBe(c.name);
        expect(unsupportedConstruct(c.example, dialect)).toBe(c.name);
      }
    });
  }
  it('names nothing for plain SQL', () => {
    expect(unsupportedConstruct('SELECT a FROM t WHERE b = 1', 'duckdb')).toBeNull();
  });
});
