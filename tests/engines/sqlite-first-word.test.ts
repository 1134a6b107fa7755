/**
 * The SQLite session compiles a statement whose first word is SELECT or VALUES once, without the second
 * compile as a subquery that refuses everything else (src/engines/sqlite/session.ts). The lexer's precheck
 * refuses PRAGMA and DML before either, so the attack list cannot tell whether this test is right: it is
 * checked here on its own.
 */
import { describe, expect, it } from 'vitest';
import { readByGrammar } from '../../src/engines/sqlite/session.ts';

describe('readByGrammar (a SELECT by its first word)', () => {
  it.each([
    'SELECT 1',
    'select * from t',
    '  \n\tSELECT 1',
    '-- a note\nSELECT 1',
    '/* a note */SELECT 1',
    '/* one */ -- two\n /* three */ values (1), (2)',
    'VALUES(1)',
  ])('%j is a query by its first word', (text) => expect(readByGrammar(text)).toBe(true));

  it.each([
    'PRAGMA query_only = 0',
    '/* select */ PRAGMA query_only = 0',
    '-- select\nPRAGMA query_only = 0',
    '/* select',
    'WITH gone AS (SELECT 1) DELETE FROM items',
    'SELECTED',
    'select_all',
    'selecté',
    'ATTACH ":memory:" AS x',
    'INSERT INTO t SELECT 1',
    '',
  ])('%j goes through the subquery gate', (text) => expect(readByGrammar(text)).toBe(false));
});
