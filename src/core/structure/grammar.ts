/**
 * The node-sql-parser grammars behind each engine dialect, tried in order.
 *
 * node-sql-parser has no DuckDB grammar. Measured on 76 DuckDB-style
 * analytical queries and 7,699 Spider predictions (docs/structure.md):
 * `postgresql` parses the most DuckDB SQL among the grammars that also handle
 * INTERSECT/EXCEPT (DuckDB's own parser descends from PostgreSQL's).
 * For SQLite the `sqlite` grammar comes first; it rejects INTERSECT, EXCEPT
 * and window functions, so `noql` (a permissive PostgreSQL-derived grammar that,
 * like SQLite, reads "x" in an expression as a string) is the fallback:
 * 1,149 → 1,227 of 1,232 Spider gold queries.
 *
 * Only the per-grammar builds are imported (the full bundle is 2.5 MB).
 */
import * as noqlBuild from 'node-sql-parser/build/noql.js';
import * as pgBuild from 'node-sql-parser/build/postgresql.js';
import * as sqliteBuild from 'node-sql-parser/build/sqlite.js';

export type Dialect = 'duckdb' | 'sqlite';
export type GrammarName = 'sqlite' | 'noql' | 'postgresql';

/** The structural dialect of an engine: PGlite and a PostgreSQL server read SQL as the postgresql grammar does, as DuckDB's dialect does. */
export function dialectOfEngine(engine: string): Dialect {
  return engine === 'sqlite' ? 'sqlite' : 'duckdb';
}

export const GRAMMAR_CHAIN: Record<Dialect, readonly GrammarName[]> = {
  duckdb: ['postgresql'],
  sqlite: ['sqlite', 'noql'],
};

/** The `database` option node-sql-parser expects for each grammar. */
const DATABASE: Record<GrammarName, string> = { sqlite: 'sqlite', noql: 'noql', postgresql: 'postgresql' };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyParser = { astify(sql: string, opt: object): any; sqlify(ast: any, opt: object): string };

function parserCtor(ns: unknown): new () => AnyParser {
  const mod = ns as { Parser?: new () => AnyParser; default?: { Parser?: new () => AnyParser } };
  const ctor = mod.Parser ?? mod.default?.Parser;
  if (!ctor) throw new Error('node-sql-parser build without a Parser export');
  return ctor;
}

const BUILDS: Record<GrammarName, unknown> = { sqlite: sqliteBuild, noql: noqlBuild, postgresql: pgBuild };
const cache = new Map<GrammarName, AnyParser>();

export function grammarParser(name: GrammarName): AnyParser {
  let p = cache.get(name);
  if (!p) {
    p = new (parserCtor(BUILDS[name]))();
    cache.set(name, p);
  }
  return p;
}

export function grammarOption(name: GrammarName): { database: string } {
  return { database: DATABASE[name] };
}
