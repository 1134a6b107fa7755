/**
 * Names and literals as the grammars read them. A word any of the grammars
 * treats as a keyword (reserved, or with a rule of its own) is never taken
 * for a name: the reader declines and the grammars decide.
 */
import type { Token } from '../../sql/lexer.ts';
import type { Ident } from '../ir.ts';
import type { Cursor } from './cursor.ts';
import { decline } from './cursor.ts';

/**
 * The keyword rules (KW_*) of node-sql-parser's sqlite and postgresql
 * grammars, their reserved words, and the words other rules match (joins,
 * set operators, window and date-part words, special functions).
 */
const KEYWORDS = new Set(
  (
    'ADD ALL ALTER ANALYZE AND ANY ANTI ARRAY ARRAY_AGG AS ASC ASOF AT ATTACH AVG BETWEEN BIGINT BIGSERIAL BINARY ' +
    'BIT BOOL BOOLEAN BY CALL CASE CAST CHAR CHARACTER CIDR COLLATE COLLATION COLUMN COMMENT CONCURRENTLY ' +
    'CONSTRAINT CONTAINS CONVERT COUNT CREATE CROSS CURRENT CURRENT_DATE CURRENT_ROLE CURRENT_TIME ' +
    'CURRENT_TIMESTAMP CURRENT_USER DATABASE DATETIME DAY DEALLOCATE DECIMAL DEFAULT DELETE DESC DESCRIBE ' +
    'DISTINCT DIV DOUBLE DROP DUAL ELSE END ENUM ESCAPE EXCEPT EXISTS EXPLAIN EXTRACT FALSE FETCH FILTER FIRST ' +
    'FIRST_VALUE FLOAT FOLLOWING FOR FORCE FROM FULL FULLTEXT GEOMETRY GLOB GLOBAL GROUP GROUPS GROUP_CONCAT ' +
    'HAVING HOUR IF IGNORE ILIKE IN INDEX INDEXED INET INNER INSERT INT INTEGER INTERSECT INTERVAL INTO IS ' +
    'ISNULL JOIN JSON JSONB KEY KEY_BLOCK_SIZE LAG LAST LAST_VALUE LATERAL LEAD LEFT LIKE LIMIT LOCAL LOCK ' +
    'LONGTEXT MACADDR MACADDR8 MATCH MAX MEDIUMINT MEDIUMTEXT MIN MINUS MINUTE MOD MODIFY MONEY MONTH NATURAL ' +
    'NOT NOTNULL NULL NULLS NUMERIC OFFSET OID ON OR ORDER OUTER OVER PARTITION PERSIST PERSIST_ONLY PIVOT ' +
    'POSITION POSITIONAL PRECEDING QUALIFY QUARTER RANGE RANK REAL RECURSIVE REFERENCES REGEXP RENAME REPLACE ' +
    'RETURN RETURNING RIGHT RLIKE ROW ROWS ROW_NUMBER SAMPLE SCHEMA SECOND SELECT SEMI SEQUENCE SERIAL SESSION ' +
    'SESSION_USER SET SHOW SIGNED SIMILAR SMALLINT SMALLSERIAL SOME SPATIAL STRING_AGG STRUCT SUBSTRING SUM ' +
    'SYSTEM_USER TABLE TABLES TABLESAMPLE TABLESPACE TEMP TEMPORARY TEXT THEN TIME TIMESTAMP TIMESTAMPTZ ' +
    'TINYINT TINYTEXT TO TOP TRIM TRUE TRUNCATE TRY_CAST TSQUERY TSVECTOR UNBOUNDED UNION UNIQUE UNLOCK ' +
    'UNLOGGED UNPIVOT UNSIGNED UPDATE USE USER USING UUID VALUES VARCHAR VIEW WEEK WHEN WHERE WINDOW WITH ' +
    'WITHIN WRITE XOR ZEROFILL'
  ).split(' '),
);

/**
 * Words with a keyword rule that both grammars still read as a plain name in
 * every place the reader accepts a name (checked by the differential tests);
 * as a function name they are left to the grammars.
 */
export const NAME_KEYWORDS = new Set(['DATE', 'TYPE', 'YEAR']);

const PLAIN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A bare word usable as a name: not a keyword of any grammar, plain ASCII. */
export function isNameWord(t: Token | undefined): boolean {
  return (
    t !== undefined && t.type === 'word' && !KEYWORDS.has(t.upper) && PLAIN.test(t.text) && !keywordDigits(t.upper)
  );
}

/** `is8`, `in2`: the grammars end a keyword before a digit, so they read IS 8, IN 2. */
function keywordDigits(upper: string): boolean {
  const m = /^[A-Z_]+(?=[0-9])/.exec(upper);
  return m !== null && (KEYWORDS.has(m[0]) || NAME_KEYWORDS.has(m[0]));
}

/** `DATE '2020-01-01'` is a typed literal, not the name date followed by a string. */
export function isTypedLiteral(t: Token, next: Token | undefined): boolean {
  return t.upper === 'DATE' && next !== undefined && (next.type === 'string' || next.type === 'quoted');
}

/** The adapter's `ident`: a name spelled in quotes anywhere in the text is quoted everywhere. */
export function identOf(c: Cursor, value: string): Ident {
  return { value, quoted: c.quoted.has(value) };
}

/**
 * A double-quoted token every grammar reads the same way: terminated, no
 * doubled quote, backslash or control character inside (the sqlite grammar
 * reads `"a<newline>"` as a quoted name where `"a"` is a string).
 */
export function isCleanDoubleQuoted(t: Token | undefined): boolean {
  return (
    t !== undefined &&
    t.type === 'quoted' &&
    t.quote === '"' &&
    t.raw.length >= 3 &&
    t.raw.endsWith('"') &&
    t.raw.length === t.text.length + 2 &&
    !/[\\\x00-\x1f\x7f]/.test(t.text)
  );
}

/** A backquoted name (the sqlite grammar's quoted identifier): terminated, no doubled quote inside. */
function isCleanBackquoted(t: Token): boolean {
  return (
    t.type === 'quoted' &&
    t.quote === '`' &&
    t.raw.length >= 3 &&
    t.raw.endsWith('`') &&
    t.raw.length === t.text.length + 2 &&
    !/[\\'"\x00-\x1f\x7f]/.test(t.text)
  );
}

/** The name a token spells where a column, table or alias may stand (a bare word, or sqlite's `x`), else null. */
export function nameOf(c: Cursor, t: Token | undefined): string | null {
  if (t === undefined) return null;
  if (isNameWord(t)) return t.text;
  if (c.profile.backquotes && isCleanBackquoted(t)) return t.text;
  return null;
}

/** A name (column, table, alias), or decline. */
export function readName(c: Cursor): Ident {
  const v = nameOf(c, c.next());
  if (v === null) decline();
  return identOf(c, v);
}

/**
 * A single-quoted string's value as the grammars keep it: the text between
 * the quotes, a doubled quote left doubled. Backslashes decline (the sqlite
 * grammar reads `\'` as an escape).
 */
export function stringValue(t: Token): string {
  const raw = t.raw;
  if (raw.length < 2 || !raw.endsWith("'") || raw.includes('\\')) decline();
  const inner = raw.slice(1, -1);
  // The lexer undid doubled quotes in text; a lone quote left inside means the token ended early.
  if (inner.length !== t.text.length + countDoubled(inner)) decline();
  return inner;
}

function countDoubled(s: string): number {
  let n = 0;
  for (let i = s.indexOf("''"); i >= 0; i = s.indexOf("''", i + 2)) n++;
  return n;
}

const INT = /^(?:0|[1-9][0-9]{0,14})$/;
const DECIMAL = /^(?:0|[1-9][0-9]{0,14})\.[0-9]{1,15}$/;
const ZERO = /^0(?:\.0*)?$/;

/**
 * A numeric literal's text as the grammars print it. Only forms they keep as
 * written: `7`, `1.50` (not `007`, `.5`, `1.`, `1e5`, `-0`).
 */
export function numberText(t: Token, negative: boolean): string {
  const text = t.raw;
  if (!INT.test(text) && !DECIMAL.test(text)) decline();
  if (negative) {
    if (ZERO.test(text)) decline();
    return `-${text}`;
  }
  return text;
}
