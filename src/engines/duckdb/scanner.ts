/**
 * DuckDB's tokenizer (`Parser::Tokenize`, what DuckDB-WASM's `tokenize()` returns) in TypeScript, so that native
 * DuckDB (whose node-api has no tokenizer) needs no DuckDB-WASM instance for the statement gate's call allow-list
 * (src/core/sandbox/calls.ts reads these tokens).
 *
 * It follows DuckDB v1.4.3's scanner — third_party/libpg_query/scan.l (flex: the longest match wins, the earlier
 * rule on a tie) and `tokenize()` in src_backend_parser_parser.cpp, which reads tokens through `base_yylex` —
 * rule by rule, including what stops it: any error raised while scanning ends the token list there (the token
 * being scanned is not listed). Errors in that build:
 * - an unterminated comment, quoted string, bit/hex string, dollar-quoted string or quoted identifier;
 * - a zero-length quoted identifier (`""`); an operator of 64 characters or more;
 * - E'' strings with a \u or \U escape (the scanner's unicode_to_utf8 is not implemented in DuckDB's port, so
 *   even a valid one throws), or with an escape giving a zero or non-ASCII byte (\0, \xff, \351, a backslash
 *   before a non-ASCII character: pg_verifymbstr, not implemented either, runs on such strings);
 * - every U&'…' string and U&"…" identifier (their de-escaping always ends in pg_verifymbstr);
 * - base_yylex reads one token ahead after NOT, NULLS and WITH: an error in that look-ahead drops the keyword too.
 *
 * Token types are DuckDB's SimplifiedTokenType: identifiers, numeric and string constants, operators, keywords.
 * As in `tokenize()`: PARAM, Op, `:=`, `=>`, `<=`, `>=`, `<>`/`!=` and single characters are operators; every
 * other token the grammar numbers (keywords, `::`, `..`, `:`, `->`, `->>`, `**`, `//`) is a keyword.
 * Offsets are UTF-8 byte offsets, as DuckDB's; text after a NUL character is not seen (a C string).
 *
 * Checked against DuckDB-WASM's tokenizer on the repository's SQL and on generated texts
 * (tests/engines/duckdb-scanner.test.ts).
 */
import type { ScriptTokens } from '../../core/sandbox/calls.ts';

const IDENTIFIER = 0;
const NUMERIC = 1;
const STRING = 2;
const OPERATOR = 3;
const KEYWORD = 4;

/** Raised where DuckDB's scanner raises: the token list ends before the token being scanned. */
class ScanError extends Error {}

const isDigit = (c: number) => c >= 48 && c <= 57;
const isHex = (c: number) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const isAsciiLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
/** `ident_start`: [A-Za-z\200-\377_] — every byte of a non-ASCII character qualifies. */
const isIdentStart = (c: number) => isAsciiLetter(c) || c === 95 || c >= 0x80;
/** `ident_cont`: [A-Za-z\200-\377_0-9\$]. */
const isIdentCont = (c: number) => isIdentStart(c) || isDigit(c) || c === 36;
/** `dolq_cont`: like ident_cont without `$`. */
const isDolqCont = (c: number) => isIdentStart(c) || isDigit(c);
/** `space`: [ \t\n\r\f]. */
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13 || c === 12;
const isNewline = (c: number) => c === 10 || c === 13;
/** `op_chars`: [~!@^&|`+\-*\/%<>=]. */
const OP_CHARS = new Set([...'~!@^&|`+-*/%<>='].map((ch) => ch.charCodeAt(0)));
/** `self`: single-character tokens. */
const SELF = new Set([...',()[].;:+-*/%^<>='].map((ch) => ch.charCodeAt(0)));
/** Operators that keep a trailing + or - (the scan.l operator rule). */
const NON_SQL_OP = new Set([...'~!@^&|`?%'].map((ch) => ch.charCodeAt(0)));
/** Special two- and three-character tokens, longest first; `keyword`: typed as a keyword by tokenize(). */
const SPECIALS: readonly { text: string; keyword: boolean }[] = [
  { text: '->>', keyword: true },
  { text: '::', keyword: true },
  { text: '..', keyword: true },
  { text: ':=', keyword: false },
  { text: '->', keyword: true },
  { text: '**', keyword: true },
  { text: '//', keyword: true },
  { text: '=>', keyword: false },
  { text: '<=', keyword: false },
  { text: '>=', keyword: false },
  { text: '<>', keyword: false },
  { text: '!=', keyword: false },
  { text: ':', keyword: true },
];
/** Keywords after which base_yylex reads a token ahead (NOT_LA, NULLS_LA, WITH_LA). */
const LOOKAHEAD = new Set(['not', 'nulls', 'with']);

interface Token {
  start: number;
  type: number;
  /** Lower-case keyword text, for the look-ahead rule. */
  keyword?: string;
}

/** The tokens DuckDB's parser sees in `sql` (DuckDB-WASM's `tokenize()`), with DuckDB's keyword list. */
export function tokenizeDuckDb(sql: string, keywords: ReadonlySet<string>): ScriptTokens {
  const nul = sql.indexOf('\0');
  const text = nul < 0 ? sql : sql.slice(0, nul);
  const scanner = new Scanner(text, keywords);
  const tokens: Token[] = [];
  // base_yylex: after NOT, NULLS or WITH the next token is read at once; if that throws, neither is listed.
  let ahead: Token | null | undefined;
  try {
    for (;;) {
      let token: Token | null;
      if (ahead !== undefined) {
        token = ahead;
        ahead = undefined;
      } else token = scanner.next();
      if (!token) break;
      if (token.keyword && LOOKAHEAD.has(token.keyword)) ahead = scanner.next();
      tokens.push(token);
    }
  } catch (thrown) {
    if (!(thrown instanceof ScanError)) throw thrown;
  }
  return { offsets: byteOffsets(text, tokens), types: tokens.map((t) => t.type) };
}

/** String indices → UTF-8 byte offsets (a lone surrogate counts 3 bytes, as calls.ts counts it). */
function byteOffsets(text: string, tokens: Token[]): number[] {
  const out: number[] = [];
  let bytes = 0;
  let i = 0;
  for (const { start } of tokens) {
    while (i < start) {
      const cp = text.codePointAt(i)!;
      bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      i += cp >= 0x10000 ? 2 : 1;
    }
    out.push(bytes);
  }
  return out;
}

class Scanner {
  private pos = 0;

  constructor(
    private readonly text: string,
    private readonly keywords: ReadonlySet<string>,
  ) {}

  private at(i: number): number {
    return i < this.text.length ? this.text.charCodeAt(i) : -1;
  }

  private startsWith(s: string, i: number): boolean {
    return this.text.startsWith(s, i);
  }

  /** Length of `integer` ({digit}("_"?{digit})*) at i, 0 if none. */
  private integerAt(i: number): number {
    if (!isDigit(this.at(i))) return 0;
    let j = i + 1;
    for (;;) {
      if (isDigit(this.at(j))) j++;
      else if (this.at(j) === 95 && isDigit(this.at(j + 1))) j += 2;
      else return j - i;
    }
  }

  /** The next token (core_yylex in the INITIAL state), or null at the end of the text. */
  next(): Token | null {
    for (;;) {
      const p = this.pos;
      const c = this.at(p);
      if (c < 0) return null;
      // {whitespace}: spaces, or a -- comment to the end of the line.
      if (isSpace(c)) {
        this.pos++;
        continue;
      }
      if (c === 45 && this.at(p + 1) === 45) {
        this.skipLineComment(p);
        continue;
      }
      // {xcstart}: /* begins a (nested) comment; it wins over {operator} at the same length.
      if (c === 47 && this.at(p + 1) === 42) {
        this.skipBlockComment(p);
        continue;
      }
      const next = this.at(p + 1);
      const lower = c | 0x20;
      // String starts: B'…', X'…', E'…', N'…' (NCHAR then a string), U&'…', U&"…".
      if (next === 39 && (lower === 98 || lower === 120)) return this.bitString(p);
      if (next === 39 && lower === 101) return this.extendedString(p);
      if (next === 39 && lower === 110) {
        this.pos = p + 1;
        return this.keywords.has('nchar')
          ? { start: p, type: KEYWORD, keyword: 'nchar' }
          : { start: p, type: IDENTIFIER };
      }
      if (lower === 117 && next === 38) {
        const third = this.at(p + 2);
        // U&' and U&": their de-escaping always ends in pg_verifymbstr, which DuckDB's port does not implement.
        if (third === 39 || third === 34) throw new ScanError('Unicode-escaped literal');
        // {xufailed}: U& followed by anything else is the identifier "u".
        this.pos = p + 1;
        return { start: p, type: IDENTIFIER };
      }
      if (c === 39) return this.quotedString(p);
      if (c === 34) return this.quotedIdentifier(p);
      if (c === 36) return this.dollar(p);
      if (c === 63) {
        // {param2} ?N, else {other}.
        this.pos = p + 1 + this.integerAt(p + 1);
        return { start: p, type: OPERATOR };
      }
      if (isDigit(c) || (c === 46 && isDigit(next))) return this.number(p);
      if (isIdentStart(c)) return this.identifier(p);
      const operator = this.operator(p);
      if (operator) return operator;
      // {other}: any other single character.
      this.pos = p + 1;
      return { start: p, type: OPERATOR };
    }
  }

  private skipLineComment(p: number): void {
    let j = p + 2;
    while (j < this.text.length && !isNewline(this.at(j))) j++;
    this.pos = j;
  }

  /** <xc>: nested /* comments; the end of the text inside one is an error. */
  private skipBlockComment(p: number): void {
    let depth = 0;
    let j = p + 2;
    for (;;) {
      const c = this.at(j);
      if (c < 0) throw new ScanError('unterminated /* comment');
      if (c === 47 && this.at(j + 1) === 42) {
        depth++;
        j += 2;
      } else if (c === 42) {
        while (this.at(j) === 42) j++;
        if (this.at(j) === 47) {
          j++;
          if (depth <= 0) {
            this.pos = j;
            return;
          }
          depth--;
        }
      } else j++;
    }
  }

  /**
   * At a closing quote of a '…' literal: the length of {quotecontinue} (quote, whitespace with a newline in it,
   * quote: the literal goes on), or 0.
   */
  private quoteContinue(q: number): number {
    let j = q + 1;
    let newline = false;
    for (;;) {
      const c = this.at(j);
      if (c === 32 || c === 9 || c === 12) j++;
      else if (isNewline(c)) {
        newline = true;
        j++;
      } else if (c === 45 && this.at(j + 1) === 45) {
        j += 2;
        while (j < this.text.length && !isNewline(this.at(j))) j++;
      } else break;
    }
    return newline && this.at(j) === 39 ? j + 1 - q : 0;
  }

  /** <xq>: '…' with '' for a quote, continued across a newline. */
  private quotedString(p: number): Token {
    return this.quoted(p, p + 1, true, 'unterminated quoted string');
  }

  /** <xb>/<xh>: B'…' and X'…' (no '' escape), continued across a newline. */
  private bitString(p: number): Token {
    return this.quoted(p, p + 2, false, 'unterminated bit string literal');
  }

  /** The body of a quoted literal from `j` (after its opening quote) to its closing quote. */
  private quoted(p: number, j: number, doubledQuote: boolean, unterminated: string): Token {
    for (;;) {
      const c = this.at(j);
      if (c < 0) throw new ScanError(unterminated);
      if (c !== 39) {
        j++;
        continue;
      }
      if (doubledQuote && this.at(j + 1) === 39) {
        j += 2;
        continue;
      }
      const more = this.quoteContinue(j);
      if (more) {
        j += more;
        continue;
      }
      this.pos = j + 1;
      return { start: p, type: STRING };
    }
  }

  /** <xe>: E'…' with backslash escapes. */
  private extendedString(p: number): Token {
    let j = p + 2;
    let nonAscii = false;
    for (;;) {
      const c = this.at(j);
      if (c < 0) throw new ScanError('unterminated quoted string');
      if (c === 39) {
        if (this.at(j + 1) === 39) {
          j += 2;
          continue;
        }
        const more = this.quoteContinue(j);
        if (more) {
          j += more;
          continue;
        }
        // pg_verifymbstr (not implemented in DuckDB's port) runs on a literal an escape made non-ASCII.
        if (nonAscii) throw new ScanError('pg_verifymbstr');
        this.pos = j + 1;
        return { start: p, type: STRING };
      }
      if (c !== 92) {
        j++;
        continue;
      }
      const e = this.at(j + 1);
      if (e === 117 || e === 85) throw new ScanError('Unicode escape'); // \u, \U: always an error here
      if (e >= 48 && e <= 55) {
        // {xeoctesc}: up to three octal digits, the byte they give.
        let k = j + 1;
        let value = 0;
        while (k < j + 4 && this.at(k) >= 48 && this.at(k) <= 55) value = value * 8 + (this.at(k++) - 48);
        const byte = value & 0xff;
        if (byte === 0 || byte >= 0x80) nonAscii = true;
        j = k;
        continue;
      }
      if (e === 120 && isHex(this.at(j + 2))) {
        // {xehexesc}: \x and one or two hex digits.
        const digits = isHex(this.at(j + 3)) ? 2 : 1;
        const byte = parseInt(this.text.slice(j + 2, j + 2 + digits), 16);
        if (byte === 0 || byte >= 0x80) nonAscii = true;
        j += 2 + digits;
        continue;
      }
      // {xeescape}: a backslash and any one byte; {.} for a backslash at the very end.
      if (e < 0) {
        j++;
        continue;
      }
      if (e >= 0x80) nonAscii = true;
      j += 2;
    }
  }

  /** <xd>: "…" with "" for a quote; an empty one is an error. */
  private quotedIdentifier(p: number): Token {
    let j = p + 1;
    for (;;) {
      const c = this.at(j);
      if (c < 0) throw new ScanError('unterminated quoted identifier');
      if (c !== 34) {
        j++;
        continue;
      }
      if (this.at(j + 1) === 34) {
        j += 2;
        continue;
      }
      if (j === p + 1) throw new ScanError('zero-length delimited identifier');
      this.pos = j + 1;
      return { start: p, type: IDENTIFIER };
    }
  }

  /** At `$`: a dollar-quoted string ($$…$$, $tag$…$tag$), a parameter ($1), or `$` alone. */
  private dollar(p: number): Token {
    const delimiter = this.dollarDelimiter(p);
    if (delimiter) {
      let j = p + delimiter.length;
      for (;;) {
        const c = this.at(j);
        if (c < 0) throw new ScanError('unterminated dollar-quoted string');
        if (c !== 36) {
          j++;
          continue;
        }
        const candidate = this.dollarDelimiter(j);
        if (candidate === delimiter) {
          this.pos = j + candidate.length;
          return { start: p, type: STRING };
        }
        // Another $…$ inside: its final $ may open the real delimiter ($junk$delim$).
        if (candidate) j += candidate.length - 1;
        else {
          j++;
          while (isDolqCont(this.at(j))) j++;
        }
      }
    }
    const digits = this.integerAt(p + 1);
    // {param} $N; {dolqfailed} ($name: only the $ is a token) and {other} are the single character.
    this.pos = p + 1 + digits;
    return { start: p, type: OPERATOR };
  }

  /** {dolqdelim} at i: `$`, an optional tag (a letter or _ first, no $), `$`; else null. */
  private dollarDelimiter(i: number): string | null {
    let j = i + 1;
    if (isIdentStart(this.at(j))) {
      j++;
      while (isDolqCont(this.at(j))) j++;
    }
    return this.at(j) === 36 ? this.text.slice(i, j + 1) : null;
  }

  /** {integer}, {decimal}, {real} and their -fail rules: the longest wins, some give back their tail. */
  private number(p: number): Token {
    const integer = this.integerAt(p);
    let decimal = 0;
    if (integer && this.at(p + integer) === 46) decimal = integer + 1 + this.integerAt(p + integer + 1);
    else if (!integer) decimal = 1 + this.integerAt(p + 1);
    const decimalFail = integer && this.at(p + integer) === 46 && this.at(p + integer + 1) === 46;
    const base = decimal || integer;
    let end = p + base;
    if (decimalFail)
      end = p + integer; // {decimalfail} 1..: the integer, then ..
    else {
      const e = this.at(p + base);
      if (e === 69 || e === 101) {
        const sign = this.at(p + base + 1) === 43 || this.at(p + base + 1) === 45 ? 1 : 0;
        const exponent = this.integerAt(p + base + 1 + sign);
        // {real}; {realfail1}/{realfail2} give back the e and sign.
        if (exponent) end = p + base + 1 + sign + exponent;
      }
    }
    this.pos = end;
    return { start: p, type: NUMERIC };
  }

  private identifier(p: number): Token {
    let j = p + 1;
    while (isIdentCont(this.at(j))) j++;
    this.pos = j;
    const word = this.text.slice(p, j);
    // ScanKeywordLookup lower-cases ASCII letters only.
    const lower = word.replace(/[A-Z]+/g, (m) => m.toLowerCase());
    return this.keywords.has(lower) ? { start: p, type: KEYWORD, keyword: lower } : { start: p, type: IDENTIFIER };
  }

  /** The special tokens, {self} and {operator}, longest match first; null when none starts here. */
  private operator(p: number): Token | null {
    let run = 0;
    while (OP_CHARS.has(this.at(p + run))) run++;
    const special = SPECIALS.find((s) => this.startsWith(s.text, p));
    const single = SELF.has(this.at(p)) ? 1 : 0;
    // On a tie the special tokens and {self} win: they come before {operator} in scan.l.
    if (special && special.text.length >= run) {
      this.pos = p + special.text.length;
      return { start: p, type: special.keyword ? KEYWORD : OPERATOR };
    }
    if (!run) {
      if (!single) return null;
      this.pos = p + 1;
      return { start: p, type: OPERATOR };
    }
    // {operator}: stop before an embedded /* or --; drop a trailing + or - unless a non-SQL operator
    // character precedes it. What remains is an operator token, whatever it spells.
    let length = run;
    const body = this.text.slice(p, p + run);
    const comment = [body.indexOf('/*'), body.indexOf('--')].filter((i) => i >= 0);
    if (comment.length) length = Math.min(...comment);
    while (length > 1 && (body.charCodeAt(length - 1) === 43 || body.charCodeAt(length - 1) === 45)) {
      let k = length - 2;
      while (k >= 0 && !NON_SQL_OP.has(body.charCodeAt(k))) k--;
      if (k >= 0) break;
      length--;
    }
    if (length >= 64) throw new ScanError('operator too long');
    this.pos = p + length;
    return { start: p, type: OPERATOR };
  }
}
