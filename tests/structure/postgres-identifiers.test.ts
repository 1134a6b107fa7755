/**
 * PostgreSQL folds unquoted identifiers to lower case and keeps quoted ones as
 * spelled: `"A"` is not the column `a` there (DuckDB and SQLite resolve both
 * alike). clause_match must say so on PostgreSQL, on the parser and through
 * the pipeline on PGlite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluationRequest } from '../../src/core/evaluation/request.ts';
import { evaluate } from '../../src/core/pipeline.ts';
import { compareStructure } from '../../src/core/structure/index.ts';
import { openEngine } from '../../src/engines/node.ts';
import type { SupervisedEngine } from '../../src/engines/supervisor.ts';
import { sqlFixture } from '../helpers/fixtures.ts';

describe('quoted identifiers on PostgreSQL', () => {
  it('the parser: a quoted identifier keeps its case when asked; unquoted ones fold', () => {
    const pg = { quotedIdentifierCase: true };
    expect(compareStructure('SELECT "a" FROM t', 'SELECT "A" FROM t', 'duckdb', pg).clause_match!.match).toBe(false);
    expect(compareStructure('SELECT "a" FROM t', 'SELECT A FROM t', 'duckdb', pg).clause_match!.match).toBe(true);
    expect(compareStructure('SELECT "Name" FROM t', 'SELECT "Name" FROM t', 'duckdb', pg).clause_match!.match).toBe(
      true,
    );
    // DuckDB resolves quoted identifiers case-insensitively: there they stay one column.
    expect(compareStructure('SELECT "a" FROM t', 'SELECT "A" FROM t', 'duckdb').clause_match!.match).toBe(true);
  });

  let engine: SupervisedEngine;
  beforeAll(async () => {
    engine = openEngine('pglite');
    const loaded = await engine.load(
      sqlFixture('q', 'CREATE TABLE t (a INTEGER, "A" INTEGER);\nINSERT INTO t VALUES (1, 2);\n'),
    );
    if (!loaded.ok) throw new Error(loaded.error.message);
  }, 120_000);
  afterAll(async () => {
    await engine.close();
  });

  it('PGlite: "A" and a are two columns, and clause_match says the SELECT differs', async () => {
    const r = await evaluate(
      evaluationRequest({ expected_sql: 'SELECT a FROM t', actual_sql: 'SELECT "A" FROM t' }),
      engine,
    );
    expect(r.deterministic_verdict).toBe('fail');
    const clauses = r.evidence.structure!.clause_match!;
    expect(clauses.match).toBe(false);
    expect(clauses.clauses.select.match).toBe(false);
  });
});
