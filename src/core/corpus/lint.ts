/**
 * Golden lint, the parts that need no engine: a reference that depends on the
 * clock or on randomness. And the probes for the parts that do: does a LIMIT
 * cut through a tie of its ORDER BY keys, or cut an unordered result?
 */
import { canonicalCell } from '../digest/canonical-dump.ts';
import { LruCache } from '../structure/memo.ts';
import type { ResultTable } from '../value/kind.ts';
import { findNowLiterals, findWords, lineOf, outlineQuery, type QueryOutline } from './sql-tokens.ts';

/** Clock functions the engines pin to a fixture's declared as-of instant (DuckDB macros; SQLite's clock). */
export const FROZEN_CLOCK_FUNCTIONS = [
  'current_date',
  'today',
  'now',
  'current_timestamp',
  'get_current_timestamp',
  'transaction_timestamp',
  'localtimestamp',
] as const;
/** Clock functions no engine freezes. */
export const UNFROZEN_CLOCK_FUNCTIONS = [
  'current_time',
  'localtime',
  'get_current_time',
  'statement_timestamp',
  'clock_timestamp',
  'unixepoch',
  'epoch_ms_now',
] as const;
/** Functions and clauses whose result changes from run to run. */
export const NONDETERMINISTIC = [
  'random',
  'randomblob',
  'uuid',
  'gen_random_uuid',
  'uuidv4',
  'uuidv7',
  'setseed',
  'nextval',
  'currval',
  'tablesample',
  'sample',
] as const;

export interface LexicalFinding {
  code: 'clock_dependent' | 'nondeterministic';
  message: string;
  /** 1-based line within the reference SQL. */
  line: number;
}

/**
 * Clock and randomness in a reference. A frozen clock function is allowed
 * when the fixture declares an as-of instant: relative-date goldens ("last
 * month") are then deterministic. Without one, or for a clock function no
 * engine freezes, it is a finding; randomness always is.
 */
export function lintReferenceText(sql: string, fixtureHasAsOf: boolean): LexicalFinding[] {
  const findings: LexicalFinding[] = [];
  for (const hit of findWords(sql, FROZEN_CLOCK_FUNCTIONS))
    if (!fixtureHasAsOf)
      findings.push({
        code: 'clock_dependent',
        line: lineOf(sql, hit.offset),
        message: `${hit.name} reads the clock and the fixture declares no as-of instant: the expected result would change with the day it runs.`,
      });
  for (const hit of findWords(sql, UNFROZEN_CLOCK_FUNCTIONS))
    findings.push({
      code: 'clock_dependent',
      line: lineOf(sql, hit.offset),
      message: `${hit.name} reads a clock the engines do not freeze.`,
    });
  for (const offset of findNowLiterals(sql))
    if (!fixtureHasAsOf)
      findings.push({
        code: 'clock_dependent',
        line: lineOf(sql, offset),
        message: "'now' reads the clock and the fixture declares no as-of instant.",
      });
  for (const hit of findWords(sql, NONDETERMINISTIC))
    findings.push({
      code: 'nondeterministic',
      line: lineOf(sql, hit.offset),
      message: `${hit.name} makes the result differ from run to run.`,
    });
  return findings;
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** An ORDER BY key rewritten to name an output column of the query it orders. */
function keyOverOutput(expression: string, columns: readonly string[]): string {
  if (/^\d+$/.test(expression)) {
    const name = columns[Number(expression) - 1];
    return name === undefined ? expression : quoteIdent(name);
  }
  return expression.replace(/\b[A-Za-z_][A-Za-z0-9_]*\s*\.\s*(?=[A-Za-z_"])/g, '');
}

/**
 * The outline of a reference, once per text: every evaluation probes its
 * reference, and a corpus run meets each reference many times (Spider dev:
 * 1,234 distinct in 8,003 pairs). Read only, never changed.
 */
const outlines = new LruCache<QueryOutline>(1024);

function outlineOf(sql: string): QueryOutline {
  let q = outlines.get(sql);
  if (!q) outlines.set(sql, (q = outlineQuery(sql)));
  return q;
}

export type TieProbe =
  | { kind: 'none' }
  | { kind: 'unordered_limit'; limit: number; offset: number; countSql: string }
  | {
      kind: 'ordered_limit';
      limit: number;
      offset: number;
      keyCount: number;
      probes: string[];
      /**
       * One per probe: the same query with the output columns before the keys and no window, for
       * {@link tieGroupWindow} (is every row of the tie the same output row?).
       */
      rowProbes: string[];
      /** Count the rows and the non-NULL first keys (n, k), when that key leaves NULLs' place to the engine. */
      nullProbes: string[];
    }
  | { kind: 'unreadable'; reason: string };

/**
 * Queries that reveal whether the reference's LIMIT is stable. For an ordered
 * LIMIT n OFFSET m, each probe returns the ORDER BY keys of rows m+n and
 * m+n+1 (their last `keyCount` columns): equal keys mean the LIMIT cuts
 * through a tie. The first probe adds the keys to the final SELECT list; the
 * second orders the query's output (works when the keys are output columns).
 * For an unordered LIMIT, `countSql` counts the rows the LIMIT chooses from.
 */
export function limitTieProbes(sql: string, outputColumns: readonly string[]): TieProbe {
  const q = outlineOf(sql);
  if (q.limitUnreadable) return { kind: 'unreadable', reason: 'LIMIT or OFFSET is not an integer literal' };
  if (!q.limit) return { kind: 'none' };
  const { count, offset } = q.limit;
  const body = q.sql.slice(0, q.limit.start).trimEnd();
  if (!q.orderBy)
    return {
      kind: 'unordered_limit',
      limit: count,
      offset,
      countSql: `SELECT count(*) AS n FROM (${body}) AS __lint_q`,
    };
  const window = `LIMIT 2 OFFSET ${offset + Math.max(count, 1) - 1}`;
  const probes: string[] = [];
  const rowProbes: string[] = [];
  const keys = q.orderBy.keys;
  // A positional key (ORDER BY 2) names an output column, which the SELECT list cannot read by its name (SQLite
  // even takes an unknown "name" for a string, a constant that ties every row): those keys use the second form only.
  const positional = (e: string) => /^\d+$/.test(e);
  if (q.selectList && !q.setOperation && !q.distinct && !keys.some((k) => positional(k.expression))) {
    const extra = keys.map((k, i) => `, (${k.expression}) AS "__lint_key_${i}"`).join('');
    const rows = `${q.sql.slice(0, q.selectList.end)}${extra}${q.sql.slice(q.selectList.end, q.limit.start).trimEnd()}`;
    probes.push(`${rows} ${window}`);
    rowProbes.push(rows);
  }
  const beforeOrder = q.sql.slice(0, q.orderBy.start).trimEnd();
  const over = keys.map((k) => keyOverOutput(k.expression, outputColumns));
  const overKeys = over.map((e, i) => `${e} AS "__lint_key_${i}"`).join(', ');
  const overOrder = `FROM (${beforeOrder}) AS __lint_q ORDER BY ${over
    .map((e, i) => `${e}${keys[i]!.modifiers ? ` ${keys[i]!.modifiers}` : ''}`)
    .join(', ')}`;
  probes.push(`SELECT ${overKeys} ${overOrder} ${window}`);
  rowProbes.push(`SELECT __lint_q.*, ${overKeys} ${overOrder}`);
  // Where NULLs sort is the engine's choice (SQLite first, DuckDB last, PostgreSQL last ascending) unless the key says.
  const nullProbes: string[] = [];
  const first = keys[0]!;
  if (!/\bnulls\b/i.test(first.modifiers)) {
    const counted = (key: string, from: string) =>
      `SELECT count(*) AS n, count(${key}) AS k FROM (${from}) AS __lint_q`;
    if (q.selectList && !q.setOperation && !q.distinct && !positional(first.expression))
      nullProbes.push(
        counted(
          '"__lint_key_0"',
          `${q.sql.slice(0, q.selectList.end)}, (${first.expression}) AS "__lint_key_0"${q.sql.slice(q.selectList.end, q.orderBy.start).trimEnd()}`,
        ),
      );
    nullProbes.push(counted(over[0]!, beforeOrder));
  }
  return { kind: 'ordered_limit', limit: count, offset, keyCount: keys.length, probes, rowProbes, nullProbes };
}

/** Rows read on each side of the LIMIT boundary to see a whole tie group. */
const TIE_GROUP_REACH = 500;

/**
 * When a probe has found equal keys at the LIMIT boundary, the query that reads the rows around it
 * (output columns, then the keys), and the judge of its result: a tie whose rows are all the same
 * output row is no cut at all (any of them gives the same answer: `SELECT price … ORDER BY price
 * DESC LIMIT 1` with two products at the top price), so `identical` is true only when the whole tie
 * group lies inside the rows read and every row of it is the same output row (cells as canonical text).
 */
export function tieGroupWindow(
  probe: Extract<TieProbe, { kind: 'ordered_limit' }>,
  index: number,
): { sql: string; identical(rows: ResultTable): boolean } {
  const lastInside = probe.offset + Math.max(probe.limit, 1) - 1;
  const start = Math.max(0, lastInside - TIE_GROUP_REACH);
  const count = lastInside - start + 2 + TIE_GROUP_REACH;
  return {
    sql: `${probe.rowProbes[index]!} LIMIT ${count} OFFSET ${start}`,
    identical(table: ResultTable): boolean {
      const width = table.columns.length - probe.keyCount;
      const at = lastInside - start;
      if (width < 0 || at + 1 >= table.rows.length) return false;
      const text = (row: number, from: number, to: number) =>
        table.rows[row]!.slice(from, to)
          .map((cell, i) => canonicalCell(table.columns[from + i]!, cell))
          .join('\t');
      const key = (row: number) => text(row, width, table.columns.length);
      const tied = key(at);
      let first = at;
      while (first > 0 && key(first - 1) === tied) first--;
      let last = at + 1;
      while (last + 1 < table.rows.length && key(last + 1) === tied) last++;
      // The group may go on beyond the rows read: unknown, so not identical.
      if ((first === 0 && start > 0) || (last === table.rows.length - 1 && table.rows.length === count)) return false;
      const output = text(first, 0, width);
      for (let row = first + 1; row <= last; row++) if (text(row, 0, width) !== output) return false;
      return true;
    },
  };
}
