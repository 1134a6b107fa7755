/**
 * DuckDB-WASM as a sandboxed engine session. The same code drives the
 * blocking bundle (Node worker thread) and the async bundle (browser) through
 * a small driver interface.
 *
 * Sandbox, in order (ENGINE-NOTES "DuckDB-WASM is not a sandbox by default"):
 * extension autoload off; memory limit; frozen clock and side-effect
 * functions replaced by TEMP macros; registered files allow-listed; external
 * access disabled (one-way); configuration locked — all before any
 * user-supplied fixture SQL runs. Untrusted queries must pass DuckDB's own
 * single-SELECT check (`query('<sql>')`) before they run.
 */
import type { DataType, RecordBatch, Table } from 'apache-arrow';
import {
  DEFAULT_MAX_RESULT_BYTES,
  type ExecuteOutcome,
  type ExplainOptions,
  type FixtureFile,
  type FixtureInfo,
  type FixtureSource,
  type PlanSummary,
  type TableInfo,
} from '../../core/engine.ts';
import { asOfParts } from '../../core/engine.ts';
import { fail, messageOf, ok, type Outcome } from '../../core/errors.ts';
import { contentDigestOf } from '../../core/digest/canonical-dump.ts';
import { readDump, stagedRowsSql, stageRows } from '../../core/sql/dump-rows.ts';
import type { Cell, Column } from '../../core/value/kind.ts';
import type { EngineSession, HostExecuteOptions, HostSettings } from '../host-api.ts';
import {
  executionError,
  rejectedByPrecheck,
  rejectedStatement,
  tooManyBytes,
  tooManyRows,
} from '../execution-errors.ts';
import { rowBytes } from '../../core/value/size.ts';
import { arrowProjectionOf, duckDbColumn } from './types.ts';
import {
  buildCallPolicy,
  checkCalls,
  TOKEN_SENTINEL,
  type CallPolicy,
  type ScriptTokens,
} from '../../core/sandbox/calls.ts';

export interface DuckDbDriver<T = Table, B = RecordBatch> {
  /** Drop the current database and open a fresh in-memory one with default settings. */
  reopen(): Promise<void>;
  version(): Promise<string>;
  /** Trusted SQL (setup, fixture loading, digests). */
  query(sql: string): Promise<T>;
  /** Untrusted SQL, streamed so a row cap can stop it early; cancellable where the driver can. */
  stream(sql: string): Promise<StreamedResult<B>>;
  cancel(): Promise<boolean>;
  /** Close the database for good (a native engine, before its thread ends). */
  dispose?(): Promise<void>;
  /** Make a fixture file readable under this name; returns the path SQL names it by (the name itself in WASM). */
  registerFile(name: string, bytes: Uint8Array): Promise<string | void>;
  /** DuckDB's own scanner: the tokens its parser will see. */
  tokenize(sql: string): Promise<ScriptTokens>;
  readonly canCancel: boolean;
  /**
   * How results become cells: decode.ts's ARROW_CODEC for DuckDB-WASM. Given by the driver, so that a native
   * engine thread never loads apache-arrow (a few hundred milliseconds of its start).
   */
  readonly codec: ResultCodec<T, B>;
  /** SET statements the driver needs before the sandbox is locked (e.g. a native engine's thread count). */
  readonly setup?: string[];
  /**
   * The function names of DuckDB-WASM (wasm-functions.ts), for a build that has more (native DuckDB links icu,
   * json, parquet and autocomplete in): its other built-in functions are refused as DuckDB-WASM refuses them.
   */
  readonly referenceFunctions?: ReadonlySet<string>;
  /** Note a start-up step (Node's SQL_VERDICT_TIMELINE, src/engines/timeline.ts); absent in the browser. */
  mark?(step: string): void;
}

/**
 * Functions only a keyword reaches (`SELECT localtimestamp`): where DuckDB-WASM lacks them (icu functions, which
 * native DuckDB has), shadowed by a TEMP macro failing as DuckDB-WASM does.
 */
const KEYWORD_FUNCTIONS = ['get_current_time', 'current_localtimestamp', 'current_localtime', 'current_date', 'today'];

/** The extension a function absent from DuckDB-WASM comes from (named in the error, as DuckDB-WASM names it). */
function extensionOf(name: string): string {
  if (/json|->/.test(name)) return 'json';
  if (/parquet/.test(name)) return 'parquet';
  if (/auto_complete|peg_parser/.test(name)) return 'autocomplete';
  return 'icu';
}

/** Results → the exact value model, for a driver whose results are not Arrow. */
export interface ResultCodec<T, B> {
  rows(table: T, columns: Column[]): Cell[][];
  names(table: T): string[];
  batch(batch: B, columns: Column[], into: Cell[][]): void;
}

export interface StreamedResult<B = RecordBatch> {
  fields: { name: string; type?: DataType }[];
  batches: AsyncIterable<B> | Iterable<B>;
}

const SQL_STRING = (text: string) => `'${text.replace(/'/g, "''")}'`;
const IDENT = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** A fixture load to do again without loadFile's one transaction. */
const AGAIN_WITHOUT_TRANSACTION = Symbol('again without one transaction');

/**
 * SQL files up to this size load inside one transaction: what one holds until its commit stays in memory, so a
 * large dump is loaded statement by statement, as written.
 */
const ONE_TRANSACTION_MAX_BYTES = 32 * 2 ** 20;

/** The file a bulk load stages a dump's rows in (loadRows), and the rows below which it is not worth it. */
const STAGE_FILE = 'fixture-rows.csv';
const BULK_MIN_ROWS = 64;

/** Functions with side effects a SELECT could otherwise reach. */
const BLOCKED_FUNCTIONS = ['nextval', 'currval', 'setseed'];

function tableNameFromFile(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  return base.replace(/\.(csv|tsv|parquet)$/i, '') || 'data';
}

/**
 * DuckDB's error context ("LINE 1: DESCRIBE SELECT * FROM query('…')" and a caret) points into the statement
 * gate's wrapper, not into the user's SQL: a user reading the engine's message would see SQL they never wrote.
 */
function withoutGate(raw: string): string {
  return raw.replace(/\s*LINE \d+: DESCRIBE SELECT \* FROM query\([\s\S]*$/, '');
}

export class DuckDbSession<T = Table, B = RecordBatch> implements EngineSession {
  private fixture: FixtureInfo | null = null;
  private calls: CallPolicy | null = null;
  /**
   * The content digest load() or contentDigest() computed, while no query has run since (only the catalog reads
   * of the call policy): asked for the digest again, the session gives it instead of reading every row again.
   */
  private digestAtLoad: string | null = null;
  private internalViews: { name: string; sql: string }[] | null = null;
  /** Where loadRows stages rows: registered by setUp for a fixture with SQL files, before the sandbox closes files. */
  private stagePath: string | null = null;
  private readonly codec: ResultCodec<T, B>;

  constructor(
    private readonly driver: DuckDbDriver<T, B>,
    private readonly settings: HostSettings = {},
  ) {
    this.codec = driver.codec;
  }

  /** Rows of trusted SQL, decoded as `columns` say. */
  private async rows(sql: string, columns: Column[]): Promise<Cell[][]> {
    return this.codec.rows(await this.driver.query(sql), columns);
  }

  version(): Promise<string> {
    return this.driver.version();
  }

  cancel(): Promise<boolean> {
    return this.driver.cancel();
  }

  async dispose(): Promise<void> {
    await this.driver.dispose?.();
  }

  async load(fixture: FixtureSource): Promise<Outcome<FixtureInfo>> {
    const started = performance.now();
    this.fixture = null;
    this.calls = null;
    this.digestAtLoad = null;
    if (fixture.files.length === 0) return fail('input.invalid', `Fixture "${fixture.name}" has no files.`);
    for (const file of fixture.files) {
      if (file.format === 'sqlite')
        return fail(
          'fixture.unsupported_format',
          `${file.fileName} is a SQLite database: load it on the sqlite engine (DuckDB's sqlite extension is not available offline).`,
          { location: file.fileName },
        );
    }
    if (fixture.asOf !== undefined && !asOfParts(fixture.asOf))
      return fail(
        'input.invalid',
        `as_of "${fixture.asOf}" is not an ISO date or UTC instant (e.g. 2025-12-31T23:59:59Z).`,
        { location: 'as_of' },
      );
    const once = await this.loadOnce(fixture, started, true);
    // A dump that failed inside one transaction is loaded again as it was written: its own error, line included.
    if (once !== AGAIN_WITHOUT_TRANSACTION) return once;
    const again = await this.loadOnce(fixture, started, false);
    // Without the transaction a SQL file fails as it is: never asked again.
    return again === AGAIN_WITHOUT_TRANSACTION ? fail('fixture.load_failed', 'The fixture did not load.') : again;
  }

  /** `oneTransaction`: each small SQL file runs inside one transaction (see loadFile). */
  private async loadOnce(
    fixture: FixtureSource,
    started: number,
    oneTransaction: boolean,
  ): Promise<Outcome<FixtureInfo> | typeof AGAIN_WITHOUT_TRANSACTION> {
    try {
      await this.driver.reopen();
      await this.setUp(fixture);
      for (const file of fixture.files) {
        const loaded = await this.loadFile(file, oneTransaction);
        if (loaded === AGAIN_WITHOUT_TRANSACTION || !loaded.ok) return loaded;
      }
      this.driver.mark?.(`fixture ${fixture.name}: SQL loaded`);
      const tables = await this.tables();
      const digest = await this.digestOf(tables);
      if (!digest.ok) return digest;
      this.driver.mark?.(`fixture ${fixture.name}: digest in load`);
      // After the fixture loaded: its own macros are in the catalog too.
      this.calls = await this.callPolicy();
      this.driver.mark?.(`fixture ${fixture.name}: call policy`);
      this.fixture = {
        name: fixture.name,
        engine: 'duckdb',
        engineVersion: await this.driver.version(),
        tables,
        contentDigest: digest.value,
        ...(fixture.asOf ? { asOf: fixture.asOf } : {}),
        loadMs: performance.now() - started,
      };
      this.digestAtLoad = digest.value;
      return ok(this.fixture);
    } catch (thrown) {
      return fail('fixture.load_failed', `Could not load fixture "${fixture.name}": ${messageOf(thrown)}`, {
        raw: messageOf(thrown),
      });
    }
  }

  private async setUp(fixture: FixtureSource): Promise<void> {
    const q = (sql: string) => this.driver.query(sql);
    // Before anything else: a function that lives in an extension must fail, not fetch.
    await q('SET autoinstall_known_extensions=false');
    await q('SET autoload_known_extensions=false');
    await q(`SET memory_limit=${SQL_STRING(this.settings.memoryLimit ?? '1GB')}`);
    // Results stream (the byte budget reads them batch by batch): DuckDB computes ahead only this
    // much. Its default (976 KiB, counted before strings) let a 1M x 8 KB query grow the wasm heap
    // by ~600 MB before the first batch; throughput of ordinary results is the same.
    await q("SET streaming_buffer_size='64KB'");
    for (const statement of this.driver.setup ?? []) await q(statement);
    const clock = fixture.asOf ? asOfParts(fixture.asOf) : null;
    if (clock) {
      const date = `DATE ${SQL_STRING(clock.date)}`;
      const ts = `TIMESTAMP ${SQL_STRING(clock.timestamp)}`;
      for (const [name, value] of [
        ['current_date', date],
        ['today', date],
        ['now', ts],
        ['current_timestamp', ts],
        ['get_current_timestamp', ts],
        ['transaction_timestamp', ts],
        ['localtimestamp', ts],
      ] as const)
        await q(`CREATE OR REPLACE TEMP MACRO ${name}() AS ${value}`);
      // age(x) measures from the current date: from the frozen one here.
      await q(
        `CREATE OR REPLACE TEMP MACRO age(a) AS system.main.age(CAST(${date} AS TIMESTAMP), a), (a, b) AS system.main.age(a, b)`,
      );
    }
    const shadowed = new Set(clock ? ['current_date', 'today'] : []);
    const reference = this.driver.referenceFunctions;
    for (const name of KEYWORD_FUNCTIONS) {
      if (!reference || reference.has(name) || shadowed.has(name)) continue;
      await q(
        `CREATE OR REPLACE TEMP MACRO ${name}() AS error(${SQL_STRING(`Catalog Error: Scalar Function with name "${name}" is not in the catalog, but it exists in the ${extensionOf(name)} extension.`)})`,
      );
    }
    for (const name of BLOCKED_FUNCTIONS)
      await q(
        `CREATE OR REPLACE TEMP MACRO ${name}(x) AS error(${SQL_STRING(`${name}() is not allowed in the sandbox`)})`,
      );
    const registered: string[] = [];
    this.stagePath = fixture.files.some((f) => f.format === 'sql')
      ? (await this.driver.registerFile(STAGE_FILE, new Uint8Array())) || STAGE_FILE
      : null;
    if (this.stagePath) registered.push(this.stagePath);
    for (const file of fixture.files) {
      if (file.format === 'sql' || file.format === 'parquet') continue;
      const name = `fixture-${registered.length}-${file.fileName.replace(/[^\w.-]/g, '_')}`;
      const at = (await this.driver.registerFile(name, file.bytes.slice())) || name;
      registered.push(at);
      (file as FixtureFile & { registeredAs?: string }).registeredAs = at;
    }
    // A database file is opened with its write-ahead log beside it, even read-only.
    const allowed = registered.flatMap((name) => [name, `${name}.wal`]);
    if (allowed.length) await q(`SET allowed_paths=[${allowed.map(SQL_STRING).join(', ')}]`);
    await q('SET enable_external_access=false');
    await q('SET lock_configuration=true');
  }

  /**
   * duckdb_functions() as rows of text: name, type, stability, side effects ('true'/'false'), macro body, database.
   * Read as one string (fields and rows joined by control characters, NULL spelled by a third): about 2,700 rows
   * of six cells decoded one by one were most of the call policy's time on a fresh engine. Where any text holds
   * one of those characters (a fixture's macro could), it is read as rows.
   */
  private async catalogFunctions(): Promise<(string | null)[][]> {
    const columns = [
      'function_name',
      'function_type',
      'stability',
      'CAST(has_side_effects AS VARCHAR)',
      'macro_definition',
      'database_name',
    ];
    const all = `concat_ws('', ${columns.join(', ')})`;
    const [packed] = await this.rows(
      `SELECT bool_or(contains(${all}, chr(29)) OR contains(${all}, chr(30)) OR contains(${all}, chr(31))), ` +
        `string_agg(concat_ws(chr(31), ${columns.map((c) => `coalesce(${c}, chr(29))`).join(', ')}), chr(30)) ` +
        'FROM duckdb_functions()',
      [
        { name: 'clash', engineType: 'BOOLEAN', kind: 'boolean' },
        { name: 'packed', engineType: 'VARCHAR', kind: 'text' },
      ],
    );
    if (packed && packed[0] === false && typeof packed[1] === 'string')
      return packed[1].split('\u001e').map((r) => r.split('\u001f').map((f) => (f === '\u001d' ? null : f)));
    const text = (name: string) => ({ name, engineType: 'VARCHAR', kind: 'text' as const });
    return (await this.rows(
      `SELECT ${columns.join(', ')} FROM duckdb_functions()`,
      ['name', 'type', 'stability', 'effects', 'body', 'database'].map(text),
    )) as (string | null)[][];
  }

  /** The allow-list of callable names, from the engine's own catalog (see src/core/sandbox/calls.ts). */
  private async callPolicy(): Promise<CallPolicy> {
    const text = (name: string) => ({ name, engineType: 'VARCHAR', kind: 'text' as const });
    const rows = await this.catalogFunctions();
    const functions = rows.map((r) => ({
      name: String(r[0]),
      type: String(r[1]),
      stability: r[2] === null ? null : String(r[2]),
      sideEffects: r[3] === null ? null : r[3] === 'true',
      body: r[4] === null ? null : String(r[4]),
    }));
    // The system's internal views are the same after every load: read once per session.
    this.internalViews ??= (
      await this.rows('SELECT view_name, sql FROM duckdb_views() WHERE internal', ['name', 'sql'].map(text))
    ).map((r) => ({
      name: String(r[0]),
      sql: String(r[1] ?? ''),
    }));
    const policy = buildCallPolicy(functions, this.internalViews);
    // The session's own TEMP macros (frozen clock) stay callable.
    const temp = new Set(rows.filter((r) => r[5] === 'temp').map((r) => String(r[0]).toLowerCase()));
    // Built-in functions DuckDB-WASM lacks, but the session's own macros of the same names.
    const reference = this.driver.referenceFunctions;
    if (!reference) return policy;
    const absent = new Map<string, string>();
    for (const r of rows) {
      const name = String(r[0]).toLowerCase();
      if (r[5] === 'system' && !reference.has(name) && !temp.has(name)) absent.set(name, extensionOf(name));
    }
    return absent.size ? { ...policy, absent } : policy;
  }

  /** Refuse a call outside the allow-list, before the engine binds anything (binding a table function can already act). */
  private async refusedCall(sql: string, elapsedMs: () => number): Promise<ExecuteOutcome | null> {
    if (!this.calls)
      return { ok: false, error: { code: 'fixture.not_loaded', message: 'Load a fixture before running queries.' } };
    const verdict = checkCalls(sql, await this.driver.tokenize(sql + TOKEN_SENTINEL), this.calls);
    if (verdict.ok) return null;
    if (verdict.absentFrom) return executionError('duckdb', verdict.reason, elapsedMs());
    return {
      ok: false,
      error: {
        code: 'sandbox.statement_rejected',
        category: 'statement_rejected',
        statement_kind: verdict.name ? 'function_call' : 'invalid_text',
        message: verdict.reason,
        elapsedMs: elapsedMs(),
      },
    };
  }

  private async loadFile(
    file: FixtureFile,
    oneTransaction: boolean,
  ): Promise<Outcome<void> | typeof AGAIN_WITHOUT_TRANSACTION> {
    const registeredAs = (file as FixtureFile & { registeredAs?: string }).registeredAs;
    const run = async (sql: string): Promise<Outcome<void>> => {
      try {
        await this.driver.query(sql);
        return ok(undefined);
      } catch (thrown) {
        // DuckDB names the line of the whole text ("LINE 3: …", repeated): say it once, as file:line.
        const raw = messageOf(thrown);
        const line = file.format === 'sql' ? /\bLINE (\d+):/.exec(raw)?.[1] : undefined;
        const where = line ? `${file.fileName}:${line}` : file.fileName;
        return fail('fixture.load_failed', `${where}: ${raw.split('\n')[0]}`, { raw, location: where });
      }
    };
    switch (file.format) {
      case 'sql': {
        const text = new TextDecoder('utf-8').decode(file.bytes);
        if (!oneTransaction || file.bytes.length > ONE_TRANSACTION_MAX_BYTES) return run(text);
        if (await this.loadRows(text)) return ok(undefined);
        // One transaction for the whole dump instead of one per statement: the same tables and rows, in the same
        // order, loaded about a third faster (a commit per INSERT checks and merges each one on its own). BEGIN
        // shares the first line, so DuckDB's line numbers stay the file's. Anything that fails this way (a dump
        // with transaction statements of its own, a statement DuckDB refuses inside a transaction, an error) is
        // loaded again without it, and fails, if it does, as it always did.
        const loaded = await run(`BEGIN TRANSACTION; ${text}\n;COMMIT;`);
        return loaded.ok ? loaded : AGAIN_WITHOUT_TRANSACTION;
      }
      case 'duckdb': {
        const attached = await run(`ATTACH ${SQL_STRING(registeredAs!)} AS fixture (READ_ONLY)`);
        return attached.ok ? run('USE fixture') : attached;
      }
      case 'csv':
        return run(
          `CREATE TABLE ${IDENT(tableNameFromFile(file.fileName))} AS SELECT * FROM read_csv(${SQL_STRING(registeredAs!)})`,
        );
      case 'parquet': {
        // Loaded only for a Parquet fixture (hyparquet).
        const { parquetToSql } = await import('./parquet.ts');
        const converted = await parquetToSql(file.bytes, tableNameFromFile(file.fileName));
        if (!converted.ok)
          return fail('fixture.load_failed', `${file.fileName}: ${converted.error}`, { location: file.fileName });
        return run(converted.sql);
      }
      default:
        return fail(
          'fixture.unsupported_format',
          `${file.fileName}: format ${file.format} cannot be loaded on DuckDB.`,
        );
    }
  }

  /**
   * A dump whose plain INSERTs are read by core/sql/dump-rows.ts, in one transaction: the rows of consecutive
   * INSERTs into one table that stage exactly are inserted at once, `INSERT INTO t SELECT * FROM read_csv(…)`
   * on a CSV of their values; every other statement runs as written. False when the text is not such a dump
   * or anything fails (rolled back): the caller then loads the dump as written, and so fails, if it does, with
   * DuckDB's own error and line.
   */
  private async loadRows(text: string): Promise<boolean> {
    const stage = this.stagePath;
    const statements = stage ? readDump(text) : null;
    if (!stage || !statements) return false;
    if (statements.reduce((n, s) => n + (s.kind === 'rows' ? s.rowCount : 0), 0) < BULK_MIN_ROWS) return false;
    const q = (sql: string) => this.driver.query(sql);
    const types = new Map<string, string[]>();
    let pending = null as { table: string; columns: number; csv: string } | null;
    const flush = async () => {
      if (!pending) return;
      await this.driver.registerFile(STAGE_FILE, new TextEncoder().encode(pending.csv));
      await q(`INSERT INTO ${pending.table} ${stagedRowsSql(stage, pending.columns)}`);
      pending = null;
    };
    try {
      await q('BEGIN TRANSACTION');
      for (const statement of statements) {
        const csv =
          statement.kind === 'rows' ? stageRows(statement, await this.columnTypes(statement.table, types)) : null;
        if (statement.kind === 'rows' && csv !== null) {
          if (pending?.table !== statement.table) await flush();
          pending ??= { table: statement.table, columns: statement.columns.length, csv: '' };
          pending.csv += csv;
          continue;
        }
        await flush();
        await q(statement.text);
        if (statement.kind === 'sql') types.clear(); // it may have created or altered a table
      }
      await flush();
      await q('COMMIT');
      return true;
    } catch {
      await q('ROLLBACK').catch(() => undefined);
      return false;
    } finally {
      await this.driver.registerFile(STAGE_FILE, new Uint8Array()).catch(() => undefined);
    }
  }

  /** A table's column types as DESCRIBE gives them, `table` as the SQL names it; cached in `cache`. */
  private async columnTypes(table: string, cache: Map<string, string[]>): Promise<string[]> {
    const cached = cache.get(table);
    if (cached) return cached;
    const text = (name: string): Column => ({ name, engineType: 'VARCHAR', kind: 'text' });
    const types = (await this.rows(`DESCRIBE ${table}`, [text('name'), text('type')])).map((r) => String(r[1]));
    cache.set(table, types);
    return types;
  }

  /**
   * The fixture's tables (not views, not temporary ones), sorted by name, with their columns as DESCRIBE types
   * them and their row counts: one catalog read and one count query whatever the number of tables (it was two
   * queries a table, and the digest described each table again).
   */
  private async tables(): Promise<TableInfo[]> {
    const text = (name: string): Column => ({ name, engineType: 'VARCHAR', kind: 'text' });
    const columns = await this.rows(
      'SELECT c.table_name, c.column_name, c.data_type FROM duckdb_columns() c JOIN duckdb_tables() t USING (table_oid) ' +
        'WHERE t.database_name = current_database() AND t.schema_name = current_schema() AND NOT t.temporary ' +
        'ORDER BY c.table_name, c.column_index',
      [text('table_name'), text('column_name'), text('data_type')],
    );
    const out: TableInfo[] = [];
    for (const [table, name, type] of columns) {
      if (out.at(-1)?.name !== table) out.push({ name: String(table), columns: [], rowCount: 0 });
      out.at(-1)!.columns.push({ name: String(name), engineType: String(type) });
    }
    if (out.length === 0) return out;
    // One row of counts: a UNION ALL's rows may come in any order.
    const counts = await this.rows(
      `SELECT ${out.map((t) => `(SELECT count(*) FROM ${IDENT(t.name)})`).join(', ')}`,
      out.map((_, i) => ({ name: `n${i}`, engineType: 'BIGINT', kind: 'integer' as const })),
    );
    out.forEach((t, i) => (t.rowCount = Number(counts[0]![i])));
    return out;
  }

  async contentDigest(): Promise<Outcome<string>> {
    if (this.digestAtLoad !== null) return ok(this.digestAtLoad);
    try {
      const digest = await this.digestOf(await this.tables());
      if (digest.ok) this.digestAtLoad = digest.value;
      return digest;
    } catch (thrown) {
      return fail('execution.error', `Could not compute the content digest: ${messageOf(thrown)}`, {
        raw: messageOf(thrown),
      });
    }
  }

  /** The content digest of these tables (the fixture's, as tables() lists them now). */
  private async digestOf(tables: TableInfo[]): Promise<Outcome<string>> {
    try {
      const dumps = [];
      for (const table of tables) {
        // The types DESCRIBE gives the table are those of `SELECT *` from it.
        const columns = table.columns.map((c) => duckDbColumn(c.name, c.engineType));
        const rows = await this.rows(this.projection(columns, `SELECT * FROM ${IDENT(table.name)}`), columns);
        dumps.push({ name: table.name, table: { columns, rows } });
      }
      this.driver.mark?.('digest: rows read');
      return ok(await contentDigestOf(dumps));
    } catch (thrown) {
      return fail('execution.error', `Could not compute the content digest: ${messageOf(thrown)}`, {
        raw: messageOf(thrown),
      });
    }
  }

  async sandboxState(): Promise<Outcome<Record<string, string>>> {
    const read = async (sql: string) => {
      const table = await this.driver.query(sql);
      const columns = this.codec.names(table).map((name) => ({ name, engineType: 'VARCHAR', kind: 'text' as const }));
      return this.codec
        .rows(table, columns)
        .map((r) => r.join('='))
        .join('\n');
    };
    try {
      return ok({
        settings: await read('SELECT name, CAST(value AS VARCHAR) FROM duckdb_settings() ORDER BY name'),
        logs: await read('SELECT CAST(count(*) AS VARCHAR) FROM duckdb_logs()'),
        temp_objects: await read(
          "SELECT function_name, coalesce(macro_definition, '') FROM duckdb_functions() WHERE database_name = 'temp' UNION ALL SELECT table_name, '' FROM duckdb_tables() WHERE temporary UNION ALL SELECT view_name, '' FROM duckdb_views() WHERE temporary ORDER BY ALL",
        ),
        variables: await read('SELECT name, CAST(value AS VARCHAR) FROM duckdb_variables() ORDER BY name'),
        sequences: await read('SELECT sequence_name, CAST(last_value AS VARCHAR) FROM duckdb_sequences() ORDER BY ALL'),
        prepared: await read('SELECT name FROM duckdb_prepared_statements() ORDER BY name'),
      });
    } catch (thrown) {
      return fail('execution.error', `Could not read the sandbox state: ${messageOf(thrown)}`, {
        raw: messageOf(thrown),
      });
    }
  }

  private async describe(selectSql: string): Promise<Column[]> {
    const described = await this.rows(`DESCRIBE ${selectSql}`, [
      { name: 'column_name', engineType: 'VARCHAR', kind: 'text' },
      { name: 'column_type', engineType: 'VARCHAR', kind: 'text' },
    ]);
    return described.map((r) => duckDbColumn(String(r[0]), String(r[1])));
  }

  /**
   * The SQL that materializes `source`, casting the parts Arrow cannot carry
   * exactly to VARCHAR (a column, or only the elements or fields that need it).
   */
  private projection(columns: Column[], source: string): string {
    const exprs = columns.map((c, i) => arrowProjectionOf(c.engineType, `#${i + 1}`));
    if (exprs.every((expr) => expr === null)) return source;
    const list = columns.map((c, i) => (exprs[i] ? `${exprs[i]} AS ${IDENT(c.name)}` : `#${i + 1}`)).join(', ');
    return `SELECT ${list} FROM (${source})`;
  }

  async explain(sql: string, options: ExplainOptions = {}): Promise<Outcome<PlanSummary>> {
    if (!this.fixture) return fail('fixture.not_loaded', 'Load a fixture before planning queries.');
    this.digestAtLoad = null;
    const pre = rejectedByPrecheck(sql);
    if (pre && !pre.ok) return { ok: false, error: pre.error };
    const refused = await this.refusedCall(sql, () => 0);
    if (refused && !refused.ok) return { ok: false, error: refused.error };
    try {
      // The same gate as execute: DuckDB's parser must see exactly one SELECT-like statement.
      await this.describe(`SELECT * FROM query(${SQL_STRING(sql)})`);
      const analyze = options.analyze === true;
      const rows = await this.rows(`EXPLAIN ${analyze ? 'ANALYZE ' : ''}${sql}`, [
        { name: 'explain_key', engineType: 'VARCHAR', kind: 'text' },
        { name: 'explain_value', engineType: 'VARCHAR', kind: 'text' },
      ]);
      const text = rows.map((r) => String(r[1] ?? '')).join('\n');
      const operators = [...text.matchAll(/│\s*([A-Z][A-Z_]{2,})\s*│/g)]
        .map((m) => m[1]!)
        .filter((op) => !/^(PROJECTIONS?|CARDINALITY|ESTIMATED|QUERY|EXPLAIN|ANALYZE|TOTAL)$/.test(op));
      const cardinalities = planCardinalities(text);
      return ok({
        operators,
        text,
        ...(cardinalities.length
          ? { cardinalities, cardinality_source: analyze ? ('analyze' as const) : ('estimate' as const) }
          : {}),
      });
    } catch (thrown) {
      const raw = withoutGate(messageOf(thrown));
      return fail('execution.error', raw, { raw });
    }
  }

  async execute(sql: string, options: HostExecuteOptions): Promise<ExecuteOutcome> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    if (!this.fixture)
      return { ok: false, error: { code: 'fixture.not_loaded', message: 'Load a fixture before running queries.' } };
    this.digestAtLoad = null;
    const pre = rejectedByPrecheck(sql);
    if (pre) return pre;
    const refused = await this.refusedCall(sql, elapsed);
    if (refused) return refused;
    const gated = `SELECT * FROM query(${SQL_STRING(sql)})`;
    let columns: Column[];
    try {
      // DuckDB's own parser accepts only one SELECT-like statement inside query().
      columns = await this.describe(gated);
    } catch (thrown) {
      const raw = withoutGate(messageOf(thrown));
      if (/Expected a single SELECT statement/i.test(raw)) return rejectedStatement(sql, raw, elapsed());
      return executionError('duckdb', raw, elapsed());
    }
    // Run the validated text itself so output names stay exact (query() renames duplicates);
    // only the rare columns Arrow cannot carry exactly go through a casting projection.
    const runnable = columns.some((c) => arrowProjectionOf(c.engineType, '#1') !== null)
      ? this.projection(columns, gated)
      : sql;
    const budget = options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
    try {
      const streamed = await this.driver.stream(runnable);
      const rows: Cell[][] = [];
      let bytes = 0;
      // One record batch (a DuckDB vector, ~2,048 rows) at a time: the engine produces the
      // next only when asked, so a result past the budget is never built, in the engine or here.
      for await (const batch of streamed.batches) {
        const first = rows.length;
        this.codec.batch(batch, columns, rows);
        for (let i = first; i < rows.length; i++) bytes += rowBytes(rows[i]!);
        if (rows.length > options.maxRows || bytes > budget) {
          await this.driver.cancel();
          return rows.length > options.maxRows
            ? tooManyRows(options.maxRows, elapsed())
            : tooManyBytes(budget, rows.length, elapsed());
        }
      }
      const finalColumns = columns.map((c, i) => ({ ...c, name: streamed.fields[i]?.name ?? c.name }));
      return { ok: true, value: { columns: finalColumns, rows, elapsedMs: elapsed() } };
    } catch (thrown) {
      return executionError('duckdb', messageOf(thrown), elapsed());
    }
  }
}

/**
 * Operator cardinalities from DuckDB's box-drawn plan. Boxes sit side by side,
 * so the text is read as a grid: each box is a column span of lines, its first
 * upper-case line is the operator and its "N rows" (EXPLAIN ANALYZE) or
 * "~N rows" (EXPLAIN estimate) line the rows it produced.
 */
export function planCardinalities(text: string): { operator: string; rows: number }[] {
  const out: { operator: string; rows: number }[] = [];
  const open = new Map<number, { end: number; operator: string | null; rows: number | null }>();
  for (const line of text.split('\n')) {
    for (const [start, box] of [...open]) {
      if (line[start] === '└') {
        open.delete(start);
        if (box.operator && box.rows !== null && box.operator !== 'EXPLAIN_ANALYZE')
          out.push({ operator: box.operator, rows: box.rows });
        continue;
      }
      const cell = line.slice(start + 1, box.end).trim();
      const rows = /^~?([\d,]+) rows$/i.exec(cell);
      if (rows && box.rows === null) box.rows = Number(rows[1]!.replaceAll(',', ''));
      else if (box.operator === null && /^[A-Z][A-Z_]{2,}$/.test(cell)) box.operator = cell;
    }
    for (let i = line.indexOf('┌'); i >= 0; i = line.indexOf('┌', i + 1)) {
      const end = line.indexOf('┐', i);
      if (end > i && !open.has(i)) open.set(i, { end, operator: null, rows: null });
    }
  }
  return out;
}
