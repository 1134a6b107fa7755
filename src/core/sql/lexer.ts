/**
 * The one SQL lexer of the core: skips whitespace, `--` and block comments,
 * and yields words, numbers, strings, quoted identifiers, operators and
 * punctuation, each with its position and parenthesis depth. It does not
 * parse SQL. The structural layer reads quoting, aliases and dialect
 * constructs from it; the corpus lint reads the outermost query level.
 * (The sandbox's statement splitter in src/core/sandbox/statements.ts is a
 * separate scanner on purpose; see its header.)
 */

export type TokenType = 'word' | 'quoted' | 'string' | 'number' | 'op' | 'punct';

export interface Token {
  type: TokenType;
  /** The token as written, quotes included. */
  raw: string;
  /** For strings and quoted identifiers: the content without quotes, doubled quotes undone; otherwise the token as written. */
  text: string;
  /** Upper-case text for words; '' otherwise. */
  upper: string;
  /** The quote character of a quoted identifier or string. */
  quote?: string;
  start: number;
  /** Offset just past the token (the text's length for an unterminated quote). */
  end: number;
  /** Parenthesis depth at the token (0 = outermost level); `(` and its `)` share a depth. */
  depth: number;
}

export interface LexOptions {
  /**
   * How far a number reaches. 'sql' (default): a numeric literal
   * (`12`, `1.5`, `.5`, `1e-5`). 'run': every following digit, `.`, `_`, `e`
   * or `E` (`1.2.3`, `1_000` and `1e` are one token; `1e-5` is three). The
   * corpus lint reads numbers the second way.
   */
  numbers?: 'sql' | 'run';
}

const WORD = /[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*/y;
const SQL_NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const NUMBER_RUN = /[0-9._eE]+/y;
const OPERATOR = /::|->>|->|<=|>=|<>|!=|==|\|\||<<|>>|[-+*/%<>=!~&|^]/y;

function matchAt(re: RegExp, sql: string, i: number): string | null {
  re.lastIndex = i;
  const m = re.exec(sql);
  return m ? m[0] : null;
}

export function tokenize(sql: string, options: LexOptions = {}): Token[] {
  const numberPattern = options.numbers === 'run' ? NUMBER_RUN : SQL_NUMBER;
  const out: Token[] = [];
  let depth = 0;
  let i = 0;
  const n = sql.length;
  const push = (type: TokenType, end: number, extra: Partial<Token> = {}) => {
    const raw = sql.slice(i, end);
    out.push({ type, raw, text: raw, upper: '', start: i, end, depth, ...extra });
    i = end;
  };
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
    if (ch === "'" || ch === '"' || ch === '`') {
      // A doubled quote stands for itself; an unterminated quote runs to the end.
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
      push(ch === "'" ? 'string' : 'quoted', Math.min(j + 1, n), { text, quote: ch });
      continue;
    }
    const word = matchAt(WORD, sql, i);
    if (word !== null) {
      push('word', i + word.length, { upper: word.toUpperCase() });
      continue;
    }
    if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(next ?? ''))) {
      push('number', i + matchAt(numberPattern, sql, i)!.length);
      continue;
    }
    const op = matchAt(OPERATOR, sql, i);
    if (op !== null) {
      push('op', i + op.length);
      continue;
    }
    // Everything else is one character of punctuation, `[` included: a SQLite
    // bracket identifier or a DuckDB list literal, decided by the reader.
    if (ch === ')') depth = Math.max(0, depth - 1);
    push('punct', i + 1);
    if (ch === '(') depth++;
  }
  return out;
}
