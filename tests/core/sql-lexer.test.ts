import { describe, expect, it } from 'vitest';
import { tokenize } from '../../src/core/sql/lexer.ts';

const brief = (sql: string, numbers?: 'sql' | 'run') =>
  tokenize(sql, numbers ? { numbers } : {}).map((t) => `${t.type}:${t.raw}`);

describe('the shared SQL lexer', () => {
  it('keeps strings and quoted identifiers both as written and unquoted', () => {
    const [s, q, b] = tokenize(`'it''s' "a""b" \`c\``);
    expect(s).toMatchObject({ type: 'string', raw: "'it''s'", text: "it's", quote: "'", start: 0, end: 7 });
    expect(q).toMatchObject({ type: 'quoted', raw: '"a""b"', text: 'a"b', quote: '"', start: 8, end: 14 });
    expect(b).toMatchObject({ type: 'quoted', raw: '`c`', text: 'c', quote: '`' });
  });

  it('runs an unterminated quote to the end of the text', () => {
    expect(tokenize("SELECT 'abc")[1]).toMatchObject({ type: 'string', raw: "'abc", text: 'abc', end: 11 });
  });

  it('skips comments and whitespace, upper-cases words', () => {
    const tokens = tokenize('select -- note\n a /* b */ FROM t');
    expect(tokens.map((t) => t.upper)).toEqual(['SELECT', 'A', 'FROM', 'T']);
  });

  it('counts parenthesis depth, an opening and its closing parenthesis sharing one', () => {
    const tokens = tokenize('f(a, (b)) c )');
    expect(tokens.map((t) => `${t.raw}${t.depth}`)).toEqual([
      'f0',
      '(0',
      'a1',
      ',1',
      '(1',
      'b2',
      ')1',
      ')0',
      'c0',
      ')0',
    ]);
  });

  it('reads operators whole and every other character as punctuation', () => {
    expect(brief('a::int ->> b || c[1] -> d <> e')).toEqual([
      'word:a',
      'op:::',
      'word:int',
      'op:->>',
      'word:b',
      'op:||',
      'word:c',
      'punct:[',
      'number:1',
      'punct:]',
      'op:->',
      'word:d',
      'op:<>',
      'word:e',
    ]);
  });

  it('reads SQL numeric literals by default, digit runs on request', () => {
    expect(brief('1e-5 1.2.3 .5 1_000')).toEqual([
      'number:1e-5',
      'number:1.2',
      'number:.3',
      'number:.5',
      'number:1',
      'word:_000',
    ]);
    expect(brief('1e-5 1.2.3 .5 1_000', 'run')).toEqual([
      'number:1e',
      'op:-',
      'number:5',
      'number:1.2.3',
      'number:.5',
      'number:1_000',
    ]);
  });
});
