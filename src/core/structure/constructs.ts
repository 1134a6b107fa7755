/**
 * Named dialect constructs, detected on tokens. When the engine runs a query
 * that the parser rejects, the pipeline records `parser_unsupported` and
 * {@link unsupportedConstruct} says which construct is the likely reason.
 *
 * `unsupportedBy` lists the dialects whose grammar chain (grammar.ts) fails on
 * the construct; `tests/structure/constructs.test.ts` checks every entry
 * against the real grammars, so the list cannot drift from the parser.
 */
import type { Dialect } from './grammar.ts';
import { tokenize, type Token } from '../sql/lexer.ts';

export interface ConstructDef {
  /** Stable name shown to users, e.g. "QUALIFY". */
  name: string;
  /** Dialects whose parser chain rejects it (empty: parsed, as a plain function or operator, but worth naming). */
  unsupportedBy: readonly Dialect[];
  /** A minimal query using it (the test parses it). */
  example: string;
  detect: (t: Token[], i: number) => boolean;
}

const word = (t: Token[], i: number, ...words: string[]) => words.every((w, k) => t[i + k]?.upper === w);
const isOp = (t: Token[], i: number, op: string) => t[i]?.type === 'op' && t[i]!.text === op;

/** DuckDB's UNION type (`x::UNION(a INT)`, `CAST(x AS UNION(a INT))`), not a set operator. */
const isUnionType = (t: Token[], i: number) => word(t, i, 'UNION') && (isOp(t, i - 1, '::') || word(t, i - 1, 'AS'));

/** A UNION, INTERSECT or EXCEPT keyword that combines queries. */
export function isSetOperator(t: Token[], i: number): boolean {
  return ['UNION', 'INTERSECT', 'EXCEPT'].includes(t[i]?.upper ?? '') && !isUnionType(t, i);
}

export const CONSTRUCTS: readonly ConstructDef[] = [
  {
    name: 'QUALIFY',
    unsupportedBy: ['duckdb', 'sqlite'],
    example: 'SELECT a FROM t QUALIFY row_number() OVER (ORDER BY a) = 1',
    detect: (t, i) => word(t, i, 'QUALIFY'),
  },
  {
    name: 'FROM-first SELECT',
    unsupportedBy: ['duckdb', 'sqlite'],
    example: 'FROM t SELECT a',
    detect: (t, i) => i === 0 && word(t, i, 'FROM'),
  },
  {
    name: 'GROUP BY ALL',
    unsupportedBy: ['duckdb', 'sqlite'],
    example: 'SELECT a, count(*) FROM t GROUP BY ALL',
    detect: (t, i) => word(t, i, 'GROUP', 'BY', 'ALL'),
  },
  {
    name: 'ORDER BY ALL',
    unsupportedBy: ['duckdb', 'sqlite'],
    example: 'SELECT a FROM t ORDER BY ALL',
    detect: (t, i) => word(t, i, 'ORDER', 'BY', 'ALL'),
  },
  {
    name: 'SELECT * EXCLUDE',
    unsupportedBy: ['duckdb', 'sqlite'],
    example: 'SELECT * EXCLUDE (a) FROM t',
    detect: (t, i) => isOp(t, i, '*') && word(t, i + 1, 'EXCLUDE'),
  },
  {
    name: 'SELECT * REPLACE',
    unsupportedBy: ['duckdb', 'sqlite'],
    example: 'SELECT * REPLACE (a + 1 AS a) FROM t',
    detect: (t, i) => isOp(t, i, '*') && word(t, i + 1, 'REPLACE'),
  },
  {
    name: 'COLUMNS(...)',
    unsupportedBy: [],
    example: "SELECT max(COLUMNS('a.*')) FROM t",
    detect: (t, i) => word(t, i, 'COLUMNS') && t[i + 1]?.text === '(',
  },
  {
    name: 'PIVOT',
    unsupportedBy: ['duckdb', 'sqlite'],
    example: 'PIVOT t ON a USING sum(b)',
    detect: (t, i) => word(t, i, 'PIVOT') || word(t, i, 'UNPIVOT'),
  },
  {
    name: 'list literal [...]',
    unsupportedBy: ['duckdb'],
    example: 'SELECT [1, 2, 3]',
    detect: (t, i) =>
      t[i]?.text === '[' &&
      (i === 0 || t[i - 1]?.type === 'op' || [',', '(', ''].includes(t[i - 1]!.text) || t[i - 1]!.upper === 'SELECT'),
  },
  {
    name: 'struct literal {...}',
    unsupportedBy: ['duckdb', 'sqlite'],
    example: "SELECT {'a': 1}",
    detect: (t, i) => t[i]?.text === '{',
  },
  {
    name: 'lambda ->',
    unsupportedBy: ['duckdb'],
    example: 'SELECT list_transform(l, x -> x + 1) FROM t',
    detect: (t, i) => isOp(t, i, '->') && t[i - 1]?.type === 'word',
  },
  {
    name: 'ASOF JOIN',
    unsupportedBy: ['duckdb', 'sqlite'],
    example: 'SELECT * FROM a ASOF JOIN b ON a.t >= b.t',
    detect: (t, i) => word(t, i, 'ASOF'),
  },
  {
    name: 'POSITIONAL JOIN',
    unsupportedBy: ['duckdb', 'sqlite'],
    example: 'SELECT * FROM a POSITIONAL JOIN b',
    detect: (t, i) => word(t, i, 'POSITIONAL', 'JOIN'),
  },
  {
    name: 'SEMI/ANTI JOIN',
    unsupportedBy: ['duckdb', 'sqlite'],
    example: 'SELECT * FROM a ANTI JOIN b ON a.x = b.x',
    detect: (t, i) => word(t, i, 'SEMI', 'JOIN') || word(t, i, 'ANTI', 'JOIN'),
  },
  {
    name: 'USING SAMPLE',
    unsupportedBy: ['duckdb', 'sqlite'],
    example: 'SELECT * FROM t USING SAMPLE 10%',
    detect: (t, i) => word(t, i, 'USING', 'SAMPLE') || word(t, i, 'TABLESAMPLE'),
  },
  {
    name: 'TRY_CAST',
    unsupportedBy: ['duckdb'],
    example: 'SELECT TRY_CAST(a AS INTEGER) FROM t',
    detect: (t, i) => word(t, i, 'TRY_CAST'),
  },
  { name: ':: cast', unsupportedBy: [], example: 'SELECT a::INTEGER FROM t', detect: (t, i) => isOp(t, i, '::') },
  {
    name: 'IS [NOT] DISTINCT FROM',
    unsupportedBy: [],
    example: 'SELECT * FROM t WHERE a IS DISTINCT FROM b',
    detect: (t, i) => word(t, i, 'IS', 'DISTINCT', 'FROM') || word(t, i, 'IS', 'NOT', 'DISTINCT', 'FROM'),
  },
  {
    name: 'LATERAL',
    unsupportedBy: ['duckdb'],
    example: 'SELECT * FROM t, LATERAL (SELECT t.a) s',
    detect: (t, i) => word(t, i, 'LATERAL'),
  },
  {
    name: 'parenthesized set-operation arm',
    unsupportedBy: ['duckdb', 'sqlite'],
    example: 'SELECT a FROM t UNION (SELECT b FROM u)',
    detect: (t, i) =>
      isSetOperator(t, i) &&
      (t[i + 1]?.text === '(' || (['ALL', 'DISTINCT'].includes(t[i + 1]?.upper ?? '') && t[i + 2]?.text === '(')),
  },
  {
    name: 'UNION type',
    unsupportedBy: ['duckdb', 'sqlite'],
    example: 'SELECT CAST(a AS UNION(k INTEGER)) FROM t',
    detect: isUnionType,
  },
  {
    name: '! = (spaced not-equal)',
    unsupportedBy: ['duckdb', 'sqlite'],
    example: 'SELECT * FROM t WHERE a ! = 1',
    detect: (t, i) => isOp(t, i, '!') && isOp(t, i + 1, '='),
  },
  {
    name: 'SHOW as a table name',
    unsupportedBy: ['sqlite'],
    example: 'SELECT avg(a) FROM SHOW',
    detect: (t, i) => word(t, i, 'FROM', 'SHOW'),
  },
  {
    name: 'backslash in a string literal',
    unsupportedBy: ['sqlite'],
    example: "SELECT a FROM t WHERE a LIKE '%\\'",
    detect: (t, i) => t[i]?.type === 'string' && t[i]!.text.endsWith('\\'),
  },
];

/** Every construct of the list that the SQL uses (in list order). */
export function detectConstructs(sql: string): string[] {
  const tokens = tokenize(sql);
  const found: string[] = [];
  for (const c of CONSTRUCTS) {
    for (let i = 0; i < tokens.length; i++) {
      if (c.detect(tokens, i)) {
        found.push(c.name);
        break;
      }
    }
  }
  return found;
}

/**
 * The construct most likely to explain why the dialect's parser rejects this
 * SQL, or null when none of the known ones is used.
 */
export function unsupportedConstruct(sql: string, dialect: Dialect): string | null {
  const names = new Set(CONSTRUCTS.filter((c) => c.unsupportedBy.includes(dialect)).map((c) => c.name));
  return detectConstructs(sql).find((n) => names.has(n)) ?? null;
}
