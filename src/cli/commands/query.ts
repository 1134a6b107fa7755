import { ENGINE_NAMES, type EngineName } from '../../core/engine.ts';
import { encodeResultTable } from '../../core/value/json-codec.ts';
import { openEngine } from '../../engines/node.ts';
import { byteSize, oneOf, parseFlags, positiveInteger } from '../args.ts';
import { CliError, EXIT } from '../cli-error.ts';
import { resolveFixture } from '../fixtures.ts';
import type { Io } from '../io.ts';
import { prettyJson, printJson } from '../json.ts';
import { renderTable } from '../table.ts';

export const QUERY_HELP = `Usage: sql-verdict query --fixture PATH|NAME "SQL" [options]

Run one read-only query in the sandbox and print its result with exact values.

Options:
  --fixture PATH|NAME   a .sql dump, .duckdb, .sqlite/.db, .csv or .parquet file, a folder
                        of table files, or a built-in fixture name (retail, retail_monthly)
  --engine duckdb|duckdb-native|sqlite|pglite|postgres
                        engine to use (default: the first that can load the fixture)
  --database-url URL    the PostgreSQL server of --engine postgres (or SQL_VERDICT_DATABASE_URL)
  --timeout-ms N        stop the query after N milliseconds (default 5000)
  --max-rows N          refuse results larger than N rows (default 1000000)
  --max-result-bytes SIZE  refuse results holding more than SIZE of decoded cells, checked while
                        rows stream out of the engine (e.g. 64MiB; default 256MiB)
  --as-of INSTANT       freeze the clock (current_date, now()) at this ISO instant
  --json                print {columns, rows} as exact JSON (decimals and big integers as strings)
  -h, --help            show this help

Exit status: 0 the query ran, 1 the query failed, 2 bad input.`;

export async function queryCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags('query', argv, {
    fixture: { type: 'string' },
    engine: { type: 'string' },
    'timeout-ms': { type: 'string' },
    'max-rows': { type: 'string' },
    'max-result-bytes': { type: 'string' },
    'as-of': { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.out(QUERY_HELP);
    return EXIT.ok;
  }
  if (!values.fixture) throw new CliError('query: --fixture is required.\nRun "sql-verdict query --help" for usage.');
  if (positionals.length !== 1)
    throw new CliError(
      `query: expected exactly one SQL argument, got ${positionals.length}.\nRun "sql-verdict query --help" for usage.`,
    );
  // No query is bad input (exit 2, as compare --expected ""), not a query that failed (exit 1).
  if (positionals[0]!.trim() === '') throw new CliError('query: the SQL argument is empty: give the query to run.');
  const timeoutMs = positiveInteger('--timeout-ms', values['timeout-ms'], 5000);
  const maxRows = positiveInteger('--max-rows', values['max-rows'], 1_000_000);
  const maxResultBytes = byteSize('--max-result-bytes', values['max-result-bytes']);
  const fixture = resolveFixture(values.fixture, io.cwd, values['as-of']);
  const requested = oneOf<EngineName>('--engine', values.engine, ENGINE_NAMES);
  if (requested && !fixture.engines.includes(requested))
    throw new CliError(
      `Fixture ${values.fixture} cannot be loaded on ${requested} (it needs ${fixture.engines.join(' or ')}).`,
    );
  const engineName = requested ?? fixture.engines[0]!;

  const engine = openEngine(engineName);
  try {
    const loaded = await engine.load(fixture.source);
    if (!loaded.ok) throw new CliError(`Cannot load fixture ${values.fixture}: ${loaded.error.message}`);
    const outcome = await engine.execute(positionals[0]!, {
      timeoutMs,
      maxRows,
      ...(maxResultBytes !== undefined ? { maxResultBytes } : {}),
    });
    if (!outcome.ok) {
      if (values.json) io.out(prettyJson({ ok: false, engine: engineName, error: outcome.error }));
      else {
        io.err(
          `Query failed [${outcome.error.code}${outcome.error.category ? ` / ${outcome.error.category}` : ''}]: ${outcome.error.message}`,
        );
        if (outcome.error.statement_kind) io.err(`Statement kind: ${outcome.error.statement_kind}`);
      }
      return EXIT.failed;
    }
    const result = outcome.value;
    if (values.json) {
      // Printed piece by piece: a large result (up to the row and byte caps) is never one string.
      printJson(io.out, {
        ok: true,
        engine: engineName,
        engine_version: loaded.value.engineVersion,
        fixture: { name: loaded.value.name, content_digest: loaded.value.contentDigest },
        ...encodeResultTable(result),
        row_count: result.rows.length,
        elapsed_ms: Math.round(result.elapsedMs * 1000) / 1000,
      });
    } else {
      io.out(renderTable(result));
      io.out(`${engineName} · ${result.elapsedMs.toFixed(1)} ms`);
    }
    return EXIT.ok;
  } finally {
    await engine.close();
  }
}
