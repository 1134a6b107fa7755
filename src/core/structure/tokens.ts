/**
 * A small SQL tokenizer for what the parser's AST does not keep: which
 * identifiers were quoted, whether an alias was written with AS, and which
 * dialect constructs a query uses (to name what the parser does not support).
 */

export type TokenType = 'word' | 'quoted' | 'string' | 'number' | 'op' | 'punct';

export interface Token {
  type: TokenType;
  /** The token as written (for quoted identifiers and strings: the content without quotes). */
  text: string;
  /** Upper-case text for words; '' otherwise. */
  upper: string;
  /** The quote character of a quoted identifier or string. */
  quote?: string;
  start: number;
}

export function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const ch = sql[i]!;
    const next = sql[i + 1];
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
      continue;
    }
    if (ch === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      continue;
    }
    const start = i;
    if (ch === "'" || ch === '"' || ch === '`') {
      let j = i + 1;
      let text = '';
      while (j < n) {
        if (sql[j] === ch) {
          if (sql[j + 1] === ch) {
            text += ch;
            j += 2;
            continue;
          }
          break;
        }
        text += sql[j];
        j++;
      }
      out.push({ type: ch === "'" ? 'string' : 'quoted', text, upper: '', quote: ch, start });
      i = j + 1;
      continue;
    }
    if (ch === '[') {
      // SQLite bracket identifier, or a DuckDB list literal: decided by the reader.
      out.push({ type: 'punct', text: '[', upper: '', start });
      i++;
      continue;
    }
    const word = /^[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*/.exec(sql.slice(i, i + 256));
    if (word) {
      out.push({ type: 'word', text: word[0], upper: word[0].toUpperCase(), start });
      i += word[0].length;
      continue;
    }
    const num = /^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(sql.slice(i, i + 64));
    if (num) {
      out.push({ type: 'number', text: num[0], upper: '', start });
      i += num[0].length;
      continue;
    }
    const op = /^(::|->>|->|<=|>=|<>|!=|==|\|\||<<|>>|[-+*/%<>=!~&|^])/.exec(sql.slice(i, i + 3));
    if (op) {
      out.push({ type: 'op', text: op[0], upper: '', start });
      i += op[0].length;
      continue;
    }
    out.push({ type: 'punct', text: ch, upper: '', start });
    i++;
  }
  return out;
}

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
