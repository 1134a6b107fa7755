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

/** The plan from the SQL texts (reference first) and the fixture's column names. */
export function planNeighbours(sqls: readonly string[], columnNames: Iterable<string>): NeighbourPlan {
  const columns = new Set([...columnNames].map((c) => c.toLowerCase()));
  const hints: ColumnHint[] = [];
  const ties = new Set<string>();
  const mentioned = new Set<string>();
  const nullColumns = new Set<string>();
  const joins = new Map<string, [string, string]>();
  for (const [at, sql] of sqls.entries()) {
    const reference = at === 0;
    const tokens = tokenize(sql);
    const outerJoin = tokens.some(
      (t, i) => ['LEFT', 'RIGHT', 'FULL'].includes(t.upper) && ['JOIN', 'OUTER'].includes(tokens[i + 1]?.upper ?? ''),
    );
    let inOrderBy = -1;
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      const col = columnAt(tokens, i, columns);
      if (col) mentioned.add(col);
      if (t.type === 'word' && t.upper === 'ORDER' && tokens[i + 1]?.upper === 'BY') inOrderBy = t.depth;
      else if (
        inOrderBy >= 0 &&
        (t.depth < inOrderBy ||
          (t.depth === inOrderBy &&
            t.type === 'word' &&
            ['LIMIT', 'OFFSET', 'UNION', 'EXCEPT', 'INTERSECT'].includes(t.upper)))
      )
        inOrderBy = -1;
      if (col && inOrderBy >= 0) ties.add(col);
      if (t.type === 'word' && t.upper === 'USING' && tokens[i + 1]?.text === '(')
        for (let k = i + 2; tokens[k] && tokens[k]!.text !== ')'; k++) {
          const using = columnAt(tokens, k, columns);
          if (using) joins.set(`${using}\u0000${using}`, [using, using]);
        }
      if (t.type === 'word' && (t.upper === 'MAX' || t.upper === 'MIN') && tokens[i + 1]?.text === '(') {
        // max(t.x) / max(x): the last identifier before the closing parenthesis.
        let j = i + 2;
        while (tokens[j] && tokens[j]!.text !== ')' && j < i + 6) j++;
        const inner = columnAt(tokens, j - 1, columns);
        if (inner) ties.add(inner);
      }
      if (!col) {
        // literal OP column
        const lit = literalAt(tokens, i, columns);
        if (lit && tokens[i + lit.width]?.type === 'op' && COMPARISONS.has(tokens[i + lit.width]!.text)) {
          let k = i + lit.width + 1;
          while (isIdent(tokens[k]) && tokens[k + 1]?.text === '.' && isIdent(tokens[k + 2])) k += 2;
          const target = columnAt(tokens, k, columns);
          const op = tokens[i + lit.width]!.text;
          if (target)
            hints.push({
              column: target,
              values: [lit.value],
              source: 'compare',
              equality: ['=', '=='].includes(op),
              bound: BOUNDS.has(op),
              reference,
            });
        }
        continue;
      }
      // Skip a dotted tail (t.col): `col` is already the last part when followed by an operator.
      if (tokens[i + 1]?.text === '.') continue;
      let j = i + 1;
      const not = tokens[j]?.upper === 'NOT';
      if (not) j++;
      const next = tokens[j];
      if (!next) continue;
      if (
        next.upper === 'IS' &&
        (tokens[j + 1]?.upper === 'NULL' || (tokens[j + 1]?.upper === 'NOT' && tokens[j + 2]?.upper === 'NULL'))
      ) {
        if (at === 0 || !outerJoin) nullColumns.add(col);
      } else if (next.type === 'op' && COMPARISONS.has(next.text)) {
        const lit = literalAt(tokens, j + 1, columns);
        if (lit)
          hints.push({
            column: col,
            values: [lit.value],
            source: 'compare',
            equality: ['=', '=='].includes(next.text),
            bound: BOUNDS.has(next.text),
            reference,
          });
        else if (!not && next.text === '=') {
          // column = column: a join (the last part of a dotted name on the right).
          let k = j + 1;
          while (isIdent(tokens[k]) && tokens[k + 1]?.text === '.' && isIdent(tokens[k + 2])) k += 2;
          const other = columnAt(tokens, k, columns);
          if (other) joins.set([col, other].sort().join('\u0000'), [col, other]);
        }
      } else if (next.upper === 'LIKE' || next.upper === 'GLOB' || next.upper === 'ILIKE') {
        const lit = literalAt(tokens, j + 1, columns);
        if (lit && typeof lit.value === 'string') {
          const core = lit.value.replace(/[%*]/g, '').replace(/[_?]/g, 'x');
          hints.push({
            column: col,
            values: [core, lit.value.replace(/%/g, 'a').replace(/_/g, 'b')],
            source: 'like',
            equality: false,
            bound: false,
            reference,
          });
        }
      } else if (next.upper === 'IN' && tokens[j + 1]?.text === '(') {
        const values: HintValue[] = [];
        let k = j + 2;
        for (;;) {
          const lit = literalAt(tokens, k, columns);
          if (!lit) break;
          values.push(lit.value);
          k += lit.width;
          if (tokens[k]?.text !== ',') break;
          k++;
        }
        if (values.length) hints.push({ column: col, values, source: 'in', equality: !not, bound: false, reference });
      } else if (next.upper === 'BETWEEN') {
        const low = literalAt(tokens, j + 1, columns);
        const high =
          low && tokens[j + 1 + low.width]?.upper === 'AND' ? literalAt(tokens, j + 2 + low.width, columns) : null;
        if (low && high)
          hints.push({
            column: col,
            values: [low.value, high.value],
            source: 'between',
            equality: false,
            bound: true,
            reference,
          });
      }
    }
  }
  return {
    hints,
    tieColumns: [...ties],
    mentioned: [...mentioned],
    nullColumns: [...nullColumns],
    joins: [...joins.values()],
  };
}
