/**
 * Checks of the oracle itself that every evaluation gets, after the result
 * comparison (and the neighbours):
 *
 * - the reference's LIMIT cutting through a tie (or keeping part of an
 *   unordered result) on the fixture: a `limit_through_tie` warning (one probe
 *   query, only when the reference has a LIMIT);
 * - a candidate calling a nondeterministic function (random(), uuid(), now()...,
 *   qualified names too): it is run a second time, and `nondeterministic` says
 *   whether the two results agreed;
 * - with config.cross_engine and other engines holding the same fixture:
 *   both queries on each (cross-engine.ts), the verdict per engine in
 *   evidence.cross_engine, `engine_dependent` when two engines decide
 *   differently, `cross_engine_dialect` when one refuses a query as not its dialect.
 */
import type { Compared, Validated } from '../evaluation/case-record.ts';
import {
  crossEngineEvidence,
  crossEngineWarnings,
  dialectOf,
  isDialectError,
  type CrossEngineEvidence,
  type OtherEngine,
} from './cross-engine.ts';
import type { Blocked } from '../validation/validate.ts';
import type { Warning } from '../report/report.ts';
import { resultVerdict } from '../result/types.ts';
import { tokenize } from '../sql/lexer.ts';
import { encodeResultTable } from '../value/json-codec.ts';
import type { ResultTable } from '../value/kind.ts';
import { limitTieMessage, limitTieStatus } from './limit-tie.ts';

/** Functions whose value changes from call to call (or with the real clock, where the engine does not freeze it). */
export const VOLATILE_FUNCTIONS = [
  'random',
  'rand',
  'randomblob',
  'uuid',
  'gen_random_uuid',
  'uuidv4',
  'uuidv7',
  'setseed',
  'nextval',
  'now',
  'current_timestamp',
  'get_current_timestamp',
  'transaction_timestamp',
  'statement_timestamp',
  'clock_timestamp',
  'current_time',
  'get_current_time',
  'localtime',
  'localtimestamp',
  'unixepoch',
  'epoch_ms_now',
] as const;

/** Calls of volatile functions in the SQL, qualified (`main.random()`, `"uuid"()`) or not, with SQLite's 'now' argument. */
export function volatileCalls(sql: string): string[] {
  const names = new Set<string>(VOLATILE_FUNCTIONS);
  const found = new Set<string>();
  const tokens = tokenize(sql);
  tokens.forEach((t, i) => {
    if ((t.type === 'word' || t.type === 'quoted') && names.has(t.text.toLowerCase()) && tokens[i + 1]?.text === '(') {
      const qualified = tokens[i - 1]?.text === '.' && tokens[i - 2] ? `${tokens[i - 2]!.text}.` : '';
      found.add(`${qualified}${t.text.toLowerCase()}()`);
    }
    if (t.type === 'string' && t.text.toLowerCase() === 'now') found.add("'now'");
    if (
      t.type === 'word' &&
      ['ORDER'].includes(t.upper) &&
      tokens[i + 1]?.upper === 'BY' &&
      tokens[i + 2]?.upper === 'RANDOM'
    )
      found.add('random()');
  });
  return [...found];
}

export type { CrossEngineEvidence, CrossEngineLeg, OtherEngine } from './cross-engine.ts';

export interface OracleOptions {
  /** The other engines with the same fixture loaded (config.cross_engine), each with its reference when ported. */
  otherEngines?: readonly OtherEngine[];
}

function sameRows(a: ResultTable, b: ResultTable): boolean {
  return JSON.stringify(encodeResultTable(a).rows) === JSON.stringify(encodeResultTable(b).rows);
}

export async function oracleStage(c: Compared, options: OracleOptions = {}): Promise<Compared> {
  const warnings: Warning[] = [];
  const exec = c.execOptions;
  const expectedRun = c.runs.expected;
  // 1. LIMIT through a tie, on the fixture (executed references only: a frozen result has no query to probe).
  if (expectedRun?.ok) {
    const status = await limitTieStatus(
      c.engine,
      c.request.expected_sql,
      expectedRun.value.columns.map((col) => col.name),
      exec,
    );
    const message = limitTieMessage(status);
    if (message) warnings.push({ code: 'limit_through_tie', message });
  }
  // 2. A candidate with volatile calls: run it again.
  const calls = c.actualSql && c.runs.actual?.ok ? volatileCalls(c.actualSql) : [];
  if (calls.length && c.runs.actual?.ok) {
    const again = await c.engine.execute(c.actualSql!, exec);
    const first = c.runs.actual.value;
    const differs = !again.ok || !sameRows(first, again.value);
    warnings.push({
      code: 'nondeterministic',
      message: differs
        ? `The candidate calls ${calls.join(', ')} and its result changed between two runs (${first.rows.length} rows, then ${again.ok ? `${again.value.rows.length} rows with other values` : `an error: ${again.error.message}`}): this verdict may not repeat.`
        : `The candidate calls ${calls.join(', ')}: two runs agreed here, but the result can change from run to run, so the verdict may not repeat.`,
    });
  }
  // 3. The other engines.
  let crossEngine: CrossEngineEvidence | null = null;
  const others = options.otherEngines ?? [];
  if (c.config.cross_engine && others.length && c.actualSql && !c.request.expected_result) {
    const mainVerdict = resultVerdict(c.result);
    crossEngine = await crossEngineEvidence({
      graded: { engine: c.engine.name, verdict: mainVerdict },
      others,
      expectedSql: c.request.expected_sql,
      actualSql: c.actualSql,
      exec,
      policy: c.comparison,
      compareOptions: {
        ...(c.request.context.shape ? { shape: c.request.context.shape } : {}),
        orderKeys: c.orderKeys,
      },
    });
    warnings.push(...crossEngineWarnings(crossEngine));
  }
  if (!warnings.length && !crossEngine) return c;
  return { ...c, warnings: [...c.warnings, ...warnings], ...(crossEngine ? { crossEngine } : {}) };
}

/**
 * A case blocked because the candidate does not run on the graded engine: the other engines are still asked
 * (the candidate may be another engine's dialect, which the graded leg says).
 */
export async function blockedCrossEngine(
  v: Validated,
  blocked: Blocked,
  options: OracleOptions,
): Promise<CrossEngineEvidence | null> {
  const others = options.otherEngines ?? [];
  const actual = v.runs.actual;
  if (!v.config.cross_engine || !others.length || !v.actualSql || v.request.expected_result) return null;
  // A syntax error on the graded engine blocks as parse_failure: the engine refused it, other engines may not.
  if (blocked.reason !== 'execution_failure' && blocked.reason !== 'parse_failure') return null;
  if (!v.runs.expected?.ok || !actual || actual.ok) return null;
  const dialect = isDialectError(actual.error);
  return crossEngineEvidence({
    graded: {
      engine: v.engine.name,
      verdict: dialect ? 'dialect_error' : 'fail',
      ...(dialect ? { dialect_error: dialectOf('candidate', actual.error) } : {}),
    },
    others,
    expectedSql: v.request.expected_sql,
    actualSql: v.actualSql,
    exec: v.execOptions,
    policy: v.comparison,
    compareOptions: v.request.context.shape ? { shape: v.request.context.shape } : {},
  });
}
