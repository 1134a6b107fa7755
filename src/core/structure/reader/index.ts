/**
 * The fast path of parseSql: a hand-written recursive-descent reader for the
 * common SELECT subset (what Spider-style text-to-SQL output uses) that
 * builds the IR directly, ~50x cheaper than node-sql-parser's PEG parser plus
 * the adapter. It answers only where it is sure to produce the very tree the
 * grammar chain would (the same `grammar` too); anything else, it declines
 * (null) and parse.ts runs the grammars. tests/structure/reader-diff.test.ts
 * holds it to that.
 */
import type { Token } from '../../sql/lexer.ts';
import type { Dialect, GrammarName } from '../grammar.ts';
import type { Query } from '../ir.ts';
import type { Profile } from './cursor.ts';
import { Cursor, isDecline } from './cursor.ts';
import { readQuery as readChain } from './query.ts';

const PROFILES: Record<Dialect, Profile> = {
  // The sqlite grammar comes first in the chain; what it rejects (INTERSECT,
  // EXCEPT) goes to noql, which the reader does not stand in for.
  sqlite: { grammar: 'sqlite', doubleQuoted: 'string', sqliteForms: true, backquotes: true, intersectExcept: false },
  duckdb: {
    grammar: 'postgresql',
    doubleQuoted: 'identifier',
    sqliteForms: false,
    backquotes: false,
    intersectExcept: true,
  },
};

/**
 * The tree of one statement (no trailing semicolon) and the grammar whose
 * reading it is, or null when the reader is not sure.
 */
export function readQuery(
  text: string,
  tokens: Token[],
  quoted: ReadonlySet<string>,
  dialect: Dialect,
): { grammar: GrammarName; query: Query; implicitAlias: boolean } | null {
  const profile = PROFILES[dialect];
  // Comments and brackets have readings of their own in each grammar.
  if (text.includes('--') || text.includes('/*') || text.includes('[')) return null;
  if (!profile.backquotes && text.includes('`')) return null;
  if (!tokens[0] || tokens[0].upper !== 'SELECT') return null;
  const c = new Cursor(tokens, profile, quoted);
  try {
    const query = readChain(c);
    return c.atEnd() ? { grammar: profile.grammar, query, implicitAlias: c.implicitAlias } : null;
  } catch (e) {
    // parseSql never throws: anything unexpected here is a "not sure" too.
    if (isDecline(e)) return null;
    return null;
  }
}
