/**
 * The measurement behind GRAMMAR_CHAIN.duckdb (docs/structure.md): each
 * node-sql-parser grammar on 76 DuckDB-flavoured analytical queries. The
 * chosen grammar must parse the most of them among the grammars that parse
 * every set operation (a grammar without INTERSECT/EXCEPT is disqualified).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import NodeSqlParser from 'node-sql-parser';
import { describe, expect, it } from 'vitest';
import { GRAMMAR_CHAIN, parseSql, unsupportedConstruct } from '../../src/core/structure/index.ts';
import { repoRoot } from './helpers.ts';

const CANDIDATES = [
  'postgresql',
  'noql',
  'snowflake',
  'bigquery',
  'mysql',
  'mariadb',
  'trino',
  'redshift',
  'athena',
  'hive',
  'sqlite',
  'transactsql',
  'db2',
  'flinksql',
];

function corpus(): { tag: string; sql: string }[] {
  const text = readFileSync(path.join(repoRoot, 'tests/structure/data/duckdb-dialect.sql'), 'utf8');
  const out: { tag: string; sql: string }[] = [];
  let tag = '';
  for (const line of text.split('\n')) {
    const m = /^-- tag: (.*)/.exec(line);
    if (m) tag = m[1]!;
    else if (line.trim() && !line.startsWith('--')) out.push({ tag, sql: line.trim().replace(/;$/, '') });
  }
  return out;
}

describe('DuckDB dialect: which node-sql-parser grammar', () => {
  const queries = corpus();
  const { Parser } = NodeSqlParser as unknown as { Parser: new () => { astify(sql: string, opt: object): unknown } };
  const parser = new Parser();
  const parses = (sql: string, database: string) => {
    try {
      parser.astify(sql, { database });
      return true;
    } catch {
      return false;
    }
  };

  it('the chosen grammar parses the most DuckDB SQL among grammars with INTERSECT and EXCEPT', () => {
    const setOps = queries.filter((q) => /^(union all|intersect|except)$/.test(q.tag));
    const table = CANDIDATES.map((g) => ({
      grammar: g,
      parsed: queries.filter((q) => parses(q.sql, g)).length,
      setOps: setOps.every((q) => parses(q.sql, g)),
    }));
    console.info(
      `grammar coverage on ${queries.length} DuckDB queries: ${table.map((t) => `${t.grammar} ${t.parsed}${t.setOps ? '' : ' (no set ops)'}`).join(', ')}`,
    );
    const eligible = table.filter((t) => t.setOps).sort((a, b) => b.parsed - a.parsed);
    expect(GRAMMAR_CHAIN.duckdb[0]).toBe(eligible[0]!.grammar);
    expect(queries.length).toBe(76);
  });

  it('what the DuckDB chain cannot parse is named', () => {
    const failed = queries.filter((q) => !parseSql(q.sql, 'duckdb').ok);
    console.info(
      `duckdb chain: ${queries.length - failed.length}/${queries.length} parsed; not parsed: ${failed.map((q) => `${q.tag} [${unsupportedConstruct(q.sql, 'duckdb') ?? '?'}]`).join('; ')}`,
    );
    const unnamed = failed.filter((q) => !unsupportedConstruct(q.sql, 'duckdb'));
    expect(unnamed.map((q) => q.tag)).toEqual([]);
  });
});
