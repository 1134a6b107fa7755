/**
 * PostgreSQL as a sandboxed engine session, over a PgDriver: PGlite (the
 * `pglite` engine, in a worker) or a server (the `postgres` engine, CLI).
 *
 * The sandbox is PostgreSQL's own:
 * - every query runs as a role that holds SELECT on the fixture's tables and
 *   nothing else, inside `BEGIN READ ONLY` … `ROLLBACK`: a write, a sequence
 *   step or a setting cannot outlive the query, and cannot even happen;
 * - the extended protocol runs exactly one statement; the lexical pre-check
 *   names a refused kind first, and a command tag other than SELECT is refused;
 * - functions that change state outside the transaction or reach outside the
 *   database (set_config — which could take back the owner's role —,
 *   advisory locks, large objects, pg_sleep, file and dblink access, NOTIFY,
 *   dynamic SQL through query_to_xml) have EXECUTE revoked from PUBLIC, and
 *   the same names are refused by name before the query is sent;
 * - `statement_timeout` on a server; on PGlite (single-threaded wasm, no
 *   timer interrupt) the supervisor terminates the worker at the budget.
 *
 * The session's TimeZone is UTC (stated in the version text). The frozen
 * clock: see `ClockPolicy`.
 */
import {
  DEFAULT_MAX_RESULT_BYTES,
  type ExecuteOutcome,
  type ExplainOptions,
  type FixtureInfo,
  type FixtureSource,
  type PlanSummary,
  type TableInfo,
} from '../../core/engine.ts';
import { contentDigestOf } from '../../core/digest/canonical-dump.ts';
import { fail, messageOf, ok, type Outcome } from '../../core/errors.ts';
import { tokenize } from '../../core/sql/lexer.ts';
import { precheckStatement } from '../../core/sandbox/statements.ts';
import { rejectedByPrecheck, rejectedStatement, tooManyBytes, tooManyRows } from '../execution-errors.ts';
import type { EngineSession, HostExecuteOptions } from '../host-api.ts';
import { IDENT, LITERAL, scriptOfCsv, scriptOfDump, type ScriptPart } from './dump.ts';
import { sqlStateOf, type PgDriver, type PgField, type PgRows } from './driver.ts';
import { pgExecutionError } from './errors.ts';
import { isRecordType, recordProjection } from './records.ts';
import { ResultBuilder, type Overflow } from './result-builder.ts';
import { TYPE_CATALOG_SQL, typeCatalogOf, type TypeCatalog } from './types.ts';

/** The role every candidate query runs as. */
export const READER_ROLE = 'sql_verdict_reader';

/**
 * Functions refused by name and with EXECUTE revoked (a prefix ending in `_`
 * or `*` matches a family). Nothing here is a read of the fixture.
 */
export const DENIED_FUNCTIONS = [
  'set_config',
  'pg_sleep',
  'pg_sleep_for',
  'pg_sleep_until',
  'pg_advisory_*',
  'pg_try_advisory_*',
  'lo_*',
  'loread',
  'lowrite',
  'pg_read_file',
  'pg_read_binary_file',
  'pg_ls_*',
  'pg_stat_file',
  'pg_file_*',
  'dblink*',
  'pg_notify',
  'pg_terminate_backend',
  'pg_cancel_backend',
  'pg_reload_conf',
  'pg_rotate_logfile',
  'pg_promote',
  'query_to_xml*',
  'cursor_to_xml*',
  'table_to_xml*',
  'schema_to_xml*',
  'database_to_xml*',
  'nextval',
  'setval',
  'currval',
  'lastval',
  'txid_current',
  'txid_current_if_assigned',
  'pg_current_xact_id',
  'pg_current_xact_id_if_assigned',
  'pg_export_snapshot',
  'pg_log_backend_memory_contexts',
  'pg_logical_emit_message',
  'pg_create_restore_point',
  'pg_switch_wal',
  'pg_backup_start',
  'pg_backup_stop',
  'pg_replication_origin_*',
  'pg_create_physical_replication_slot',
  'pg_create_logical_replication_slot',
  'pg_drop_replication_slot',
  // ts_stat runs the query text it is given: names inside it would hide from the check by name.
  'ts_stat',
  // The random generator's seed is session state that ROLLBACK does not undo: it would fix the next cases' random().
  'setseed',
  // The real time of the server's start and configuration load: not frozen with the clock.
  'pg_postmaster_start_time',
  'pg_conf_load_time',
  // The real time too (`SELECT stats_reset FROM pg_stat_wal`, the last checkpoint's time), and counters of other
  // queries: the statistics views read through these, so with EXECUTE revoked the views are refused as well.
  'pg_stat_get_*',
  'pg_control_*',
];

/** The gate's refusal: a statement the sandbox does not run, before the engine sees it. */
function refused(statementKind: string, message: string): ExecuteOutcome {
  return {
    ok: false,
    error: {
      code: 'sandbox.statement_rejected',
      category: 'statement_rejected',
      statement_kind: statementKind,
      message,
      elapsedMs: 0,
    },
  };
}

function denied(name: string): boolean {
  const lower = name.toLowerCase();
  return DENIED_FUNCTIONS.some((d) => (d.endsWith('*') ? lower.startsWith(d.slice(0, -1)) : lower === d));
}

/** PostgreSQL statements the shared pre-check does not know by their first keyword. */
const PG_REJECTED_KINDS = new Set([
  'do',
  'listen',
  'notify',
  'unlisten',
  'lock',
  'discard',
  'fetch',
  'move',
  'close',
  'declare',
  'cluster',
  'refresh',
  'security',
  'reassign',
  'import',
  'show',
]);

/** Clock functions and keywords; on a server they cannot be frozen, so a fixture with an as-of instant refuses them there. */
const CLOCK_WORDS = new Set([
  'now',
  'current_date',
  'current_timestamp',
  'current_time',
  'localtime',
  'localtimestamp',
  'clock_timestamp',
  'statement_timestamp',
  'transaction_timestamp',
  'timeofday',
  'age',
]);

/**
 * How the session freezes the clock at a fixture's as-of instant.
 * PGlite reads the time through the worker's Date.now (every clock function,
 * qualified `pg_catalog.now()` included), so pinning Date.now freezes them
 * all. A server's clock cannot be frozen: queries that read it are refused.
 */
export type ClockPolicy = { kind: 'date-now' } | { kind: 'refuse' };

export interface PgSessionOptions {
  engine: 'pglite' | 'postgres';
  /** Where fixture tables are created (PGlite: public; a server: a scratch schema of its own). */
  schema: string;
  /** PGlite owns its whole database: every schema but the system ones is dropped before a load. */
  ownsDatabase: boolean;
  clock: ClockPolicy;
}

const REAL_DATE_NOW = Date.now;

function asOfMs(asOf: string): number {
  return Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(asOf) ? `${asOf}T00:00:00Z` : asOf);
}

const SESSION_SETTINGS =
  "SET TIME ZONE 'UTC'; SET DateStyle = 'ISO, YMD'; SET IntervalStyle = 'postgres'; SET extra_float_digits = 1; SET bytea_output = 'hex'";

export class PgSession implements EngineSession {
  private loaded: FixtureInfo | null = null;
  private catalog: TypeCatalog = new Map();
  private hardened = false;
  private asOf: string | undefined;

  constructor(
    private readonly driver: PgDriver,
    private readonly options: PgSessionOptions,
  ) {}

  async version(): Promise<string> {
    return `${await this.driver.version()}, TimeZone UTC`;
  }

  async cancel(): Promise<boolean> {
    return false;
  }

  private freeze(asOf: string | undefined): void {
    if (this.options.clock.kind !== 'date-now') return;
    if (asOf === undefined) Date.now = REAL_DATE_NOW;
    else {
      const ms = asOfMs(asOf);
      Date.now = () => ms;
    }
  }

  private async rows(sql: string): Promise<(string | null)[][]> {
    return (await this.driver.query(sql)).rows;
  }

  /** Drop what the last fixture left and give the schema back, empty. */
  private async reset(): Promise<void> {
    await this.driver.exec('ROLLBACK').catch(() => undefined);
    await this.driver.exec('RESET ROLE; RESET ALL');
    const schemas = this.options.ownsDatabase
      ? (
          await this.rows(
            "SELECT nspname::text FROM pg_catalog.pg_namespace WHERE nspname !~ '^pg_' AND nspname <> 'information_schema'",
          )
        ).map((r) => String(r[0]))
      : [this.options.schema];
    for (const schema of schemas) await this.driver.exec(`DROP SCHEMA IF EXISTS ${IDENT(schema)} CASCADE`);
    await this.driver.exec(
      `CREATE SCHEMA ${IDENT(this.options.schema)}; SET search_path = ${IDENT(this.options.schema)}`,
    );
  }

  /** Once per database: the reader role, and EXECUTE taken back from PUBLIC on the denied functions. */
  private async harden(): Promise<void> {
    if (this.hardened) return;
    const exists = await this.rows(`SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = ${LITERAL(READER_ROLE)}`);
    if (exists.length === 0)
      await this.driver.exec(`CREATE ROLE ${IDENT(READER_ROLE)} NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT`);
    const functions = await this.rows('SELECT p.oid::regprocedure::text, p.proname::text FROM pg_catalog.pg_proc p');
    const revoke = functions
      .filter((r) => denied(String(r[1])))
      .map((r) => `REVOKE EXECUTE ON FUNCTION ${String(r[0])} FROM PUBLIC;`);
    // On a server whose owner is not a superuser the REVOKE may be refused: the by-name refusal still holds.
    for (let i = 0; i < revoke.length; i += 50)
      await this.driver.exec(revoke.slice(i, i + 50).join('\n')).catch(() => undefined);
    this.hardened = true;
  }

  async load(fixture: FixtureSource): Promise<Outcome<FixtureInfo>> {
    const started = performance.now();
    this.loaded = null;
    if (fixture.files.length === 0) return fail('input.invalid', `Fixture "${fixture.name}" has no files.`);
    const unsupported = fixture.files.find((f) => f.format !== 'sql' && f.format !== 'csv');
    if (unsupported)
      return fail(
        'fixture.unsupported_format',
        `${unsupported.fileName} (${unsupported.format}) cannot be loaded on the ${this.options.engine} engine: use a PostgreSQL .sql dump (pg_dump plain format) or CSV.`,
        { location: unsupported.fileName },
      );
    if (fixture.asOf !== undefined && Number.isNaN(asOfMs(fixture.asOf)))
      return fail(
        'input.invalid',
        `as_of "${fixture.asOf}" is not an ISO date or instant (e.g. 2025-12-31T23:59:59Z).`,
        { location: 'as_of' },
      );
    this.freeze(fixture.asOf);
    this.asOf = fixture.asOf;
    try {
      await this.reset();
      await this.harden();
      for (const file of fixture.files) {
        const text = new TextDecoder('utf-8').decode(file.bytes);
        let parts: ScriptPart[];
        if (file.format === 'csv') {
          const script = scriptOfCsv(file.fileName, text);
          if ('error' in script) return fail('fixture.load_failed', script.error, { location: file.fileName });
          parts = script.parts;
        } else parts = scriptOfDump(text);
        for (const part of parts) {
          try {
            await this.driver.exec(part.sql);
          } catch (thrown) {
            const where = `${file.fileName}:${part.line + lineOffsetOf(thrown, part.sql)}`;
            return fail('fixture.load_failed', `${where}: ${messageOf(thrown)}`, {
              raw: messageOf(thrown),
              location: where,
            });
          }
        }
      }
      // A dump sets its own search_path and settings (pg_dump: set_config('search_path', '', false)).
      await this.driver.exec(`RESET ALL; ${SESSION_SETTINGS}; SET search_path = ${IDENT(this.options.schema)}`);
      await this.grantReads();
      await this.driver.refreshTypes();
      this.catalog = typeCatalogOf(await this.rows(TYPE_CATALOG_SQL));
      const tables = await this.tables();
      const digest = await this.contentDigest();
      if (!digest.ok) return digest;
      this.loaded = {
        name: fixture.name,
        engine: this.options.engine,
        engineVersion: await this.version(),
        tables,
        contentDigest: digest.value,
        ...(fixture.asOf ? { asOf: fixture.asOf } : {}),
        loadMs: performance.now() - started,
      };
      return ok(this.loaded);
    } catch (thrown) {
      return fail('fixture.load_failed', `Could not load fixture "${fixture.name}": ${messageOf(thrown)}`, {
        raw: messageOf(thrown),
      });
    }
  }

  /** SELECT on the fixture's tables and views, USAGE on their schemas, and nothing else, for the reader. */
  private async grantReads(): Promise<void> {
    const schemas = (await this.userSchemas()).map(IDENT);
    const statements = schemas.flatMap((s) => [
      `REVOKE CREATE ON SCHEMA ${s} FROM PUBLIC`,
      `GRANT USAGE ON SCHEMA ${s} TO ${IDENT(READER_ROLE)}`,
      `GRANT SELECT ON ALL TABLES IN SCHEMA ${s} TO ${IDENT(READER_ROLE)}`,
    ]);
    if (statements.length) await this.driver.exec(statements.join(';\n'));
  }

  private async userSchemas(): Promise<string[]> {
    if (!this.options.ownsDatabase) return [this.options.schema];
    return (
      await this.rows(
        "SELECT nspname::text FROM pg_catalog.pg_namespace WHERE nspname !~ '^pg_' AND nspname <> 'information_schema' ORDER BY 1",
      )
    ).map((r) => String(r[0]));
  }

  /** Fixture tables, named as a query names them: bare in the fixture schema, schema-qualified elsewhere. */
  private async tableList(): Promise<{ schema: string; name: string; display: string }[]> {
    const schemas = await this.userSchemas();
    const rows = await this.rows(
      `SELECT n.nspname::text, c.relname::text FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p') AND n.nspname IN (${schemas.map(LITERAL).join(', ')}) ORDER BY 1, 2`,
    );
    return rows.map(([schema, name]) => ({
      schema: String(schema),
      name: String(name),
      display: schema === this.options.schema ? String(name) : `${String(schema)}.${String(name)}`,
    }));
  }

  private async tables(): Promise<TableInfo[]> {
    const out: TableInfo[] = [];
    for (const t of await this.tableList()) {
      const columns = await this.rows(
        `SELECT a.attname::text, format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a WHERE a.attrelid = ${LITERAL(`${IDENT(t.schema)}.${IDENT(t.name)}`)}::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
      );
      const count = await this.rows(`SELECT count(*) FROM ${IDENT(t.schema)}.${IDENT(t.name)}`);
      out.push({
        name: t.display,
        columns: columns.map(([n, type]) => ({ name: String(n), engineType: String(type) })),
        rowCount: Number(count[0]![0]),
      });
    }
    return out;
  }

  async contentDigest(): Promise<Outcome<string>> {
    try {
      const dumps = [];
      for (const t of await this.tableList()) {
        const result = await this.driver.query(`SELECT * FROM ${IDENT(t.schema)}.${IDENT(t.name)}`);
        const table = new ResultBuilder(this.catalog);
        table.add(result);
        dumps.push({ name: t.display, table: table.finish() });
      }
      return ok(await contentDigestOf(dumps));
    } catch (thrown) {
      return fail('execution.error', `Could not compute the content digest: ${messageOf(thrown)}`, {
        raw: messageOf(thrown),
      });
    }
  }

  async sandboxState(): Promise<Outcome<Record<string, string>>> {
    try {
      const settings = await this.rows(
        "SELECT name::text || '=' || setting FROM pg_catalog.pg_settings WHERE source NOT IN ('default', 'override') ORDER BY 1",
      );
      const roles = await this.rows('SELECT current_user::text, session_user::text');
      const locks = await this.rows(
        "SELECT locktype || ':' || coalesce(objid::text, '') FROM pg_catalog.pg_locks WHERE locktype = 'advisory' ORDER BY 1",
      );
      const largeObjects = await this.rows('SELECT count(*)::text FROM pg_catalog.pg_largeobject_metadata');
      const temp = await this.rows(
        "SELECT n.nspname::text || '.' || c.relname::text FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname ~ '^pg_temp' ORDER BY 1",
      );
      const listening = await this.rows('SELECT pg_catalog.pg_listening_channels()::text');
      const prepared = await this.rows('SELECT name::text FROM pg_catalog.pg_prepared_statements ORDER BY 1');
      const join = (rows: (string | null)[][]) => rows.map((r) => r.join('|')).join('\n');
      return ok({
        settings: join(settings),
        roles: join(roles),
        advisory_locks: join(locks),
        large_objects: join(largeObjects),
        temp_objects: join(temp),
        listening: join(listening),
        prepared: join(prepared),
      });
    } catch (thrown) {
      return fail('execution.error', `Could not read the sandbox state: ${messageOf(thrown)}`, {
        raw: messageOf(thrown),
      });
    }
  }

  /** The checks before the engine sees the text: the pre-check, denied functions by name, the clock on a server. */
  private gate(sql: string): ExecuteOutcome | null {
    const pre = rejectedByPrecheck(sql);
    if (pre) return pre;
    const kind = precheckStatement(sql);
    if (kind.allowed && PG_REJECTED_KINDS.has(kind.kind))
      return refused(
        kind.kind,
        `${kind.kind.toUpperCase()} is not allowed: only a single read query runs in the sandbox.`,
      );
    // U&"\0073et_config": a Unicode-escaped name would hide from the check by name.
    if (/\bU&\s*["']/i.test(sql))
      return refused('invalid_text', 'Unicode-escaped names and strings (U&"…") are not allowed in the sandbox.');
    const tokens = tokenize(withPlainStrings(sql));
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!;
      if (token.type !== 'word' && token.type !== 'quoted') continue;
      const next = tokens[i + 1];
      const called = next?.type === 'punct' && next.raw === '(';
      const name = token.type === 'quoted' ? token.text : token.raw;
      if (called && denied(name)) return refused('function_call', `${name}() is not allowed in the sandbox.`);
      // The statistics views (pg_stat_wal, pg_stat_activity, pg_statio_*) hold the server's real times and other
      // sessions' counters. Their functions are refused above, but a server's owner cannot always revoke EXECUTE
      // on what the views call: the view's name is the wall there.
      if (!called && /^pg_stat(io)?_/i.test(name))
        return refused(
          'function_call',
          `${name} (a statistics view: real times and other sessions' counters) is not allowed in the sandbox.`,
        );
      if (
        this.options.clock.kind === 'refuse' &&
        this.asOf !== undefined &&
        CLOCK_WORDS.has(name.toLowerCase()) &&
        (called ||
          (['current_date', 'current_timestamp', 'current_time', 'localtime', 'localtimestamp'].includes(
            name.toLowerCase(),
          ) &&
            tokens[i - 1]?.raw !== '.'))
      )
        return {
          ok: false,
          error: {
            code: 'sandbox.engine_unsupported',
            category: 'engine_unsupported',
            message: `${name} reads the server's clock, which cannot be frozen at the fixture's as-of instant (${this.asOf}): run this case on pglite, or compare with a literal date.`,
            elapsedMs: 0,
          },
        };
    }
    return null;
  }

  /** BEGIN READ ONLY as the reader; `run` inside; always ROLLBACK. */
  private async inReadOnly<T>(run: () => Promise<T>, timeoutMs?: number): Promise<T> {
    const timeout =
      timeoutMs !== undefined && this.options.engine === 'postgres'
        ? `; SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`
        : '';
    // cursor_tuple_fraction 1: a cursor is planned for all its rows, as the query alone would be.
    await this.driver.exec(
      `BEGIN READ ONLY; SET LOCAL cursor_tuple_fraction = 1; SET LOCAL ROLE ${IDENT(READER_ROLE)}${timeout}`,
    );
    try {
      return await run();
    } finally {
      await this.driver.exec('ROLLBACK');
    }
  }

  async execute(sql: string, options: HostExecuteOptions): Promise<ExecuteOutcome> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    if (!this.loaded)
      return { ok: false, error: { code: 'fixture.not_loaded', message: 'Load a fixture before running queries.' } };
    const refused = this.gate(sql);
    if (refused) return refused;
    const budget = options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
    const timeoutMs = options.timeoutMs;
    try {
      const fetched =
        (await this.inReadOnly(() => this.throughCursor(sql, options.maxRows, budget), timeoutMs)) ??
        (await this.inReadOnly(() => this.whole(sql, options.maxRows, budget), timeoutMs));
      if ('command' in fetched)
        return rejectedStatement(sql, `the statement is ${fetched.command}, not a query`, elapsed());
      if (fetched.over === 'rows') return tooManyRows(options.maxRows, elapsed());
      if (fetched.over === 'bytes') return tooManyBytes(budget, fetched.result.rows.length, elapsed());
      return { ok: true, value: { ...fetched.result.finish(), elapsedMs: elapsed() } };
    } catch (thrown) {
      const state = sqlStateOf(thrown);
      if (state === '42601' && /cannot insert multiple commands/i.test(messageOf(thrown)))
        return rejectedStatement(sql, messageOf(thrown), elapsed());
      return pgExecutionError(state, messageOf(thrown), elapsed());
    }
  }

  /**
   * The result through a cursor, a batch at a time (PGlite and node-postgres
   * otherwise hand over a whole result at once), stopped at the first batch
   * that passes the row cap or the byte budget. Null when PostgreSQL does not
   * take the text as a cursor's query (not one SELECT, or an error before any
   * row): `whole` then runs it as sent, for its exact error or refusal.
   */
  private async throughCursor(sql: string, maxRows: number, maxBytes: number): Promise<Fetched | null> {
    try {
      await this.driver.query(`DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${sql}`);
    } catch {
      return null;
    }
    const result = new ResultBuilder(this.catalog, maxRows, maxBytes);
    const want = result.nextBatch();
    const batch = await this.driver.query(`FETCH FORWARD ${want} FROM ${CURSOR}`);
    return (
      (await this.recordsAsJson(sql, batch.fields, maxRows, maxBytes)) ?? this.fetched(CURSOR, result, batch, want)
    );
  }

  /** Rows into `result` from a batch already fetched, then the cursor's next ones, until a cap or the last row. */
  private async fetched(cursor: string, result: ResultBuilder, batch: PgRows, want: number): Promise<Fetched> {
    for (;;) {
      const over = result.add(batch);
      if (over || batch.rows.length < want) return { result, over };
      want = result.nextBatch();
      batch = await this.driver.query(`FETCH FORWARD ${want} FROM ${cursor}`);
    }
  }

  /**
   * A result with record or composite columns, run again with those columns as JSON (records.ts); null when it
   * has none, or when PostgreSQL does not take the text inside the projection (the first cursor then goes on,
   * and the records are their text).
   */
  private async recordsAsJson(
    sql: string,
    fields: PgField[],
    maxRows: number,
    maxBytes: number,
  ): Promise<Fetched | null> {
    const records = new Set(fields.flatMap((f, i) => (isRecordType(f.oid, this.catalog) ? [i] : [])));
    if (records.size === 0) return null;
    // A DECLARE that fails aborts the transaction; rolled back to here, the first cursor is still open.
    await this.driver.query(`SAVEPOINT ${RECORDS_CURSOR}`);
    try {
      await this.driver.query(
        `DECLARE ${RECORDS_CURSOR} NO SCROLL CURSOR FOR ${recordProjection(sql, fields, records)}`,
      );
    } catch {
      await this.driver.query(`ROLLBACK TO SAVEPOINT ${RECORDS_CURSOR}`);
      return null;
    }
    await this.driver.query(`CLOSE ${CURSOR}`);
    const types = new Map([...records].map((i) => [i, this.catalog.get(fields[i]!.oid)!.name]));
    const result = new ResultBuilder(this.catalog, maxRows, maxBytes, { names: fields.map((f) => f.name), types });
    const want = result.nextBatch();
    const batch = await this.driver.query(`FETCH FORWARD ${want} FROM ${RECORDS_CURSOR}`);
    return this.fetched(RECORDS_CURSOR, result, batch, want);
  }

  /** The text as sent, its result received whole; decoding still stops at the caps. */
  private async whole(sql: string, maxRows: number, maxBytes: number): Promise<Fetched | { command: string }> {
    const rows = await this.driver.query(sql);
    if (rows.command !== 'SELECT') return { command: rows.command };
    const result = new ResultBuilder(this.catalog, maxRows, maxBytes);
    return { result, over: result.add(rows) };
  }

  async explain(sql: string, options: ExplainOptions = {}): Promise<Outcome<PlanSummary>> {
    if (!this.loaded) return fail('fixture.not_loaded', 'Load a fixture before planning queries.');
    const refused = this.gate(sql);
    if (refused && !refused.ok) return { ok: false, error: refused.error };
    try {
      // EXPLAIN ANALYZE runs the query: as the reader, read-only, rolled back — the same walls as execute.
      const result = await this.inReadOnly(() =>
        this.driver.query(`EXPLAIN (FORMAT JSON${options.analyze ? ', ANALYZE' : ''}) ${sql.replace(/;\s*$/, '')}`),
      );
      const text = String(result.rows[0]?.[0] ?? '[]');
      const plan = JSON.parse(text) as { Plan: PlanNode }[];
      const operators: string[] = [];
      const cardinalities: { operator: string; rows: number }[] = [];
      const walk = (node: PlanNode) => {
        const op = node['Node Type'].toUpperCase().replace(/\s+/g, '_');
        operators.push(op);
        const rows = options.analyze ? node['Actual Rows'] : node['Plan Rows'];
        if (typeof rows === 'number') cardinalities.push({ operator: op, rows });
        for (const child of node.Plans ?? []) walk(child);
      };
      if (plan[0]) walk(plan[0].Plan);
      return ok({ operators, text, cardinalities, cardinality_source: options.analyze ? 'analyze' : 'estimate' });
    } catch (thrown) {
      return fail('execution.error', messageOf(thrown), { raw: messageOf(thrown) });
    }
  }
}

/**
 * The text with every string literal as `''` and every comment as a space, read as PostgreSQL reads them:
 * dollar quotes (`$q$…$q$`), E'' strings with backslash escapes, nested block comments. The core's lexer knows
 * none of these: `SELECT $q$'$q$, pg_advisory_lock(1), $q$'$q$` hid the call inside what it took for a string,
 * and on a server whose owner cannot REVOKE, the check by name is the only wall.
 */
export function withPlainStrings(sql: string): string {
  let out = '';
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const ch = sql[i]!;
    const next = sql[i + 1];
    if (ch === '-' && next === '-') {
      while (i < n && sql[i] !== '\n' && sql[i] !== '\r') i++;
      out += ' ';
      continue;
    }
    if (ch === '/' && next === '*') {
      let depth = 0;
      do {
        if (sql.startsWith('/*', i)) {
          depth++;
          i += 2;
        } else if (sql.startsWith('*/', i)) {
          depth--;
          i += 2;
        } else i++;
      } while (i < n && depth > 0);
      out += ' ';
      continue;
    }
    if (ch === '"') {
      const end = closingQuote(sql, i, '"', false);
      out += sql.slice(i, end);
      i = end;
      continue;
    }
    if (ch === "'") {
      const escapes = /[eE]/.test(sql[i - 1] ?? '') && !/[\w$]/.test(sql[i - 2] ?? ' ');
      if (escapes) out = out.slice(0, -1);
      i = closingQuote(sql, i, "'", escapes);
      out += "''";
      continue;
    }
    if (ch === '$' && !/[\w$]/.test(sql[i - 1] ?? ' ')) {
      const tag = /^\$(?:[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)?\$/.exec(sql.slice(i, i + 64));
      if (tag) {
        const end = sql.indexOf(tag[0], i + tag[0].length);
        i = end < 0 ? n : end + tag[0].length;
        out += "''";
        continue;
      }
    }
    out += ch;
    i++;
  }
  return out;
}

/** Just past the quote that closes the one at `open` (doubled quotes, and backslash escapes when asked, skipped). */
function closingQuote(sql: string, open: number, quote: string, backslashEscapes: boolean): number {
  let i = open + 1;
  while (i < sql.length) {
    if (backslashEscapes && sql[i] === '\\') i += 2;
    else if (sql[i] === quote && sql[i + 1] === quote) i += 2;
    else if (sql[i] === quote) return i + 1;
    else i++;
  }
  return sql.length;
}

/** The session's one cursor; ROLLBACK closes it with the transaction. */
const CURSOR = 'sql_verdict_result';
/** The cursor (and the savepoint before it) of a result whose records are read as JSON (recordsAsJson). */
const RECORDS_CURSOR = 'sql_verdict_records';

interface Fetched {
  result: ResultBuilder;
  over: Overflow;
}

interface PlanNode {
  'Node Type': string;
  'Plan Rows'?: number;
  'Actual Rows'?: number;
  Plans?: PlanNode[];
}

/** PostgreSQL gives a character position for some load errors: turn it into lines within the part. */
function lineOffsetOf(thrown: unknown, sql: string): number {
  const position = Number((thrown as { position?: unknown } | null)?.position);
  if (!Number.isFinite(position) || position <= 0) return 0;
  return sql.slice(0, position - 1).split('\n').length - 1;
}
