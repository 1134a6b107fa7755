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
  // Character codes instead of one-character regexes: the structural reader
  // lexes every text it reads, so this loop is on the grading hot path.
  while (i < n) {
    const code = sql.charCodeAt(i);
    const next = sql.charCodeAt(i + 1);
    if (isSpace(code)) {
      i++;
      continue;
    }
    if (code === DASH && next === DASH) {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
      continue;
    }
    if (code === SLASH && next === STAR) {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      continue;
    }
    if (code === SQUOTE || code === DQUOTE || code === BACKTICK) {
      i = pushQuoted(sql, i, depth, out);
      continue;
    }
    const word = matchAt(WORD, sql, i);
    if (word !== null) {
      out.push({
        type: 'word',
        raw: word,
        text: word,
        upper: word.toUpperCase(),
        start: i,
        end: i + word.length,
        depth,
      });
      i += word.length;
      continue;
    }
    if (isDigit(code) || (code === DOT && isDigit(next))) {
      i = pushPlain(out, 'number', sql, i, i + matchAt(numberPattern, sql, i)!.length, depth);
      continue;
    }
    const op = matchAt(OPERATOR, sql, i);
    if (op !== null) {
      i = pushPlain(out, 'op', sql, i, i + op.length, depth);
      continue;
    }
    // Everything else is one character of punctuation, `[` included: a SQLite
    // bracket identifier or a DuckDB list literal, decided by the reader.
    if (code === CLOSE) depth = Math.max(0, depth - 1);
    i = pushPlain(out, 'punct', sql, i, i + 1, depth);
    if (code === OPEN) depth++;
  }
  return out;
}

const DASH = 45;
const SLASH = 47;
const STAR = 42;
const DOT = 46;
const SQUOTE = 39;
const DQUOTE = 34;
const BACKTICK = 96;
const OPEN = 40;
const CLOSE = 41;

/** What /\s/ matches, without a regex for ASCII. */
function isSpace(code: number): boolean {
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return /\s/.test(String.fromCharCode(code));
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function pushPlain(out: Token[], type: TokenType, sql: string, start: number, end: number, depth: number): number {
  const raw = sql.slice(start, end);
  out.push({ type, raw, text: raw, upper: '', start, end, depth });
  return end;
}

/** A string or quoted identifier: a doubled quote stands for itself; an unterminated quote runs to the end. */
function pushQuoted(sql: string, i: number, depth: number, out: Token[]): number {
  const n = sql.length;
  const ch = sql[i]!;
  let j = i + 1;
  let text = '';
  while (j < n) {
    const k = sql.indexOf(ch, j);
    if (k < 0) {
      text += sql.slice(j);
      j = n;
      break;
    }
    text += sql.slice(j, k);
    if (sql[k + 1] === ch) {
      text += ch;
      j = k + 2;
      continue;
    }
    j = k;
    break;
  }
  const end = Math.min(j + 1, n);
  out.push({
    type: ch === "'" ? 'string' : 'quoted',
    raw: sql.slice(i, end),
    text,
    upper: '',
    start: i,
    end,
    depth,
    quote: ch,
  });
  return end;
}
