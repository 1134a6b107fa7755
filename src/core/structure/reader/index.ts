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
import { Cursor } from './cursor.ts';
import { readQuery as readChain } from './query.ts';

const SQLITE: Profile = {
  grammar: 'sqlite',
  doubleQuoted: 'string',
  eqeq: true,
  limitComma: true,
  stringAlias: true,
  backquotes: true,
  likeLiteral: false,
  crossAfterBareTable: true,
  dashedNames: false,
  intersectExcept: false,
};

/**
 * The sqlite chain's second grammar. The sqlite grammar has no INTERSECT or
 * EXCEPT (no rule, no keyword) and no rule lets SELECT follow a name, so a
 * text the reader reads with one of them as a set operator is one the sqlite
 * grammar rejects: noql's reading is the chain's answer.
 */
const NOQL: Profile = {
  grammar: 'noql',
  doubleQuoted: 'operand',
  eqeq: false,
  limitComma: false,
  stringAlias: true,
  backquotes: true,
  likeLiteral: true,
  crossAfterBareTable: false,
  dashedNames: true,
  intersectExcept: true,
};

const POSTGRESQL: Profile = {
  grammar: 'postgresql',
  doubleQuoted: 'identifier',
  eqeq: false,
  limitComma: false,
  stringAlias: false,
  backquotes: false,
  likeLiteral: true,
  crossAfterBareTable: false,
  dashedNames: true,
  intersectExcept: true,
};

/** The grammar the chain would end on: for sqlite, noql when a word INTERSECT or EXCEPT occurs. */
function profileFor(dialect: Dialect, tokens: Token[]): Profile {
  if (dialect === 'duckdb') return POSTGRESQL;
  for (const t of tokens) if (t.upper === 'INTERSECT' || t.upper === 'EXCEPT') return NOQL;
  return SQLITE;
}

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
  const profile = profileFor(dialect, tokens);
  // Comments and brackets have readings of their own in each grammar.
  if (text.includes('--') || text.includes('/*') || text.includes('[')) return null;
  if (!profile.backquotes && text.includes('`')) return null;
  if (!tokens[0] || tokens[0].upper !== 'SELECT') return null;
  const c = new Cursor(tokens, profile, quoted);
  try {
    const query = readChain(c);
    return c.atEnd() ? { grammar: profile.grammar, query, implicitAlias: c.implicitAlias } : null;
  } catch {
    // A decline, or anything unexpected: parseSql never throws, so both are "not sure".
    return null;
  }
}
