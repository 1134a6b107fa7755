/**
 * The reader's view of the token list: one position, look-ahead, and the
 * single way out when the text is not one the reader can answer for ("not
 * sure": {@link decline}), so each rule stays a straight line.
 */
import type { Token } from '../../sql/lexer.ts';
import type { GrammarName } from '../grammar.ts';

/** What differs between the grammars the reader stands in for (each flag checked on both sides by the differential tests). */
export interface Profile {
  /** The node-sql-parser grammar whose output the reader reproduces. */
  grammar: GrammarName;
  /**
   * `"x"` in an expression: a string to the sqlite grammar, an identifier to
   * postgresql; noql reads it as a string only as a predicate's right-hand
   * operand (`= "x"`, `IN ("x")`, `BETWEEN "x" AND "y"`) and as a name elsewhere.
   */
  doubleQuoted: 'string' | 'identifier' | 'operand';
  /** `a == b` (sqlite only). */
  eqeq: boolean;
  /** `LIMIT m, n` (sqlite only). */
  limitComma: boolean;
  /** `AS 'alias'` (sqlite, noql). */
  stringAlias: boolean;
  /** `name` quoted identifiers (sqlite, noql). */
  backquotes: boolean;
  /** A quoted literal right after LIKE is the whole pattern (postgresql, noql). */
  likeLiteral: boolean;
  /** CROSS is read as the alias of the table before and repaired by the adapter, so only a bare table may precede CROSS JOIN (sqlite). */
  crossAfterBareTable: boolean;
  /** `a-(b)`, `a-lower(b)`: a function name may hold dashes (postgresql, noql): the call `a-(b)`. */
  dashedNames: boolean;
  /** INTERSECT / EXCEPT: the sqlite grammar has neither. */
  intersectExcept: boolean;
}

/** Thrown (one shared instance: no stack to build) when the reader declines. */
class Decline extends Error {}
const DECLINE = new Decline('fast reader declined');

export function decline(): never {
  throw DECLINE;
}

export class Cursor {
  pos = 0;
  /** A column alias was read without AS (parse.ts then looks for implicit-alias warnings). */
  implicitAlias = false;
  constructor(
    readonly tokens: readonly Token[],
    readonly profile: Profile,
    /** Identifiers spelled in quotes anywhere in the text (tokens.ts): the adapter marks their bare uses quoted too. */
    readonly quoted: ReadonlySet<string>,
  ) {}

  peek(k = 0): Token | undefined {
    return this.tokens[this.pos + k];
  }

  /** The next token, or decline at the end. */
  next(): Token {
    const t = this.tokens[this.pos++];
    if (!t) decline();
    return t;
  }

  atEnd(): boolean {
    return this.pos >= this.tokens.length;
  }

  /** The token k ahead is the (upper-case) word `upper`. */
  isWord(upper: string, k = 0): boolean {
    const t = this.tokens[this.pos + k];
    return t !== undefined && t.type === 'word' && t.upper === upper;
  }

  isPunct(ch: string, k = 0): boolean {
    const t = this.tokens[this.pos + k];
    return t !== undefined && t.type === 'punct' && t.text === ch;
  }

  isOp(op: string, k = 0): boolean {
    const t = this.tokens[this.pos + k];
    return t !== undefined && t.type === 'op' && t.text === op;
  }

  eatWord(upper: string): boolean {
    if (!this.isWord(upper)) return false;
    this.pos++;
    return true;
  }

  eatPunct(ch: string): boolean {
    if (!this.isPunct(ch)) return false;
    this.pos++;
    return true;
  }

  expectWord(upper: string): void {
    if (!this.eatWord(upper)) decline();
  }

  expectPunct(ch: string): void {
    if (!this.eatPunct(ch)) decline();
  }
}
