/**
 * Cross-engine agreement (config.cross_engine): both queries of a case run on
 * every other engine holding the same fixture (DuckDB, SQLite, PostgreSQL via
 * PGlite), each compared under the same policy, so a reader sees the verdict
 * per engine. `engine_dependent` is set only when two engines that ran both
 * queries decide differently (7 / 2 is 3 on SQLite and PostgreSQL, 3.5 on
 * DuckDB). An engine refusing a query as not its dialect (a syntax error, a
 * function it does not have) gives no verdict there: `dialect_error`, which
 * says which query and why, and is not a different answer.
 */
import type { Engine, EngineName, ExecuteOptions, ExecuteOutcome } from '../engine.ts';
import type { VerdictError } from '../errors.ts';
import type { Warning } from '../report/warning.ts';
import { compareResults } from '../result/compare.ts';
import type { ComparisonConfig } from '../result/config.ts';
import { resultVerdict, type CompareOptions } from '../result/types.ts';
import { encodeResultTable, type JsonResultTable } from '../value/json-codec.ts';
import type { ResultTable } from '../value/kind.ts';

export type CrossEngineVerdict = 'pass' | 'fail' | 'undecided' | 'not_comparable' | 'dialect_error';

export interface CrossEngineLeg {
  engine: string;
  /** The engine the case was graded on (its verdict is the report's; its results are in evidence.result). */
  graded: boolean;
  verdict: CrossEngineVerdict;
  /** The reference run on this engine when it is not the graded text (a dialect port). */
  expected_sql: string | null;
  /** Why this engine gave no verdict: it refused a query as not its dialect. */
  dialect_error: { query: 'reference' | 'candidate'; category: string; message: string } | null;
  expected_error: string | null;
  actual_error: string | null;
  reasons: { code: string; message: string }[];
  expected_sample: (JsonResultTable & { total_rows: number }) | null;
  actual_sample: (JsonResultTable & { total_rows: number }) | null;
}

export interface CrossEngineEvidence {
  /** Two engines that ran both queries decided differently. */
  engine_dependent: boolean;
  /** Engines that refused the reference or the candidate as not their dialect. */
  dialect_errors: string[];
  /** The graded engine first, then the others in the order given. */
  engines: CrossEngineLeg[];
}

/** Another engine with the fixture loaded, and the reference in its dialect when that is another text. */
export interface OtherEngine {
  engine: Engine;
  expectedSql?: string;
}

const FUNCTION_MISSING =
  /no such function|Scalar Function with name .* does not exist|Table Function with name .* does not exist|function .* does not exist|Aggregate Function with name .* does not exist|is not a function/i;

/** An error that says the engine does not speak this SQL (rather than computing something else). */
export function isDialectError(error: VerdictError): boolean {
  if (error.code === 'sandbox.engine_unsupported') return true;
  if (error.category === 'syntax_error' || error.category === 'engine_unsupported') return true;
  return FUNCTION_MISSING.test(`${error.message}\n${error.raw ?? ''}`);
}

const sample = (t: ResultTable) => ({
  ...encodeResultTable({ columns: t.columns, rows: t.rows.slice(0, 10) }),
  total_rows: t.rows.length,
});

export const dialectOf = (query: 'reference' | 'candidate', e: VerdictError): CrossEngineLeg['dialect_error'] => ({
  query,
  // SQLite words a missing function as a plain error and PostgreSQL as a type mismatch (42883): name it.
  category: FUNCTION_MISSING.test(`${e.message}\n${e.raw ?? ''}`) ? 'missing_function' : (e.category ?? e.code),
  message: e.message,
});

async function leg(
  other: OtherEngine,
  expectedSql: string,
  actualSql: string,
  exec: ExecuteOptions,
  policy: ComparisonConfig,
  compareOptions: CompareOptions,
): Promise<CrossEngineLeg> {
  const engine = other.engine;
  const reference = other.expectedSql ?? expectedSql;
  const e: ExecuteOutcome = await engine.execute(reference, exec);
  const a: ExecuteOutcome = await engine.execute(actualSql, exec);
  const base = {
    engine: engine.name,
    graded: false,
    expected_sql: reference === expectedSql ? null : reference,
    expected_error: e.ok ? null : e.error.message,
    actual_error: a.ok ? null : a.error.message,
    expected_sample: e.ok ? sample(e.value) : null,
    actual_sample: a.ok ? sample(a.value) : null,
  };
  if (!e.ok) {
    const dialect = isDialectError(e.error);
    return {
      ...base,
      verdict: dialect ? 'dialect_error' : 'not_comparable',
      dialect_error: dialect ? dialectOf('reference', e.error) : null,
      reasons: [],
    };
  }
  if (!a.ok) {
    // The candidate does not run here: not its dialect, or a real failure (division by zero) the graded engine did not have.
    const dialect = isDialectError(a.error);
    return {
      ...base,
      verdict: dialect ? 'dialect_error' : 'fail',
      dialect_error: dialect ? dialectOf('candidate', a.error) : null,
      reasons: [{ code: 'candidate_error', message: `The candidate fails on ${engine.name}: ${a.error.message}` }],
    };
  }
  const compared = compareResults(e.value, a.value, policy, compareOptions);
  return {
    ...base,
    verdict: resultVerdict(compared),
    dialect_error: null,
    reasons: compared.reasons.slice(0, 3).map((r) => ({ code: r.code, message: r.message })),
  };
}

/** Both queries on every other engine; the graded engine's verdict is given. */
export async function crossEngineEvidence(input: {
  /** The graded engine's verdict; dialect_error (with why) when the candidate failed there as not its dialect. */
  graded: { engine: EngineName; verdict: CrossEngineVerdict; dialect_error?: CrossEngineLeg['dialect_error'] };
  others: readonly OtherEngine[];
  expectedSql: string;
  actualSql: string;
  exec: ExecuteOptions;
  policy: ComparisonConfig;
  compareOptions: CompareOptions;
}): Promise<CrossEngineEvidence> {
  const legs: CrossEngineLeg[] = [
    {
      engine: input.graded.engine,
      graded: true,
      verdict: input.graded.verdict,
      expected_sql: null,
      dialect_error: input.graded.dialect_error ?? null,
      expected_error: null,
      actual_error: null,
      reasons: [],
      expected_sample: null,
      actual_sample: null,
    },
  ];
  // One engine at a time: each is its own worker, but a case's queries are few and the order keeps reports stable.
  for (const other of input.others)
    legs.push(await leg(other, input.expectedSql, input.actualSql, input.exec, input.policy, input.compareOptions));
  const decided = new Set(legs.filter((l) => l.verdict === 'pass' || l.verdict === 'fail').map((l) => l.verdict));
  return {
    engine_dependent: decided.size > 1,
    dialect_errors: legs.filter((l) => l.verdict === 'dialect_error').map((l) => l.engine),
    engines: legs,
  };
}

/** One line per engine, for the CLI and warnings: "duckdb: pass (graded)", "sqlite: not its dialect (…)". */
export function describeLeg(l: CrossEngineLeg): string {
  if (l.verdict === 'dialect_error' && l.dialect_error)
    return `${l.engine}: not its dialect${l.graded ? ' (graded: the case fails there)' : ''} (the ${l.dialect_error.query} fails: ${l.dialect_error.category}, ${l.dialect_error.message})`;
  if (l.verdict === 'not_comparable') return `${l.engine}: not comparable (the reference fails: ${l.expected_error})`;
  return `${l.engine}: ${l.verdict}${l.graded ? ' (graded)' : ''}${l.verdict === 'fail' && l.reasons[0] ? ` (${l.reasons[0].message})` : ''}`;
}

/** engine_dependent when two engines decide differently; cross_engine_dialect when an engine could not run a query. */
export function crossEngineWarnings(x: CrossEngineEvidence): Warning[] {
  if (x.engine_dependent)
    return [
      {
        code: 'engine_dependent',
        message: `The verdict depends on the engine: ${x.engines.map(describeLeg).join('; ')}.`,
      },
    ];
  if (x.dialect_errors.length)
    return [
      {
        code: 'cross_engine_dialect',
        message: `${x.dialect_errors.join(', ')} cannot run a query of this case as not its dialect, which is not a different answer: ${x.engines.map(describeLeg).join('; ')}.`,
      },
    ];
  return [];
}
