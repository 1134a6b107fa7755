/**
 * What the parser's AST does not keep, read from the tokens of the shared
 * lexer (src/core/sql/lexer.ts): which identifiers were quoted and whether an
 * alias was written with AS. (constructs.ts reads the dialect constructs.)
 */

import type { Token } from '../sql/lexer.ts';

/** Identifiers spelled in quotes ("x", `x`, [x]). Double-quoted text counts too: SQLite reads it as either. */
export function quotedIdentifiers(tokens: Token[], sql: string): Set<string> {
  const out = new Set<string>();
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.type === 'quoted') out.add(t.text);
    // `AS 'Total'`: a string used as an alias.
    if (t.type === 'string' && tokens[k - 1]?.upper === 'AS') out.add(t.text);
    if (t.type === 'punct' && t.text === '[') {
      const end = sql.indexOf(']', t.start);
      const inner = end > 0 ? sql.slice(t.start + 1, end) : '';
      if (/^[^\],'"]+$/.test(inner) && !/^\s*\d/.test(inner)) out.add(inner);
    }
  }
  return out;
}

/** Lower-cased names written right after AS (column and table aliases written explicitly). */
export function explicitAliases(tokens: Token[]): Set<string> {
  const out = new Set<string>();
  for (let k = 0; k + 1 < tokens.length; k++) {
    if (tokens[k]!.upper === 'AS') {
      const t = tokens[k + 1]!;
      if (t.type === 'word' || t.type === 'quoted' || t.type === 'string') out.add(t.text.toLowerCase());
    }
  }
  return out;
}
