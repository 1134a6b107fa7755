/**
 * A small lexical view of one SQL statement for the golden lint, on the
 * tokens of the shared lexer: the clauses of the outermost query level
 * (select list, ORDER BY keys, LIMIT/OFFSET). It does not parse SQL; it only
 * finds what the lint needs, and says so when it cannot.
 */

import { tokenize as lex, type Token } from '../sql/lexer.ts';

export type { Token };

/**
 * The shared lexer (src/core/sql/lexer.ts) as the lint reads SQL: a number
 * runs over every following digit, `.`, `_` and `e`, so `LIMIT 1.2.3` stays
 * one (unreadable) token.
 */
export function tokenize(sql: string): Token[] {
  return lex(sql, { numbers: 'run' });
}

const isWord = (t: Token | undefined, ...words: string[]) =>
  t !== undefined && t.type === 'word' && words.includes(t.text.toLowerCase());

export interface OrderKey {
  /** The key expression as written, without ASC/DESC/NULLS. */
  expression: string;
  /** The modifiers as written ("DESC", "DESC NULLS LAST"), or "". */
  modifiers: string;
}

/** The outermost query level of one statement. */
export interface QueryOutline {
  /** Text without trailing semicolons and whitespace. */
  sql: string;
  /** A UNION / INTERSECT / EXCEPT at the outermost level. */
  setOperation: boolean;
  distinct: boolean;
  /** Character range of the final SELECT list, when found. */
  selectList: { start: number; end: number } | null;
  orderBy: { start: number; keys: OrderKey[] } | null;
  /** LIMIT n (and OFFSET m) as integer literals; `start` is where the LIMIT/OFFSET tail begins. */
  limit: { count: number; offset: number; start: number } | null;
  /** LIMIT present but not an integer literal. */
  limitUnreadable: boolean;
}

const CLAUSE_AFTER_SELECT = [
  'from',
  'where',
  'group',
  'having',
  'qualify',
  'window',
  'order',
  'limit',
  'offset',
  'union',
  'intersect',
  'except',
];

export function outlineQuery(raw: string): QueryOutline {
  const sql = raw.replace(/[\s;]+$/, '');
  const tokens = tokenize(sql);
  const top = tokens.filter((t) => t.depth === 0);
  const setOperation = top.some((t) => isWord(t, 'union', 'intersect', 'except'));

  let selectIndex = -1;
  for (let k = 0; k < top.length; k++) if (isWord(top[k], 'select')) selectIndex = k;
  let selectList: QueryOutline['selectList'] = null;
  let distinct = false;
  if (selectIndex >= 0) {
    let first = selectIndex + 1;
    if (isWord(top[first], 'distinct')) {
      distinct = true;
      first++;
    } else if (isWord(top[first], 'all')) first++;
    let last = first;
    while (last < top.length && !isWord(top[last], ...CLAUSE_AFTER_SELECT)) last++;
    if (first < top.length && last > first) {
      // The list ends at the last token before the next clause, including any parenthesised tail.
      const nextClause = top[last];
      const end = nextClause ? lastTokenEndBefore(tokens, nextClause.start) : tokens[tokens.length - 1]!.end;
      selectList = { start: top[first]!.start, end };
    }
  }

  let limitIndex = -1;
  let offsetIndex = -1;
  let orderIndex = -1;
  for (let k = 0; k < top.length; k++) {
    if (isWord(top[k], 'limit')) limitIndex = k;
    if (isWord(top[k], 'offset')) offsetIndex = k;
    if (isWord(top[k], 'order') && isWord(top[k + 1], 'by')) orderIndex = k;
  }
  // ORDER BY inside a window (OVER (ORDER BY ...)) is nested; at depth 0 it is the query's.
  let limit: QueryOutline['limit'] = null;
  let limitUnreadable = false;
  const tailStart = [limitIndex, offsetIndex].filter((k) => k >= 0 && k > orderIndex);
  if (limitIndex >= 0 && limitIndex > orderIndex) {
    const count = top[limitIndex + 1];
    const offset = offsetIndex >= 0 ? top[offsetIndex + 1] : undefined;
    const readable =
      count?.type === 'number' &&
      /^\d+$/.test(count.text) &&
      (offset === undefined || (offset.type === 'number' && /^\d+$/.test(offset.text)));
    const trailing = top
      .slice(Math.min(...tailStart))
      .filter((t) => !isWord(t, 'limit', 'offset', 'rows', 'row')).length;
    if (readable && trailing === (offset ? 2 : 1))
      limit = {
        count: Number(count!.text),
        offset: offset ? Number(offset.text) : 0,
        start: top[Math.min(...tailStart)]!.start,
      };
    else limitUnreadable = true;
  }

  let orderBy: QueryOutline['orderBy'] = null;
  if (orderIndex >= 0) {
    const keysStart = top[orderIndex + 1]!.end;
    const keysEnd = limit
      ? limit.start
      : limitIndex > orderIndex
        ? top[limitIndex]!.start
        : offsetIndex > orderIndex
          ? top[offsetIndex]!.start
          : sql.length;
    orderBy = { start: top[orderIndex]!.start, keys: splitKeys(sql, tokens, keysStart, keysEnd) };
  }
  return { sql, setOperation, distinct, selectList, orderBy, limit, limitUnreadable };
}

function lastTokenEndBefore(tokens: Token[], position: number): number {
  let end = 0;
  for (const t of tokens) if (t.end <= position) end = t.end;
  return end;
}

function splitKeys(sql: string, tokens: Token[], start: number, end: number): OrderKey[] {
  const inside = tokens.filter((t) => t.start >= start && t.end <= end);
  const base = inside[0]?.depth ?? 0;
  const keys: OrderKey[] = [];
  let group: Token[] = [];
  const flush = () => {
    if (group.length === 0) return;
    let cut = group.length;
    while (cut > 0 && isWord(group[cut - 1], 'asc', 'desc', 'nulls', 'first', 'last')) cut--;
    const expression = sql.slice(group[0]!.start, group[cut - 1]!.end);
    const modifiers = cut < group.length ? sql.slice(group[cut]!.start, group[group.length - 1]!.end) : '';
    keys.push({ expression, modifiers });
    group = [];
  };
  for (const t of inside) {
    if (t.depth === base && t.type === 'punct' && t.text === ',') flush();
    else group.push(t);
  }
  flush();
  return keys;
}

/** SQL keywords that read like a value without parentheses (CURRENT_DATE); every other name counts only when called. */
const BARE_KEYWORDS = new Set([
  'current_date',
  'current_timestamp',
  'current_time',
  'localtimestamp',
  'localtime',
  'tablesample',
]);

/**
 * Uses of the given names outside strings and comments: as a call
 * (`name(`), or bare for keyword-like names such as CURRENT_DATE, and the
 * pair USING SAMPLE when `sample` is asked for.
 */
export function findWords(sql: string, names: readonly string[]): { name: string; offset: number }[] {
  return findWordsIn(tokenize(sql), names);
}

/** `findWords` on tokens already read (one lexing serves several searches). */
export function findWordsIn(tokens: readonly Token[], names: readonly string[]): { name: string; offset: number }[] {
  const wanted = new Set(names.map((n) => n.toLowerCase()));
  const out: { name: string; offset: number }[] = [];
  tokens.forEach((t, k) => {
    if (t.type !== 'word') return;
    const name = t.text.toLowerCase();
    if (!wanted.has(name)) return;
    const previous = tokens[k - 1];
    if (previous?.type === 'punct' && previous.text === '.') return; // a qualified column such as t.now
    const called = tokens[k + 1]?.type === 'punct' && tokens[k + 1]!.text === '(';
    const usingSample = name === 'sample' && previous?.type === 'word' && previous.text.toLowerCase() === 'using';
    if (called || BARE_KEYWORDS.has(name) || usingSample) out.push({ name, offset: t.start });
  });
  return out;
}

/** SQLite's clock: the string 'now' as a date/time function argument. */
export function findNowLiterals(sql: string): number[] {
  return nowLiteralsIn(tokenize(sql));
}

/** `findNowLiterals` on tokens already read. */
export function nowLiteralsIn(tokens: readonly Token[]): number[] {
  return tokens.filter((t) => t.type === 'string' && t.raw.toLowerCase() === "'now'").map((t) => t.start);
}

/** 1-based line of an offset. */
export function lineOf(sql: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < sql.length; i++) if (sql.charCodeAt(i) === 10) line++;
  return line;
}
