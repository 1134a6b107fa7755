/**
 * SQLite through sql.js as a sandboxed engine session.
 *
 * Gate: the lexical pre-check, then exactly one statement
 * (`iterateStatements`), then the text must compile as a subquery
 * (`SELECT * FROM (<sql>)`), which only a SELECT/VALUES/WITH query does —
 * PRAGMA, ATTACH and every write fail to compile there. The validated text
 * then runs as written (so its column names and ORDER BY are its own) with
 * `PRAGMA query_only=1` as a second wall. sql.js has no interrupt
 * (sql.js#461): the supervisor terminates the host on timeout.
 */
import type { Database, SqlJsStatic, Statement } from 'sql.js';
import {
  DEFAULT_MAX_RESULT_BYTES,
  type ExecuteOutcome,
  type FixtureInfo,
  type FixtureSource,
  type PlanSummary,
  type TableInfo,
} from '../../core/engine.ts';
import { contentDigestOf } from '../../core/digest/canonical-dump.ts';
import { fail, messageOf, ok, type Outcome } from '../../core/errors.ts';
import type { Cell, Column, Kind } from '../../core/value/kind.ts';
import {
  executionError,
  rejectedByPrecheck,
  rejectedStatement,
  tooManyBytes,
  tooManyRows,
} from '../execution-errors.ts';
import { rowBytes } from '../../core/value/size.ts';
import type { EngineSession, HostExecuteOptions } from '../host-api.ts';

const IDENT = (name: string) => `"${name.replace(/"/g, '""')}"`;
const READ_BY_GRAMMAR = /^(?:\s|--[^\n]*(?:\n|$)|\/\*[\s\S]*?(?:\*\/|$))*(?:select|values)(?![\w$\u0080-\uffff])/i;
/** Whether the first word of a compiled statement, after blanks and comments as SQLite reads them, is SELECT or VALUES. */
export const readByGrammar = (text: string): boolean => READ_BY_GRAMMAR.test(text);
const REAL_DATE_NOW = Date.now;

/**
 * The frozen clock: sql.js reads the time through Date.now (CURRENT_DATE,
 * date('now'), ...), and this host is a dedicated worker, so pinning Date.now
 * pins SQLite's clock to the fixture's as-of instant.
 */
function freezeClock(asOf: string | undefined): boolean {
  pinLocalTimeToUtc();
  if (asOf === undefined) {
    Date.now = REAL_DATE_NOW;
    return true;
  }
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(asOf) ? `${asOf}T00:00:00Z` : asOf);
  if (Number.isNaN(ms)) return false;
  Date.now = () => ms;
  return true;
}

/**
 * SQLite's 'localtime' and 'utc' modifiers convert through the C library's localtime, which sql.js answers with
 * Date's local getters, i.e. the machine's time zone: `datetime('now', 'localtime')` read 21:34 under
 * TZ=Asia/Tokyo where CI reads 12:34. Local time is UTC in this (engine) thread, as DuckDB and PostgreSQL read it.
 */
function pinLocalTimeToUtc(): void {
  const proto = Date.prototype as unknown as Record<string, unknown>;
  if (proto.getTimezoneOffset === ZERO_OFFSET) return;
  for (const part of ['FullYear', 'Month', 'Date', 'Day', 'Hours', 'Minutes', 'Seconds', 'Milliseconds'])
    proto[`get${part}`] = proto[`getUTC${part}`];
  proto.getTimezoneOffset = ZERO_OFFSET;
}
const ZERO_OFFSET = (): number => 0;

/** Connection settings a query could try to change (PRAGMA is refused; these show it stayed so). */
const SQLITE_STATE_PRAGMAS = [
  'query_only',
  'foreign_keys',
  'recursive_triggers',
  'case_sensitive_like',
  'reverse_unordered_selects',
  'trusted_schema',
  'cell_size_check',
  'defer_foreign_keys',
  'ignore_check_constraints',
  'automatic_index',
  'cache_size',
  'journal_mode',
  'temp_store',
  'schema_version',
  'user_version',
];

interface Materialized {
  columns: Column[];
  rows: Cell[][];
  /** Which cap stopped the statement, if one did. */
  tooMany: false | 'rows' | 'bytes';
  rowsRead: number;
}

function cellOf(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') {
    return value >= -9007199254740991n && value <= 9007199254740991n ? Number(value) : value;
  }
  if (value instanceof Uint8Array) return value.slice();
  return value as Cell;
}

/** SQLite is dynamically typed: a column's kind is what its values are. */
function kindOfValues(rows: unknown[][], index: number): { kind: Kind; engineType: string } {
  const seen = new Set<string>();
  let unsafeInteger = false;
  for (const row of rows) {
    const v = row[index];
    if (v === null || v === undefined) continue;
    if (typeof v === 'bigint' && (v > 9007199254740991n || v < -9007199254740991n)) unsafeInteger = true;
    seen.add(
      typeof v === 'bigint' ? 'INTEGER' : typeof v === 'number' ? 'REAL' : typeof v === 'string' ? 'TEXT' : 'BLOB',
    );
    if (seen.size > 2) break;
  }
  if (seen.size === 0) return { kind: 'null', engineType: 'NULL' };
  if (seen.size === 1) {
    const only = [...seen][0]!;
    const kind: Kind = only === 'INTEGER' ? 'integer' : only === 'REAL' ? 'float' : only === 'TEXT' ? 'text' : 'blob';
    return { kind, engineType: only };
  }
  // INTEGER and REAL together read as floats, unless an integer is beyond 2^53: a float would
  // round it, so the column keeps exact mixed values (kind other).
  if (seen.size === 2 && seen.has('INTEGER') && seen.has('REAL') && !unsafeInteger)
    return { kind: 'float', engineType: 'INTEGER|REAL' };
  return { kind: 'other', engineType: [...seen].sort().join('|') };
}

/** The version text of each sql.js module (it cannot change while the module lives). */
const VERSIONS = new WeakMap<SqlJsStatic, string>();

export class SqliteSession implements EngineSession {
  private db: Database | null = null;
  private loaded: FixtureInfo | null = null;
  /** The digest taken at load, while no SQL has run since (a run asks for it again before its first query). */
  private untouchedDigest: string | null = null;

  constructor(private readonly SQL: SqlJsStatic) {}

  async version(): Promise<string> {
    // Asked once per graded case (the report's engine_version): a scratch database each time was
    // ~6 % of a grading worker's time on the Spider pairs. The text is the module's, so kept per module.
    let text = VERSIONS.get(this.SQL);
    if (text === undefined) {
      const db = new this.SQL.Database();
      try {
        const v = db.exec('SELECT sqlite_version()')[0]?.values[0]?.[0];
        text = `SQLite ${String(v)} (sql.js 1.16.0)`;
      } finally {
        db.close();
      }
      VERSIONS.set(this.SQL, text);
    }
    return text;
  }

  async cancel(): Promise<boolean> {
    return false;
  }

  async load(fixture: FixtureSource): Promise<Outcome<FixtureInfo>> {
    const started = performance.now();
    this.db?.close();
    this.db = null;
    this.loaded = null;
    this.untouchedDigest = null;
    if (fixture.files.length === 0) return fail('input.invalid', `Fixture "${fixture.name}" has no files.`);
    const unsupported = fixture.files.find((f) => f.format !== 'sql' && f.format !== 'sqlite');
    if (unsupported)
      return fail(
        'fixture.unsupported_format',
        `${unsupported.fileName} (${unsupported.format}) cannot be loaded on the sqlite engine; use the duckdb engine for ${unsupported.format} files.`,
        { location: unsupported.fileName },
      );
    const databaseFile = fixture.files.find((f) => f.format === 'sqlite');
    if (!freezeClock(fixture.asOf))
      return fail(
        'input.invalid',
        `as_of "${fixture.asOf}" is not an ISO date or instant (e.g. 2025-12-31T23:59:59Z).`,
        { location: 'as_of' },
      );
    try {
      if (databaseFile && fixture.files.length > 1)
        return fail(
          'input.invalid',
          'A SQLite database file is a fixture on its own; it cannot be combined with other files.',
        );
      if (databaseFile) {
        // SQLite opens 0 bytes as a new, empty database: a truncated copy was graded with every
        // reference failing (no such table), those cases set aside as broken, the rest scored.
        if (databaseFile.bytes.length === 0)
          return fail(
            'fixture.load_failed',
            `${databaseFile.fileName} is empty (0 bytes), not a SQLite database: an interrupted copy or download?`,
          );
        this.db = new this.SQL.Database(databaseFile.bytes.slice());
        this.db.exec('SELECT count(*) FROM sqlite_schema'); // a corrupt file fails here, not later
      } else {
        this.db = new this.SQL.Database();
        for (const file of fixture.files) {
          const text = new TextDecoder('utf-8').decode(file.bytes);
          try {
            this.db.exec(text);
          } catch (thrown) {
            const line = this.failingLine(text);
            const where = line ? `${file.fileName}:${line}` : file.fileName;
            return fail('fixture.load_failed', `${where}: ${messageOf(thrown)}`, {
              raw: messageOf(thrown),
              location: where,
            });
          }
        }
      }
      // A connection that never writes keeps its shared lock: without this, every statement
      // asks sql.js's in-memory file system for a hot journal (a fifth of a light query's time).
      this.db.exec('PRAGMA locking_mode=EXCLUSIVE');
      this.db.exec('PRAGMA query_only=1');
      const tables = this.tables();
      const digest = await this.contentDigest();
      if (!digest.ok) return digest;
      this.loaded = {
        name: fixture.name,
        engine: 'sqlite',
        engineVersion: await this.version(),
        tables,
        contentDigest: digest.value,
        ...(fixture.asOf ? { asOf: fixture.asOf } : {}),
        loadMs: performance.now() - started,
      };
      this.untouchedDigest = digest.value;
      return ok(this.loaded);
    } catch (thrown) {
      this.db?.close();
      this.db = null;
      const raw = messageOf(thrown);
      const message = /file is not a database|malformed/i.test(raw)
        ? `${databaseFile?.fileName ?? fixture.name} is not a readable SQLite database (${raw}).`
        : `Could not load fixture "${fixture.name}": ${raw}`;
      return fail('fixture.load_failed', message, { raw });
    }
  }

  /** SQLite does not say where a script failed: replay it statement by statement on a scratch database to find the line. */
  private failingLine(text: string): number | undefined {
    const scratch = new this.SQL.Database();
    let cursor = 0;
    const lineAt = (offset: number) => text.slice(0, offset).split('\n').length;
    try {
      for (const statement of scratch.iterateStatements(text)) {
        const sql = statement.getSQL().trim();
        const start = text.indexOf(sql, cursor);
        if (start >= 0) cursor = start;
        statement.run();
        if (start >= 0) cursor = start + sql.length;
      }
      return undefined;
    } catch {
      // The statement at the cursor (or the next one, when it did not even parse).
      const next = text.slice(cursor).search(/\S/);
      return lineAt(cursor + Math.max(0, next));
    } finally {
      scratch.close();
    }
  }

  private tables(): TableInfo[] {
    const db = this.db!;
    const names = (
      db.exec("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")[0]
        ?.values ?? []
    ).map((r) => String(r[0]));
    return names.map((name) => {
      const info = db.exec(`PRAGMA table_info(${IDENT(name)})`)[0]?.values ?? [];
      const count = db.exec(`SELECT count(*) FROM ${IDENT(name)}`)[0]?.values[0]?.[0];
      return {
        name,
        columns: info.map((r) => ({ name: String(r[1]), engineType: String(r[2] ?? '') })),
        rowCount: Number(count),
      };
    });
  }

  /** Step the statement row by row, counting decoded bytes, so a result past either cap is never held. */
  private materialize(statement: Statement, maxRows: number, maxBytes = Number.POSITIVE_INFINITY): Materialized {
    const names = statement.getColumnNames();
    const raw: unknown[][] = [];
    let tooMany: Materialized['tooMany'] = false;
    let bytes = 0;
    while (statement.step()) {
      if (raw.length >= maxRows) {
        tooMany = 'rows';
        break;
      }
      // useBigInt: INTEGER values arrive as bigint, REAL as number — the only way to tell them apart.
      const row = (statement.get as (params: null, config: { useBigInt: boolean }) => unknown[])(null, {
        useBigInt: true,
      });
      bytes += rowBytes(row as Cell[]);
      if (bytes > maxBytes) {
        tooMany = 'bytes';
        break;
      }
      raw.push(row);
    }
    const columns: Column[] = names.map((name, i) => ({ name, ...kindOfValues(raw, i) }));
    return { columns, rows: raw.map((row) => row.map(cellOf)), tooMany, rowsRead: raw.length };
  }

  async contentDigest(): Promise<Outcome<string>> {
    if (!this.db) return fail('fixture.not_loaded', 'No fixture is loaded.');
    if (this.untouchedDigest !== null) return ok(this.untouchedDigest);
    try {
      const dumps = this.tables().map((t) => {
        const statement = this.db!.prepare(`SELECT * FROM ${IDENT(t.name)}`);
        try {
          const { columns, rows } = this.materialize(statement, Number.MAX_SAFE_INTEGER);
          return { name: t.name, table: { columns, rows } };
        } finally {
          statement.free();
        }
      });
      return ok(await contentDigestOf(dumps));
    } catch (thrown) {
      return fail('execution.error', `Could not compute the content digest: ${messageOf(thrown)}`, {
        raw: messageOf(thrown),
      });
    }
  }

  async sandboxState(): Promise<Outcome<Record<string, string>>> {
    const db = this.db;
    if (!db) return fail('fixture.not_loaded', 'No fixture is loaded.');
    try {
      const pragmas = SQLITE_STATE_PRAGMAS.map(
        (p) => `${p}=${String(db.exec(`PRAGMA ${p}`)[0]?.values[0]?.[0] ?? '')}`,
      ).join('\n');
      const temp = (db.exec('SELECT type, name FROM temp.sqlite_schema ORDER BY 1, 2')[0]?.values ?? [])
        .map((r) => r.join('='))
        .join('\n');
      const databases = (db.exec('PRAGMA database_list')[0]?.values ?? []).map((r) => String(r[1])).join('\n');
      return ok({
        settings: pragmas,
        temp_objects: temp,
        databases,
        total_changes: String(db.exec('SELECT total_changes()')[0]?.values[0]?.[0]),
      });
    } catch (thrown) {
      return fail('execution.error', `Could not read the sandbox state: ${messageOf(thrown)}`, {
        raw: messageOf(thrown),
      });
    }
  }

  async explain(sql: string): Promise<Outcome<PlanSummary>> {
    const db = this.db;
    if (!db) return fail('fixture.not_loaded', 'Load a fixture before planning queries.');
    this.untouchedDigest = null;
    const pre = rejectedByPrecheck(sql);
    if (pre && !pre.ok) return { ok: false, error: pre.error };
    try {
      const texts: string[] = [];
      for (const statement of db.iterateStatements(sql)) texts.push(statement.getSQL());
      if (texts.length !== 1) return fail('sandbox.statement_rejected', 'Only one statement may be planned.');
      const text = texts[0]!.replace(/;\s*$/, '');
      db.prepare(`SELECT * FROM (\n${text}\n)`).free();
      const rows = db.exec(`EXPLAIN QUERY PLAN ${text}`)[0]?.values ?? [];
      const details = rows.map((r) => String(r[3] ?? ''));
      const operators = details.map((d) =>
        (
          /^(SCAN|SEARCH|USE TEMP B-TREE|CO-ROUTINE|MATERIALIZE|COMPOUND|CORRELATED|LIST SUBQUERY|SCALAR SUBQUERY|MERGE)/.exec(
            d,
          )?.[1] ?? d.split(' ')[0]!
        ).toUpperCase(),
      );
      return ok({ operators, text: details.join('\n') });
    } catch (thrown) {
      return fail('execution.error', messageOf(thrown), { raw: messageOf(thrown) });
    }
  }

  async execute(sql: string, options: HostExecuteOptions): Promise<ExecuteOutcome> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    const db = this.db;
    if (!db || !this.loaded)
      return { ok: false, error: { code: 'fixture.not_loaded', message: 'Load a fixture before running queries.' } };
    this.untouchedDigest = null;
    // Several sessions can share a thread (a grading worker): the clock is this fixture's.
    freezeClock(this.loaded.asOf);
    const pre = rejectedByPrecheck(sql);
    if (pre) return pre;
    // SQLite's own reading decides how many statements there are. sql.js finalizes an
    // iterated statement when the iterator moves on: when nothing but separators follows
    // the first one, it runs as compiled; otherwise every statement is read first.
    let text: string;
    try {
      const statements = db.iterateStatements(sql);
      const first = statements.next();
      if (!first.done && /^[\s;]*$/.test(statements.getRemainingSQL())) {
        try {
          return this.runGated(sql, first.value, options, elapsed);
        } finally {
          first.value.free();
        }
      }
      const texts = first.done ? [] : [first.value.getSQL()];
      for (let next = statements.next(); !next.done; next = statements.next()) texts.push(next.value.getSQL());
      if (texts.length !== 1) return rejectedStatement(sql, `${texts.length} statements`, elapsed());
      text = texts[0]!;
    } catch (thrown) {
      return executionError('sqlite', messageOf(thrown), elapsed());
    }
    let statement: Statement | null = null;
    try {
      statement = db.prepare(text);
      return this.runGated(sql, statement, options, elapsed);
    } catch (thrown) {
      return executionError('sqlite', messageOf(thrown), elapsed());
    } finally {
      statement?.free();
    }
  }

  /**
   * One compiled statement: refused unless it compiles as a subquery (a read query), else its rows. A statement
   * whose first word is SELECT or VALUES is a query by SQLite's grammar (PRAGMA, ATTACH and DML begin otherwise;
   * WITH can lead to DML): it is not compiled a second time (that compile was about 8% of the time in sql.js on Spider).
   */
  private runGated(
    sql: string,
    statement: Statement,
    options: HostExecuteOptions,
    elapsed: () => number,
  ): ExecuteOutcome {
    const text = statement.getSQL().replace(/;\s*$/, '');
    try {
      if (!readByGrammar(text)) this.db!.prepare(`SELECT * FROM (\n${text}\n)`).free();
    } catch (thrown) {
      // The statement compiled on its own, so failing as a subquery means it is not a
      // read query: the gate refuses it.
      return rejectedStatement(sql, messageOf(thrown), elapsed());
    }
    try {
      const budget = options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
      const result = this.materialize(statement, options.maxRows, budget);
      if (result.tooMany === 'rows') return tooManyRows(options.maxRows, elapsed());
      if (result.tooMany === 'bytes') return tooManyBytes(budget, result.rowsRead, elapsed());
      return { ok: true, value: { columns: result.columns, rows: result.rows, elapsedMs: elapsed() } };
    } catch (thrown) {
      return executionError('sqlite', messageOf(thrown), elapsed());
    }
  }
}
