/**
 * The sandbox attack list, shared by the Node test (tests/engines/sandbox.test.ts,
 * tests/engines/sandbox-state.test.ts) and the Chromium one
 * (tests/browser/sandbox.test.ts): every entry must be refused on its engine,
 * and leave the fixture digest, the settings, the logs and every other piece
 * of engine state as they were. CLOCK lists what may run on a fixture whose
 * clock is frozen: each query is refused or gives exactly the frozen value.
 */
import type { EngineName } from '../../src/core/engine.ts';

export const ATTACK_DUMP = `
CREATE TABLE items (id INTEGER PRIMARY KEY, name VARCHAR, price DECIMAL(10,2));
INSERT INTO items VALUES (1, 'pen', 1.50), (2, 'ink', 12.00), (3, 'pad', NULL);
`;

/** The fixture's declared as-of instant: the only time a query may see. */
export const AS_OF = '2025-12-31T12:34:56Z';

export interface Attack {
  sql: string;
  /** Why it is an attack (what it would leak or change). */
  what: string;
  /** Expected statement_kind when the refusal is a statement_rejected one (omitted: any refusal). */
  kind?: string;
}

const both = (sql: string, what: string, kind?: string): Attack => ({ sql, what, ...(kind ? { kind } : {}) });

/** Refused by the statement gate on both engines (paths as written; nothing may appear there). */
export function statementAttacks(file: (name: string) => string): Attack[] {
  return [
    both("INSERT INTO items VALUES (4, 'cap', 2.00)", 'write', 'insert'),
    both('UPDATE items SET price = 0', 'write', 'update'),
    both('DELETE FROM items', 'write', 'delete'),
    both('CREATE TABLE stolen AS SELECT * FROM items', 'DDL', 'create'),
    both('CREATE TEMP TABLE scratchpad (x INTEGER)', 'temporary state', 'create'),
    both("CREATE TEMP MACRO now() AS TIMESTAMP '2000-01-01'", 'replaces the frozen clock', 'create'),
    both('DROP TABLE items', 'DDL', 'drop'),
    both('ALTER TABLE items ADD COLUMN hacked INTEGER', 'DDL', 'alter'),
    both(`COPY items TO '${file('copy.csv')}'`, 'file write', 'copy'),
    both(`EXPORT DATABASE '${file('export')}'`, 'file write', 'export'),
    both(`ATTACH '${file('other.db')}' AS other`, 'file access', 'attach'),
    both('DETACH other', 'catalog change', 'detach'),
    both('INSTALL httpfs', 'network', 'install'),
    both('LOAD httpfs', 'extension', 'load'),
    both('SET enable_external_access = true', 'settings', 'set'),
    both("SET VARIABLE leak = 'x'", 'state for the next case', 'set'),
    both('RESET memory_limit', 'settings', 'reset'),
    both('PRAGMA query_only = 0', 'settings', 'pragma'),
    both('PRAGMA enable_profiling', 'settings', 'pragma'),
    both("CALL pragma_table_info('items')", 'CALL', 'call'),
    both("CALL enable_logging('QueryLog')", 'logging', 'call'),
    both('CHECKPOINT', 'storage', 'checkpoint'),
    both('BEGIN TRANSACTION', 'transaction', 'begin'),
    both(`VACUUM INTO '${file('vacuum.db')}'`, 'file write', 'vacuum'),
    both('PREPARE leak AS SELECT 1', 'prepared state', 'prepare'),
    both('WITH gone AS (SELECT 1) DELETE FROM items', 'write', 'with_delete'),
    both('SELECT 1; DROP TABLE items', 'stacked statement', 'multiple_statements'),
    both("SELECT 'a\\'; DROP TABLE items; --'", 'stacked statement', 'multiple_statements'),
    both('SELECT 1 --\n; DELETE FROM items', 'stacked statement', 'multiple_statements'),
  ];
}

/**
 * PostgreSQL's own (PGlite and a server): the reader role, the READ ONLY
 * transaction and the functions revoked from PUBLIC must refuse each one.
 */
const POSTGRES_ATTACKS: Attack[] = [
  both('DO $$ BEGIN DELETE FROM items; END $$', 'anonymous code block', 'do'),
  both('LISTEN leak', 'session state', 'listen'),
  both("NOTIFY leak, 'x'", 'messages to other sessions', 'notify'),
  both('UNLISTEN *', 'session state', 'unlisten'),
  both('LOCK TABLE items', 'locks', 'lock'),
  both('DISCARD ALL', 'session state', 'discard'),
  both('DECLARE c CURSOR WITH HOLD FOR SELECT * FROM items', 'a cursor that outlives the transaction', 'declare'),
  both('SHOW data_directory', 'server settings', 'show'),
  both('COPY (SELECT * FROM items) TO STDOUT', 'COPY', 'copy'),
  both("COPY items FROM PROGRAM 'id'", 'shell command', 'copy'),
  both("SELECT set_config('role', 'postgres', false)", "takes back the owner's role", 'function_call'),
  both("SELECT set_config('statement_timeout', '0', false)", 'lifts the time budget', 'function_call'),
  both("SELECT pg_catalog.set_config('search_path', 'pg_temp', true)", 'settings, qualified', 'function_call'),
  both(`SELECT "set_config"('transaction_read_only', 'off', true)`, 'settings, quoted', 'function_call'),
  both(`SELECT U&"\\0073et_config"('role', 'postgres', false)`, 'settings, unicode escape', 'invalid_text'),
  both(
    "SELECT * FROM ts_stat('SELECT set_config(''role'', ''postgres'', false)::tsvector')",
    'dynamic SQL hides the name',
    'function_call',
  ),
  both("SELECT query_to_xml('SELECT pg_advisory_lock(1)', true, true, '')", 'dynamic SQL', 'function_call'),
  // Quoting the core's lexer does not know: it read the call as part of a string, hidden from the check by name.
  both("SELECT $q$'$q$ AS a, pg_advisory_lock(1) AS b, $q$'$q$ AS c", 'a call between dollar quotes', 'function_call'),
  both("SELECT E'\\'' AS a, pg_advisory_lock(1) AS b, E'\\'' AS c", "a call between E'' strings", 'function_call'),
  both("SELECT pg_read_file('/etc/passwd')", 'file read', 'function_call'),
  both("SELECT pg_read_binary_file('/etc/passwd')", 'file read', 'function_call'),
  both("SELECT * FROM pg_ls_dir('.')", 'file listing', 'function_call'),
  both("SELECT pg_stat_file('/etc/passwd')", 'file metadata', 'function_call'),
  both("SELECT lo_import('/etc/passwd')", 'large object from a file', 'function_call'),
  both('SELECT lo_create(0)', 'large object', 'function_call'),
  both("SELECT lo_from_bytea(0, '\\x00'::bytea)", 'large object', 'function_call'),
  both("SELECT dblink('host=127.0.0.1', 'SELECT 1')", 'network', 'function_call'),
  both('SELECT pg_advisory_lock(1)', 'a lock that outlives the query', 'function_call'),
  both('SELECT pg_try_advisory_lock(1)', 'a lock that outlives the query', 'function_call'),
  both('SELECT pg_advisory_xact_lock(1)', 'locks', 'function_call'),
  both('SELECT pg_sleep(10)', 'sleeps past the budget', 'function_call'),
  both("SELECT pg_catalog.pg_sleep_for('10 seconds')", 'sleeps past the budget, qualified', 'function_call'),
  both("SELECT pg_notify('leak', 'x')", 'messages to other sessions', 'function_call'),
  both("SELECT nextval('seq')", 'sequence state', 'function_call'),
  both('SELECT setseed(0.5)', 'random state for the next cases (not undone by ROLLBACK)', 'function_call'),
  both('SELECT pg_catalog."setseed"(0.5)', 'random state, qualified and quoted', 'function_call'),
  both('SELECT txid_current()', 'counters shared between cases', 'function_call'),
  both('SELECT pg_terminate_backend(pg_backend_pid())', 'kills the session', 'function_call'),
  both('SELECT pg_reload_conf()', 'server configuration', 'function_call'),
  both('WITH gone AS (DELETE FROM items RETURNING *) SELECT * FROM gone', 'write in a CTE'),
  both('SELECT * INTO stolen FROM items', 'SELECT INTO creates a table'),
  both('SELECT * FROM items FOR UPDATE', 'row locks'),
  both('SELECT * FROM pg_catalog.pg_authid', 'password hashes'),
  both("SELECT current_setting('data_directory')", 'server file layout'),
  both('SELECT * FROM items; SELECT 1', 'stacked statement', 'multiple_statements'),
];

/** Reads the lexical gate lets through: the engine (or the call allow-list) must refuse them. */
export const ENGINE_ATTACKS: Record<EngineName, Attack[]> = {
  duckdb: [
    both("SELECT * FROM read_text('/etc/hostname')", 'file read'),
    both("SELECT * FROM read_csv('/etc/passwd')", 'file read'),
    both("SELECT * FROM glob('*')", 'file listing'),
    both("SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')", 'network'),
    both("SELECT nextval('seq')", 'sequence state'),
    both('SELECT setseed(0.5)', 'random state'),
    both('WITH gone AS (DELETE FROM items RETURNING *) SELECT * FROM gone', 'write in a CTE'),
    both("SELECT * FROM (SELECT 1) UNION ALL SELECT * FROM query('DROP TABLE items')", 'dynamic SQL'),
    // Logging: enabled despite lock_configuration, it records later cases' reference SQL for duckdb_logs().
    both("SELECT * FROM enable_logging('QueryLog')", 'logging', 'function_call'),
    both('SELECT * FROM enable_logging()', 'logging', 'function_call'),
    both("SELECT * FROM system.main.enable_logging('QueryLog')", 'logging, qualified', 'function_call'),
    both('SELECT * FROM "ENABLE_LOGGING"(\'QueryLog\')', 'logging, quoted', 'function_call'),
    both(
      "SELECT * FROM enable_logging /* c */ ('QueryLog')",
      'logging, comment before the parenthesis',
      'function_call',
    ),
    both("SELECT * FROM (SELECT 1) t, enable_logging('QueryLog')", 'logging in a join', 'function_call'),
    both("WITH x AS (SELECT * FROM enable_logging('QueryLog')) SELECT 1", 'logging in a CTE', 'function_call'),
    both('SELECT * FROM duckdb_logs()', 'reads other queries', 'function_call'),
    both('SELECT * FROM duckdb_logs', 'reads other queries (the view)', 'function_call'),
    both('SELECT * FROM system.main.duckdb_logs', 'reads other queries (qualified view)', 'function_call'),
    both("SELECT * FROM duckdb_logs_parsed('QueryLog')", 'reads other queries (table macro)', 'function_call'),
    both('SELECT * FROM duckdb_log_contexts()', 'reads other queries', 'function_call'),
    both('SELECT * FROM disable_logging()', 'logging', 'function_call'),
    both('SELECT * FROM truncate_duckdb_logs()', 'logging', 'function_call'),
    both("SELECT write_log('forged')", 'logging', 'function_call'),
    both('SELECT * FROM checkpoint()', 'storage', 'function_call'),
    both('SELECT * FROM force_checkpoint()', 'storage', 'function_call'),
    // Qualified names reach the built-ins behind the sandbox's TEMP macros.
    both('SELECT system.main.setseed(0.5)', 'random state, qualified', 'function_call'),
    both('SELECT main.setseed(0.5)', 'random state, qualified', 'function_call'),
    both('SELECT "system"."main"."setseed"(0.5)', 'random state, quoted', 'function_call'),
    both('SELECT (0.5).setseed()', 'random state, method call', 'function_call'),
    both('SELECT setseed/**/(0.5)', 'random state, comment', 'function_call'),
    both('SELECT list_transform([1], x -> setseed(0.5))', 'random state in a lambda', 'function_call'),
    both('SELECT U&"\\0073etseed"(0.5)', 'random state, unicode escape', 'invalid_text'),
    both("SELECT system.main.nextval('seq')", 'sequence state, qualified', 'function_call'),
    both("SELECT * FROM query('SELECT set' || 'seed(0.5)')", 'dynamic SQL hides the name', 'function_call'),
    both("SELECT * FROM query_table('items')", 'dynamic SQL', 'function_call'),
    both('SELECT uuidv7()', 'embeds the real time', 'function_call'),
    both('SELECT current_query()', 'reveals the statement the sandbox built', 'function_call'),
    both('SELECT current_query_id(), current_transaction_id()', 'counters shared between cases', 'function_call'),
    both('SELECT txid_current()', 'counters shared between cases', 'function_call'),
    both('SELECT * FROM duckdb_prepared_statements()', 'session state', 'function_call'),
    both('SELECT * FROM duckdb_secrets()', 'session state', 'function_call'),
    both("SELECT * FROM enable_logging('QueryLog", 'unterminated text', 'invalid_text'),
    both(
      "SELECT 'Zoë 漢字 🎉' AS t, setseed(0.5)",
      'after multi-byte text (the tokenizer counts bytes)',
      'function_call',
    ),
    both('SELECT "zoë🎉".setseed() FROM (SELECT 0.5 AS "zoë🎉")', 'after a multi-byte identifier', 'function_call'),
  ],
  sqlite: [
    both("SELECT load_extension('/tmp/evil.so')", 'native code'),
    both('WITH gone AS (DELETE FROM items RETURNING *) SELECT * FROM gone', 'write in a CTE'),
    both('SELECT * FROM pragma_query_only(0)', 'settings through a pragma function'),
    both("SELECT * FROM pragma_journal_mode('off')", 'settings through a pragma function'),
    both('SELECT * FROM pragma_writable_schema(1)', 'settings through a pragma function'),
    both("ATTACH ':memory:' AS scratch", 'catalog change', 'attach'),
    // SQLite compiles a statement whose first word is SELECT only once (no subquery gate): a comment is not a first word.
    both('/* select */ PRAGMA query_only = 0', 'settings, behind a comment that reads SELECT'),
    both('-- select\nPRAGMA query_only = 0', 'settings, behind a comment that reads SELECT'),
    both("SELECT writefile('/tmp/x', 'y')", 'file write'),
    both(
      'SELECT * FROM temp.sqlite_schema WHERE 0; CREATE TEMP TABLE t(x)',
      'stacked temp state',
      'multiple_statements',
    ),
  ],
  pglite: POSTGRES_ATTACKS,
  postgres: POSTGRES_ATTACKS,
};

export interface ClockProbe {
  sql: string;
  /** The only answer allowed besides a refusal (cell of row 1, column 1), derived from AS_OF. */
  frozen: string | number | bigint;
}

/** Every path to the time on a fixture with AS_OF: refused, or exactly the frozen value. */
export const CLOCK: Record<EngineName, ClockProbe[]> = {
  duckdb: [
    { sql: 'SELECT now()', frozen: '2025-12-31 12:34:56' },
    { sql: 'SELECT current_timestamp', frozen: '2025-12-31 12:34:56' },
    { sql: 'SELECT get_current_timestamp()', frozen: '2025-12-31 12:34:56' },
    { sql: 'SELECT transaction_timestamp()', frozen: '2025-12-31 12:34:56' },
    { sql: 'SELECT current_date', frozen: '2025-12-31' },
    { sql: 'SELECT today()', frozen: '2025-12-31' },
    { sql: 'SELECT CAST(now() AS VARCHAR)', frozen: '2025-12-31 12:34:56' },
    { sql: 'SELECT epoch_ms(now())', frozen: Date.parse(AS_OF) },
    { sql: "SELECT CAST(age(TIMESTAMP '2025-12-01') AS VARCHAR)", frozen: '30 days' },
    { sql: 'SELECT system.main.now()', frozen: 'refused' },
    { sql: 'SELECT main.now()', frozen: 'refused' },
    { sql: 'SELECT "system"."main"."now"()', frozen: 'refused' },
    { sql: 'SELECT system.main.get_current_timestamp()', frozen: 'refused' },
    { sql: 'SELECT system.main.transaction_timestamp()', frozen: 'refused' },
    { sql: "SELECT system.main.age(TIMESTAMP '2025-12-01')", frozen: 'refused' },
    { sql: 'SELECT uuidv7()', frozen: 'refused' },
    { sql: 'SELECT pg_postmaster_start_time()', frozen: 'refused' },
    { sql: 'SELECT pg_conf_load_time()', frozen: 'refused' },
    { sql: 'SELECT current_time', frozen: 'refused' },
    { sql: 'SELECT localtimestamp', frozen: 'refused' },
    { sql: "SELECT * FROM query('SELECT system.main.now()')", frozen: 'refused' },
  ],
  sqlite: [
    { sql: "SELECT date('now')", frozen: '2025-12-31' },
    { sql: "SELECT datetime('now')", frozen: '2025-12-31 12:34:56' },
    { sql: 'SELECT CURRENT_TIMESTAMP', frozen: '2025-12-31 12:34:56' },
    { sql: 'SELECT CURRENT_DATE', frozen: '2025-12-31' },
    { sql: 'SELECT CURRENT_TIME', frozen: '12:34:56' },
    { sql: "SELECT time('now')", frozen: '12:34:56' },
    { sql: "SELECT strftime('%s', 'now')", frozen: String(Date.parse(AS_OF) / 1000) },
    { sql: "SELECT unixepoch('now')", frozen: Date.parse(AS_OF) / 1000 },
    { sql: "SELECT julianday('now')", frozen: Date.parse(AS_OF) / 86_400_000 + 2440587.5 },
    { sql: "SELECT datetime('now', 'localtime')", frozen: '2025-12-31 12:34:56' },
    { sql: "SELECT date('now', 'start of month')", frozen: '2025-12-01' },
  ],
  pglite: [
    // PGlite reads the time through the worker's Date.now: every clock, qualified or not, is the as-of instant.
    { sql: 'SELECT now()', frozen: '2025-12-31 12:34:56+00' },
    { sql: 'SELECT current_timestamp', frozen: '2025-12-31 12:34:56+00' },
    { sql: 'SELECT clock_timestamp()', frozen: '2025-12-31 12:34:56+00' },
    { sql: 'SELECT statement_timestamp()', frozen: '2025-12-31 12:34:56+00' },
    { sql: 'SELECT transaction_timestamp()', frozen: '2025-12-31 12:34:56+00' },
    { sql: 'SELECT pg_catalog.now()', frozen: '2025-12-31 12:34:56+00' },
    { sql: 'SELECT "pg_catalog"."clock_timestamp"()', frozen: '2025-12-31 12:34:56+00' },
    { sql: 'SELECT localtimestamp', frozen: '2025-12-31 12:34:56' },
    { sql: 'SELECT current_date', frozen: '2025-12-31' },
    { sql: 'SELECT current_time', frozen: '12:34:56+00' },
    { sql: 'SELECT CAST(now() AS text)', frozen: '2025-12-31 12:34:56+00' },
    { sql: 'SELECT timeofday()', frozen: 'Wed Dec 31 12:34:56.000000 2025 UTC' },
    { sql: 'SELECT extract(epoch FROM now())', frozen: '1767184496.000000' },
    { sql: "SELECT age(TIMESTAMP '2025-12-01')", frozen: '30 days' },
    { sql: "SELECT date_trunc('month', now())", frozen: '2025-12-01 00:00:00+00' },
    { sql: 'SELECT pg_postmaster_start_time()', frozen: 'refused' },
    { sql: 'SELECT pg_conf_load_time()', frozen: 'refused' },
    // The statistics views and pg_control_* hold real times stamped before (or beside) the frozen clock.
    { sql: 'SELECT stats_reset FROM pg_stat_wal', frozen: 'refused' },
    { sql: 'SELECT stats_reset FROM pg_catalog.pg_stat_bgwriter', frozen: 'refused' },
    { sql: 'SELECT stats_reset FROM pg_stat_io LIMIT 1', frozen: 'refused' },
    { sql: 'SELECT pg_stat_get_snapshot_timestamp()', frozen: 'refused' },
    { sql: 'SELECT (pg_control_checkpoint()).checkpoint_time', frozen: 'refused' },
    { sql: 'SELECT (pg_catalog.pg_control_system()).system_identifier', frozen: 'refused' },
  ],
  // A server's clock cannot be frozen: with an as-of instant, every read of it is refused.
  postgres: [
    { sql: 'SELECT now()', frozen: 'refused' },
    { sql: 'SELECT current_timestamp', frozen: 'refused' },
    { sql: 'SELECT clock_timestamp()', frozen: 'refused' },
    { sql: 'SELECT statement_timestamp()', frozen: 'refused' },
    { sql: 'SELECT pg_catalog.now()', frozen: 'refused' },
    { sql: 'SELECT "pg_catalog"."clock_timestamp"()', frozen: 'refused' },
    { sql: 'SELECT localtimestamp', frozen: 'refused' },
    { sql: 'SELECT current_date', frozen: 'refused' },
    { sql: 'SELECT timeofday()', frozen: 'refused' },
    { sql: "SELECT age(TIMESTAMP '2025-12-01')", frozen: 'refused' },
    { sql: 'SELECT pg_postmaster_start_time()', frozen: 'refused' },
    { sql: 'SELECT stats_reset FROM pg_stat_wal', frozen: 'refused' },
    { sql: 'SELECT (pg_control_checkpoint()).checkpoint_time', frozen: 'refused' },
  ],
};
