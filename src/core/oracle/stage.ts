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
 * - with config.cross_engine and a second engine holding the same fixture:
 *   both queries on it too, and `engine_dependent` when the verdict differs,
 *   with both results in evidence.cross_engine.
 */
import type { Compared } from '../evaluation/case-record.ts';
import type { Engine, ExecuteOutcome } from '../engine.ts';
import type { Warning } from '../report/report.ts';
import { compareResults } from '../result/compare.ts';
import { resultVerdict } from '../result/types.ts';
import { tokenize } from '../sql/lexer.ts';
import { encodeResultTable, type JsonResultTable } from '../value/json-codec.ts';
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

export interface CrossEngineEvidence {
  engine: string;
  verdict: 'pass' | 'fail' | 'undecided' | 'not_comparable';
  engine_dependent: boolean;
  expected_error: string | null;
  actual_error: string | null;
  reasons: { code: string; message: string }[];
  expected_sample: (JsonResultTable & { total_rows: number }) | null;
  actual_sample: (JsonResultTable & { total_rows: number }) | null;
}

export interface OracleOptions {
  /** The other engine with the same fixture loaded (config.cross_engine). */
  otherEngine?: Engine;
}

const sample = (t: ResultTable) => ({
  ...encodeResultTable({ columns: t.columns, rows: t.rows.slice(0, 10) }),
  total_rows: t.rows.length,
});

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
  // 3. The other engine.
  let crossEngine: CrossEngineEvidence | null = null;
  if (c.config.cross_engine && options.otherEngine && c.actualSql && !c.request.expected_result) {
    const other = options.otherEngine;
    const e: ExecuteOutcome = await other.execute(c.request.expected_sql, exec);
    const a: ExecuteOutcome = await other.execute(c.actualSql, exec);
    const mainVerdict = resultVerdict(c.result);
    if (!e.ok) {
      crossEngine = {
        engine: other.name,
        verdict: 'not_comparable',
        engine_dependent: false,
        expected_error: e.error.message,
        actual_error: a.ok ? null : a.error.message,
        reasons: [],
        expected_sample: null,
        actual_sample: a.ok ? sample(a.value) : null,
      };
    } else {
      const compared = a.ok
        ? compareResults(e.value, a.value, c.comparison, {
            ...(c.request.context.shape ? { shape: c.request.context.shape } : {}),
            orderKeys: c.orderKeys,
          })
        : null;
      const verdict = compared ? resultVerdict(compared) : 'fail';
      crossEngine = {
        engine: other.name,
        verdict,
        engine_dependent: verdict !== 'undecided' && mainVerdict !== 'undecided' && verdict !== mainVerdict,
        expected_error: null,
        actual_error: a.ok ? null : a.error.message,
        reasons: compared
          ? compared.reasons.slice(0, 3).map((r) => ({ code: r.code, message: r.message }))
          : [
              {
                code: 'candidate_error',
                message: `The candidate fails on ${other.name}: ${a.ok ? '' : a.error.message}`,
              },
            ],
        expected_sample: sample(e.value),
        actual_sample: a.ok ? sample(a.value) : null,
      };
    }
    if (crossEngine.engine_dependent)
      warnings.push({
        code: 'engine_dependent',
        message: `The verdict depends on the engine: ${mainVerdict} on ${c.engine.name}, ${crossEngine.verdict} on ${other.name}${crossEngine.reasons[0] ? ` (${crossEngine.reasons[0].message})` : ''}.`,
      });
  }
  if (!warnings.length && !crossEngine) return c;
  return { ...c, warnings: [...c.warnings, ...warnings], ...(crossEngine ? { crossEngine } : {}) };
}
