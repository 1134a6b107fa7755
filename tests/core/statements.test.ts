import { describe, expect, it } from 'vitest';
import { lexStatements, precheckStatement } from '../../src/core/sandbox/statements.ts';

describe('lexStatements', () => {
  it.each([
    ['SELECT 1', 1],
    ['SELECT 1;', 1],
    ['SELECT 1; -- trailing comment', 1],
    ["SELECT ';' AS semi", 1],
    ['SELECT ";" FROM t', 1],
    ['SELECT [a;b] FROM t', 1],
    ['SELECT $$;$$', 1],
    ['SELECT $tag$ ; $tag$', 1],
    ["SELECT E'it\\'s;'", 1],
    ['SELECT 1 /* ; */', 1],
    ['SELECT 1; SELECT 2', 2],
    ['SELECT 1;\n\n;\nSELECT 2;', 2],
    ["SELECT 'a''b'; DROP TABLE t", 2],
  ])('%j has %i statement(s)', (sql, count) => {
    expect(lexStatements(sql).filter((s) => !s.empty)).toHaveLength(count);
  });
});

describe('precheckStatement', () => {
  it.each([
    ['SELECT 1', 'select'],
    ['  -- lead\n  select 1', 'select'],
    ['WITH x AS (SELECT 1) SELECT * FROM x', 'with'],
    ['WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r', 'with'],
    ['(SELECT 1) UNION (SELECT 2)', '('],
    ['VALUES (1), (2)', 'values'],
    ['FROM t SELECT a', 'from'],
  ])('allows %j as %s', (sql, kind) => {
    const verdict = precheckStatement(sql);
    expect(verdict).toMatchObject({ allowed: true, kind });
  });

  it.each([
    ['', 'empty'],
    ['-- just a comment', 'empty'],
    ['/* block */', 'empty'],
    ['INSERT INTO t VALUES (1)', 'insert'],
    ['with x as (select 1) delete from t', 'with_delete'],
    ['WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x', 'with_insert'],
    ['pragma query_only=0', 'pragma'],
    ['SELECT 1; SELECT 2', 'multiple_statements'],
    ['SELECT 1\u0000', 'invalid_text'],
    ['EXPLAIN SELECT 1', 'explain'],
  ])('rejects %j as %s', (sql, kind) => {
    const verdict = precheckStatement(sql);
    expect(verdict.allowed).toBe(false);
    expect(verdict.kind).toBe(kind);
    if (!verdict.allowed) expect(verdict.reason).not.toBe('');
  });
});
