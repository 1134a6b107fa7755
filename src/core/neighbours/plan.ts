/**
 * What the queries say about the data that matters, read from their tokens
 * (as the test-suite distillation reads the gold query): the literals each
 * column is compared with (`age > 30`, `name LIKE '%a%'`, `x IN (1, 2)`,
 * `d BETWEEN '2020-01-01' AND ...`), and the columns whose extremes decide
 * the answer (ORDER BY keys, MAX/MIN arguments) where ties are worth planting.
 */
import { tokenize, type Token } from '../sql/lexer.ts';

export type HintValue = string | number;

export interface ColumnHint {
  /** Column name, lower-case (matched against every table that has it). */
  column: string;
  values: HintValue[];
  source: 'compare' | 'like' | 'in' | 'between';
  /** Compared with `=` or `IN`: the literal names rows (a value that names one row in the fixture names at most one in a neighbour). */
  equality: boolean;
  /** Compared with `<`, `<=`, `>`, `>=` or BETWEEN: the literal is a bound. */
  bound: boolean;
  /** From the reference (the first text), not a candidate. */
  reference: boolean;
}

export interface NeighbourPlan {
  hints: ColumnHint[];
  /** Lower-case column names whose extremes matter (ORDER BY keys, MAX/MIN arguments). */
  tieColumns: string[];
  /** Every identifier the queries mention, lower-case. */
  mentioned: string[];
  /**
   * Columns tested with IS [NOT] NULL: NULLs are planted in them. The reference's tests
   * always count; a candidate's only when it has no outer join, since there
   * `LEFT JOIN b … WHERE b.x IS NULL` tests for a missing partner, not that b.x may be NULL.
   */
  nullColumns: string[];
  /** Column pairs the queries equate (`t.a = u.b`, `JOIN … ON a = b`, `USING (a)`), lower-case: how rows meet across tables. */
  joins: [string, string][];
}

const COMPARISONS = new Set(['=', '==', '!=', '<>', '<', '<=', '>', '>=']);
const BOUNDS = new Set(['<', '<=', '>', '>=']);
const OUTER_JOINS = new Set(['LEFT', 'RIGHT', 'FULL']);
const ORDER_BY_ENDS = new Set(['LIMIT', 'OFFSET', 'UNION', 'EXCEPT', 'INTERSECT']);

const isIdent = (t: Token | undefined): t is Token => !!t && (t.type === 'word' || t.type === 'quoted');

/** A literal at `i` (a signed number, a string, or a double-quoted word that names no column): its value and width in tokens. */
function literalAt(
  tokens: Token[],
  i: number,
  columns: ReadonlySet<string>,
): { value: HintValue; width: number } | null {
  const t = tokens[i];
  if (!t) return null;
  if (t.type === 'number') return { value: Number(t.text), width: 1 };
  if (t.type === 'op' && t.text === '-' && tokens[i + 1]?.type === 'number')
    return { value: -Number(tokens[i + 1]!.text), width: 2 };
  if (t.type === 'string') return { value: t.text, width: 1 };
  // SQLite (and Spider's gold) take "France" for a string when no column has that name.
  if (t.type === 'quoted' && t.quote === '"' && !columns.has(t.text.toLowerCase())) return { value: t.text, width: 1 };
  return null;
}

/** The column an identifier at `i` names (the last part of a dotted name), or null when it is a keyword or a function call. */
function columnAt(tokens: Token[], i: number, columns: ReadonlySet<string>): string | null {
  const t = tokens[i];
  if (!isIdent(t)) return null;
  const name = t.type === 'quoted' ? t.text.toLowerCase() : t.text.toLowerCase();
  if (!columns.has(name)) return null;
  if (tokens[i + 1]?.text === '(') return null;
  return name;
}

/** What the plan gathers from every text. */
interface Gathered {
  /** The fixture's column names, lower-case. */
  columns: ReadonlySet<string>;
  hints: ColumnHint[];
  ties: Set<string>;
  mentioned: Set<string>;
  nullColumns: Set<string>;
  /** By the pair's sorted names: a pair met again keeps its place, in its latest order. */
  joins: Map<string, [string, string]>;
}

/** One text being read. */
interface SqlText {
  tokens: Token[];
  /** The first text: the reference. */
  reference: boolean;
  outerJoin: boolean;
}

/** The plan from the SQL texts (reference first) and the fixture's column names. */
export function planNeighbours(sqls: readonly string[], columnNames: Iterable<string>): NeighbourPlan {
  const g: Gathered = {
    columns: new Set([...columnNames].map((c) => c.toLowerCase())),
    hints: [],
    ties: new Set(),
    mentioned: new Set(),
    nullColumns: new Set(),
    joins: new Map(),
  };
  for (const [at, sql] of sqls.entries()) readText(g, sql, at === 0);
  return {
    hints: g.hints,
    tieColumns: [...g.ties],
    mentioned: [...g.mentioned],
    nullColumns: [...g.nullColumns],
    joins: [...g.joins.values()],
  };
}

/** Token by token: the columns it names, ORDER BY keys, USING and MAX/MIN columns, and the predicates on columns. */
function readText(g: Gathered, sql: string, reference: boolean): void {
  const tokens = tokenize(sql);
  const text: SqlText = { tokens, reference, outerJoin: hasOuterJoin(tokens) };
  let inOrderBy = -1;
  for (let i = 0; i < tokens.length; i++) {
    const col = columnAt(tokens, i, g.columns);
    if (col) g.mentioned.add(col);
    inOrderBy = orderByDepth(tokens, i, inOrderBy);
    if (col && inOrderBy >= 0) g.ties.add(col);
    readUsing(g, tokens, i);
    readExtreme(g, tokens, i);
    if (col) readColumnPredicate(g, text, i, col);
    else readLiteralFirst(g, text, i);
  }
}

const hasOuterJoin = (tokens: Token[]) =>
  tokens.some((t, i) => OUTER_JOINS.has(t.upper) && ['JOIN', 'OUTER'].includes(tokens[i + 1]?.upper ?? ''));

/** The depth of the ORDER BY that the token at `i` is in (-1 when none): it runs to the end of its query or to a LIMIT, OFFSET or set operator. */
function orderByDepth(tokens: Token[], i: number, inOrderBy: number): number {
  const t = tokens[i]!;
  if (t.type === 'word' && t.upper === 'ORDER' && tokens[i + 1]?.upper === 'BY') return t.depth;
  if (
    inOrderBy >= 0 &&
    (t.depth < inOrderBy || (t.depth === inOrderBy && t.type === 'word' && ORDER_BY_ENDS.has(t.upper)))
  )
    return -1;
  return inOrderBy;
}

/** USING (a, …): each column equated with itself. */
function readUsing(g: Gathered, tokens: Token[], i: number): void {
  const t = tokens[i]!;
  if (t.type !== 'word' || t.upper !== 'USING' || tokens[i + 1]?.text !== '(') return;
  for (let k = i + 2; tokens[k] && tokens[k]!.text !== ')'; k++) {
    const using = columnAt(tokens, k, g.columns);
    if (using) g.joins.set(`${using}\u0000${using}`, [using, using]);
  }
}

/** max(t.x) / max(x): the last identifier before the closing parenthesis. */
function readExtreme(g: Gathered, tokens: Token[], i: number): void {
  const t = tokens[i]!;
  if (t.type !== 'word' || (t.upper !== 'MAX' && t.upper !== 'MIN') || tokens[i + 1]?.text !== '(') return;
  let j = i + 2;
  while (tokens[j] && tokens[j]!.text !== ')' && j < i + 6) j++;
  const inner = columnAt(tokens, j - 1, g.columns);
  if (inner) g.ties.add(inner);
}

/** The last part of a dotted name starting at `k` (`a.b.c`: the index of `c`). */
function lastNamePart(tokens: Token[], k: number): number {
  while (isIdent(tokens[k]) && tokens[k + 1]?.text === '.' && isIdent(tokens[k + 2])) k += 2;
  return k;
}

const compareHint = (column: string, value: HintValue, op: string, reference: boolean): ColumnHint => ({
  column,
  values: [value],
  source: 'compare',
  equality: ['=', '=='].includes(op),
  bound: BOUNDS.has(op),
  reference,
});

/** literal OP column. */
function readLiteralFirst(g: Gathered, text: SqlText, i: number): void {
  const { tokens } = text;
  const lit = literalAt(tokens, i, g.columns);
  if (!lit || tokens[i + lit.width]?.type !== 'op' || !COMPARISONS.has(tokens[i + lit.width]!.text)) return;
  const target = columnAt(tokens, lastNamePart(tokens, i + lit.width + 1), g.columns);
  if (target) g.hints.push(compareHint(target, lit.value, tokens[i + lit.width]!.text, text.reference));
}

/** column [NOT] followed by IS [NOT] NULL, a comparison, LIKE, IN (…) or BETWEEN. */
function readColumnPredicate(g: Gathered, text: SqlText, i: number, col: string): void {
  const { tokens } = text;
  // Skip a dotted tail (t.col): `col` is already the last part when followed by an operator.
  if (tokens[i + 1]?.text === '.') return;
  let j = i + 1;
  const not = tokens[j]?.upper === 'NOT';
  if (not) j++;
  const next = tokens[j];
  if (!next) return;
  if (
    next.upper === 'IS' &&
    (tokens[j + 1]?.upper === 'NULL' || (tokens[j + 1]?.upper === 'NOT' && tokens[j + 2]?.upper === 'NULL'))
  ) {
    if (text.reference || !text.outerJoin) g.nullColumns.add(col);
  } else if (next.type === 'op' && COMPARISONS.has(next.text)) readComparison(g, text, j, col, not);
  else if (next.upper === 'LIKE' || next.upper === 'GLOB' || next.upper === 'ILIKE') readLike(g, text, j, col);
  else if (next.upper === 'IN' && tokens[j + 1]?.text === '(') readIn(g, text, j, col, not);
  else if (next.upper === 'BETWEEN') readBetween(g, text, j, col);
}

/** column OP literal, or column = column (a join: the last part of a dotted name on the right). */
function readComparison(g: Gathered, text: SqlText, j: number, col: string, not: boolean): void {
  const { tokens } = text;
  const op = tokens[j]!.text;
  const lit = literalAt(tokens, j + 1, g.columns);
  if (lit) g.hints.push(compareHint(col, lit.value, op, text.reference));
  else if (!not && op === '=') {
    const other = columnAt(tokens, lastNamePart(tokens, j + 1), g.columns);
    if (other) g.joins.set([col, other].sort().join('\u0000'), [col, other]);
  }
}

/** column LIKE pattern: the pattern's fixed part, and the pattern with its wildcards filled in. */
function readLike(g: Gathered, text: SqlText, j: number, col: string): void {
  const lit = literalAt(text.tokens, j + 1, g.columns);
  if (!lit || typeof lit.value !== 'string') return;
  const core = lit.value.replace(/[%*]/g, '').replace(/[_?]/g, 'x');
  g.hints.push({
    column: col,
    values: [core, lit.value.replace(/%/g, 'a').replace(/_/g, 'b')],
    source: 'like',
    equality: false,
    bound: false,
    reference: text.reference,
  });
}

/** column [NOT] IN (literal, …): the literals up to the first that is not one. */
function readIn(g: Gathered, text: SqlText, j: number, col: string, not: boolean): void {
  const { tokens } = text;
  const values: HintValue[] = [];
  let k = j + 2;
  for (;;) {
    const lit = literalAt(tokens, k, g.columns);
    if (!lit) break;
    values.push(lit.value);
    k += lit.width;
    if (tokens[k]?.text !== ',') break;
    k++;
  }
  if (values.length)
    g.hints.push({ column: col, values, source: 'in', equality: !not, bound: false, reference: text.reference });
}

/** column BETWEEN literal AND literal. */
function readBetween(g: Gathered, text: SqlText, j: number, col: string): void {
  const { tokens } = text;
  const low = literalAt(tokens, j + 1, g.columns);
  const high =
    low && tokens[j + 1 + low.width]?.upper === 'AND' ? literalAt(tokens, j + 2 + low.width, g.columns) : null;
  if (low && high)
    g.hints.push({
      column: col,
      values: [low.value, high.value],
      source: 'between',
      equality: false,
      bound: true,
      reference: text.reference,
    });
}
