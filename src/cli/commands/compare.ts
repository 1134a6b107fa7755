import { readFileSync } from 'node:fs';
import path from 'node:path';
import { crossEngineNames, ENGINE_NAMES, type EngineName } from '../../core/engine.ts';
import {
  parseEvaluationRequest,
  resolveEvaluationConfig,
  SHAPES,
  type EvaluationRequest,
} from '../../core/evaluation/request.ts';
import { describeLeg } from '../../core/oracle/cross-engine.ts';
import { evaluate } from '../../core/pipeline.ts';
import { COMPARISON_MODES } from '../../core/result/config.ts';
import { INCLUDE_OPTIONS } from '../../core/report/include-options.ts';
import type { EvaluationReport } from '../../core/report/report.ts';
import { openEngine } from '../../engines/node.ts';
import { oneOf, parseFlags, positiveInteger } from '../args.ts';
import { CliError, EXIT } from '../cli-error.ts';
import { resolveFixture } from '../fixtures.ts';
import type { Io } from '../io.ts';
import { judgeFromEnv } from '../judge-env.ts';
import { prettyJson } from '../json.ts';
import { nodeNeighbourHost, ORACLE_FLAGS, ORACLE_HELP, oracleConfig } from '../oracle-flags.ts';

export const COMPARE_HELP = `Usage: sql-verdict compare --fixture PATH|NAME --expected SQL --actual SQL [options]
       sql-verdict compare --fixture PATH|NAME --request request.json [options]

Evaluate one candidate query against a reference on a fixture: parse, execute in the
sandbox, compare structure and results under the disclosed policy, attribute any
mismatch to a clause, and print the report.

Options:
  --expected SQL        the reference (known-correct) query
  --actual SQL          the candidate query (the system under test)
  --request FILE        a JSON request {user_query, actual_sql, expected_sql, config, context}
  --question TEXT       the natural-language question (user_query)
  --shape S             scalar | group_by | top_n | time_series | rows
  --order-matters       row order is part of the answer (tie-aware)
  --mode M              exact | order-insensitive | order-sensitive (default order-insensitive)
  --set                 set semantics (duplicates ignored; order-insensitive only)
  --strict-names        aligned columns must have the same names
  --strict-order        columns must align by position
  --atol X, --rtol X    float tolerances (default 1e-6 each)
  --config FILE         JSON configuration (the seed's option names)
  --engine duckdb|duckdb-native|sqlite|pglite|postgres
  --database-url URL    the PostgreSQL server of --engine postgres (or SQL_VERDICT_DATABASE_URL)
  --timeout-ms N        per-query budget (default 5000)
  --include intermediates
                        add the ASTs (parsed and canonical trees), the full result tables
                        and the result schemas to the report (config key "include")
${ORACLE_HELP}
  --judge               ask the configured AI judge (SQL_VERDICT_JUDGE_* variables); advisory only
  --json                print the full JSON report
  -h, --help            show this help

Exit status: 0 pass, 1 fail or undecided (a result search ran out of budget), 2 bad input.`;

function number(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new CliError(`${flag} must be a non-negative number, got "${value}".`);
  return n;
}

function readJson(file: string, cwd: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path.resolve(cwd, file), 'utf8');
  } catch (thrown) {
    throw new CliError(`Cannot read ${what} ${file}: ${(thrown as NodeJS.ErrnoException).code ?? String(thrown)}.`);
  }
  try {
    return JSON.parse(text);
  } catch (thrown) {
    throw new CliError(`${what} ${file} is not valid JSON: ${(thrown as Error).message}.`);
  }
}

export function summarizeReport(report: EvaluationReport): string {
  const lines: string[] = [];
  const pct = (x: number | null) => (x === null ? '—' : x.toFixed(2));
  lines.push(
    `${report.deterministic_verdict.toUpperCase()} · ${report.severity} · overall ${pct(report.overall_score)} (result ${pct(report.result_score)}, structure ${pct(report.structure_score)})`,
  );
  const d = report.diagnostic_scores;
  if (d?.likely_source_clause)
    lines.push(
      `Likely source: ${d.likely_source_clause} (confidence ${d.confidence.toFixed(2)}, evidence ${d.evidence_strength}${d.ambiguous_case ? ', ambiguous' : ''})`,
    );
  if (report.blocked_reason) lines.push(`Blocked: ${report.blocked_reason}`);
  for (const e of report.explanations) lines.push(`- ${e}`);
  const edits = report.evidence.structure?.clause_match?.edits ?? [];
  if (edits.length)
    lines.push(
      `Structure: ${edits
        .slice(0, 5)
        .map((e) => e.text)
        .join('; ')}`,
    );
  const cross = report.evidence.cross_engine;
  if (cross) {
    lines.push(
      `Cross-engine: ${cross.engine_dependent ? 'engine_dependent (the engines decide differently)' : 'no engine decides differently'}${cross.dialect_errors.length ? `; not the dialect of ${cross.dialect_errors.join(', ')}` : ''}`,
    );
    for (const l of cross.engines) lines.push(`  ${describeLeg(l)}`);
  }
  for (const w of report.warnings) lines.push(`Warning (${w.code}): ${w.message}`);
  if (report.judge && report.judge.status === 'judged')
    lines.push(
      `AI judge (advisory): ${report.ai_advisory_verdict}${report.verdict_consistency_flag === false ? ' — disagrees with the deterministic verdict' : ''}`,
    );
  const v = report.validity;
  lines.push(
    `${report.run_metadata.engine_version} · reference ${v.execution_time_expected_ms?.toFixed(1) ?? '—'} ms · candidate ${v.execution_time_actual_ms?.toFixed(1) ?? '—'} ms`,
  );
  return lines.join('\n');
}

const COMPARE_FLAGS = {
  fixture: { type: 'string' },
  expected: { type: 'string' },
  actual: { type: 'string' },
  request: { type: 'string' },
  question: { type: 'string' },
  shape: { type: 'string' },
  'order-matters': { type: 'boolean' },
  mode: { type: 'string' },
  set: { type: 'boolean' },
  'strict-names': { type: 'boolean' },
  'strict-order': { type: 'boolean' },
  atol: { type: 'string' },
  rtol: { type: 'string' },
  config: { type: 'string' },
  engine: { type: 'string' },
  'timeout-ms': { type: 'string' },
  'as-of': { type: 'string' },
  judge: { type: 'boolean' },
  include: { type: 'string', multiple: true },
  ...ORACLE_FLAGS,
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type CompareFlags = ReturnType<typeof parseFlags<typeof COMPARE_FLAGS>>['values'];

/** `sql-verdict compare`: flags and files → evaluate on the fixture's engine(s) → the report or its summary. */
export async function compareCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags('compare', argv, COMPARE_FLAGS);
  if (values.help) {
    io.out(COMPARE_HELP);
    return EXIT.ok;
  }
  if (positionals.length)
    throw new CliError(`compare: unexpected argument "${positionals[0]}" (SQL goes in --expected and --actual).`);
  if (!values.fixture)
    throw new CliError('compare: --fixture is required.\nRun "sql-verdict compare --help" for usage.');
  const request = compareRequest(values, io);
  const judge = values.judge ? judgeFromEnv(io.env) : null;
  const engines = compareEngines(values.fixture, values, request, io);
  try {
    const fixtureName = await engines.load();
    request.context.fixture ??= fixtureName;
    const report = await evaluate(request, engines.engine, {
      ...(judge
        ? { judge: { provider: judge.provider, options: { prices: judge.prices, policy: judge.policy } } }
        : {}),
      ...(engines.neighbourHost ? { neighbourHost: engines.neighbourHost } : {}),
      ...(engines.others.length ? { otherEngines: engines.others.map((o) => ({ engine: o })) } : {}),
    });
    io.out(values.json ? prettyJson(report) : summarizeReport(report));
    return report.deterministic_verdict === 'pass' ? EXIT.ok : EXIT.failed;
  } finally {
    await engines.close();
  }
}

/** Flags and files → a validated request (in this order, so the first bad flag is the one named). */
function compareRequest(values: CompareFlags, io: Io): EvaluationRequest {
  const raw = requestBody(values, io);
  const config = compareConfig(values, raw, io);
  const context: Record<string, unknown> = { ...((raw.context as Record<string, unknown> | undefined) ?? {}) };
  const shape = oneOf('--shape', values.shape, SHAPES);
  if (shape) context.shape = shape;
  if (values['order-matters']) context.order_matters = true;
  if (values.question !== undefined) raw.user_query = values.question;
  const parsed = parseEvaluationRequest({ ...raw, config, context });
  if (!parsed.ok)
    throw new CliError(
      `Invalid request${parsed.error.location ? ` (${parsed.error.location})` : ''}: ${parsed.error.message}`,
    );
  return parsed.value;
}

/** --request FILE (a JSON object), else the SQL of --expected and --actual. */
function requestBody(values: CompareFlags, io: Io): Record<string, unknown> {
  if (values.request) {
    const parsed = readJson(values.request, io.cwd, 'request');
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new CliError(`request ${values.request} must be a JSON object.`);
    return parsed as Record<string, unknown>;
  }
  if (values.expected === undefined) throw new CliError('compare: --expected is required (or --request FILE).');
  if (values.actual === undefined) throw new CliError('compare: --actual is required (or --request FILE).');
  // An empty candidate is a graded no_query; an empty reference is a usage error, not a broken oracle (exit 1).
  if (values.expected.trim() === '')
    throw new CliError('compare: --expected is empty: give the reference SQL (the known-correct query).');
  return { expected_sql: values.expected, actual_sql: values.actual };
}

/** The request's config, then --config FILE over it, then each flag over both; checked whole. */
function compareConfig(values: CompareFlags, raw: Record<string, unknown>, io: Io): Record<string, unknown> {
  const config: Record<string, unknown> = { ...((raw.config as Record<string, unknown> | undefined) ?? {}) };
  if (values.config) Object.assign(config, readJson(values.config, io.cwd, 'config'));
  const mode = oneOf('--mode', values.mode, COMPARISON_MODES);
  if (mode) config.comparison_mode = mode;
  if (values.set) config.set_semantics = true;
  if (values['strict-names']) config.require_column_name_match = true;
  if (values['strict-order']) config.require_column_order_match = true;
  const atol = number('--atol', values.atol);
  const rtol = number('--rtol', values.rtol);
  if (atol !== undefined) config.numeric_abs_tolerance = atol;
  if (rtol !== undefined) config.numeric_rel_tolerance = rtol;
  if (values['timeout-ms']) config.query_timeout_ms = positiveInteger('--timeout-ms', values['timeout-ms'], 5000);
  if (values.judge) config.enable_ai_judge = true;
  if (values.include?.length) {
    const asked = values.include.flatMap((v) => v.split(',')).map((v) => v.trim());
    for (const v of asked) oneOf('--include', v, INCLUDE_OPTIONS);
    config.include = [...new Set([...((config.include as string[] | undefined) ?? []), ...asked])];
  }
  Object.assign(config, oracleConfig(values));
  const checked = resolveEvaluationConfig(config);
  if (!checked.ok) throw new CliError(`Invalid configuration: ${checked.error.message}`);
  return config;
}

/**
 * The fixture's engine (--engine, else the first that loads it), the neighbours' scratch engines and, with
 * --cross-engine, the fixture on every other engine that loads it (an SQL dump: DuckDB, SQLite and PGlite).
 */
function compareEngines(spec: string, values: CompareFlags, request: EvaluationRequest, io: Io) {
  const fixture = resolveFixture(spec, io.cwd, values['as-of']);
  const requested = oneOf<EngineName>('--engine', values.engine, ENGINE_NAMES);
  if (requested && !fixture.engines.includes(requested))
    throw new CliError(`Fixture ${spec} cannot be loaded on ${requested} (it needs ${fixture.engines.join(' or ')}).`);
  const engine = openEngine(requested ?? fixture.engines[0]!);
  const neighbourHost = (request.config.neighbours ?? 0) > 0 ? nodeNeighbourHost(() => fixture.source.asOf) : null;
  const otherNames = request.config.cross_engine ? crossEngineNames(engine.name, fixture.engines) : [];
  if (request.config.cross_engine && !otherNames.length)
    throw new CliError(
      `--cross-engine: fixture ${spec} loads on ${fixture.engines.join(' only')} (an SQL dump loads on DuckDB, SQLite and PGlite).`,
    );
  const others = otherNames.map((name) => openEngine(name));
  return {
    engine,
    neighbourHost,
    others,
    /** Every engine loads the fixture, side by side (PGlite's start is the longest); its name. */
    async load(): Promise<string> {
      const [loaded, ...loads] = await Promise.all([engine, ...others].map((o) => o.load(fixture.source)));
      loads.forEach((loadedOther, i) => {
        if (!loadedOther!.ok)
          throw new CliError(`Cannot load fixture ${spec} on ${others[i]!.name}: ${loadedOther!.error.message}`);
      });
      if (!loaded!.ok) throw new CliError(`Cannot load fixture ${spec}: ${loaded!.error.message}`);
      return loaded!.value.name;
    },
    async close() {
      await engine.close();
      await neighbourHost?.close();
      await Promise.all(others.map((o) => o.close()));
    },
  };
}
