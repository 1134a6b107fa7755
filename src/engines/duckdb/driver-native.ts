/**
 * Native DuckDB for Node (`@duckdb/node-api`, DuckDB 1.4.3 like the WASM engine) behind the same
 * DuckDbSession, so the sandbox is the one the WASM engine has: extension autoinstall/autoload off,
 * memory limit, frozen clock and blocked side-effect functions as TEMP macros, fixture files
 * allow-listed, external access off and the configuration locked before any fixture SQL runs, every
 * untrusted query through the call allow-list and DuckDB's own single-SELECT check (`query('…')`).
 *
 * What differs, and why:
 * - values come as node-api DuckDBValues, not Arrow: `decodeNative` gives the same cells as decode.ts
 *   (the session still casts what Arrow cannot carry to VARCHAR, so those are DuckDB's own text here too);
 * - fixture files (CSV, .duckdb) are written to a private temporary folder and allow-listed by path;
 * - a running query can be interrupted (`connection.interrupt()`), so a timeout does not need a new thread;
 * - DuckDB's tokenizer, which the call allow-list reads, is not in node-api: scanner.ts is a port of it (the
 *   same DuckDB version, checked against DuckDB-WASM's), given this instance's own keyword list;
 * - the functions DuckDB-WASM lacks are this instance's built-in functions not on DuckDB-WASM's list
 *   (wasm-functions.ts), read by the session from the catalog it reads for the call allow-list.
 * No DuckDB-WASM is started: a native engine is ready in tens of milliseconds instead of seconds.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type * as NodeApi from '@duckdb/node-api';
import type { DuckDBConnection, DuckDBDataChunk, DuckDBValue, DuckDBVector } from '@duckdb/node-api';
import { decimalFromUnscaled } from '../../core/value/decimal.ts';
import { type Cell, type Column, setField } from '../../core/value/kind.ts';
import { dateFromEpochDays, timeFromMicros, timestampFromEpochMicros } from '../../core/value/temporal.ts';
import type { ScriptTokens } from '../../core/sandbox/calls.ts';
import type { DuckDbDriver, ResultCodec, StreamedResult } from './session.ts';
import { NATIVE_FILES_ENV } from './native-files.ts';
import { tokenizeDuckDb } from './scanner.ts';
import { WASM_FUNCTION_NAMES } from './wasm-functions.ts';
import { mark } from '../timeline.ts';

const require = createRequire(import.meta.url);
// Required, not imported: Node's ES module loader scans this CommonJS package for its exports, about three times
// slower than require() (~70 ms) at every engine start.
const {
  DuckDBArrayValue,
  DuckDBBlobValue,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBInstance,
  DuckDBListValue,
  DuckDBListVector,
  DuckDBMapValue,
  DuckDBStructValue,
  DuckDBStructVector,
  DuckDBTimestampMillisecondsValue,
  DuckDBTimestampNanosecondsValue,
  DuckDBTimestampSecondsValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBTimeValue,
} = require('@duckdb/node-api') as typeof NodeApi;
const NODE_API_VERSION = (require('@duckdb/node-api/package.json') as { version: string }).version;
const INT64_MAX = 9223372036854775807n;
const DATE_INFINITY_DAYS = 2147483647;

/** A trusted query's result: the column names and every row. */
export interface NativeTable {
  names: string[];
  rows: DuckDBValue[][];
}

function safe(v: bigint): number | bigint {
  return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
}

function timestamp(raw: bigint, toMicros: (raw: bigint) => bigint, suffix = ''): string {
  // The same infinity test as decode.ts applies to Arrow's raw value.
  if (raw >= INT64_MAX) return 'infinity';
  if (raw <= -INT64_MAX) return '-infinity';
  return timestampFromEpochMicros(toMicros(raw)) + suffix;
}

/** One node-api value → the cell decode.ts gives for the same DuckDB value through Arrow. */
export function decodeNative(value: DuckDBValue, column?: Column): Cell {
  // An integer as text is a BIGNUM the session cast to VARCHAR: its digits (as decode.ts reads them).
  if (typeof value === 'string' && column?.kind === 'integer') return safe(BigInt(value));
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return safe(value);
  if (value instanceof DuckDBDecimalValue)
    return column?.kind === 'integer' && value.scale === 0
      ? safe(value.value)
      : decimalFromUnscaled(value.value, value.scale);
  if (value instanceof DuckDBDateValue) {
    if (value.days >= DATE_INFINITY_DAYS) return 'infinity';
    if (value.days <= -DATE_INFINITY_DAYS) return '-infinity';
    return dateFromEpochDays(value.days);
  }
  if (value instanceof DuckDBTimestampTZValue) return timestamp(value.micros, (m) => m, '+00');
  if (value instanceof DuckDBTimestampValue) return timestamp(value.micros, (m) => m);
  if (value instanceof DuckDBTimestampSecondsValue) return timestamp(value.seconds, (s) => s * 1_000_000n);
  if (value instanceof DuckDBTimestampMillisecondsValue) return timestamp(value.millis, (ms) => ms * 1_000n);
  if (value instanceof DuckDBTimestampNanosecondsValue) return timestamp(value.nanos, (ns) => ns / 1_000n);
  if (value instanceof DuckDBTimeValue) return timeFromMicros(value.micros);
  if (value instanceof DuckDBBlobValue) return value.bytes.slice();
  if (value instanceof DuckDBListValue || value instanceof DuckDBArrayValue) {
    const element = column?.children?.[0];
    return value.items.map((item) => decodeNative(item, element));
  }
  if (value instanceof DuckDBMapValue) {
    // A map is the list of its entries, {key, value} each (as decode.ts reads Arrow's Map).
    const entry = column?.children?.[0];
    return value.entries.map((e) => ({
      key: decodeNative(e.key, entry?.children?.[0]),
      value: decodeNative(e.value, entry?.children?.[1]),
    }));
  }
  if (value instanceof DuckDBStructValue) {
    const out: { [field: string]: Cell } = {};
    Object.keys(value.entries).forEach((name, f) => {
      setField(out, name, decodeNative(value.entries[name]!, column?.children?.[f]));
    });
    return out;
  }
  // Types the session casts to VARCHAR never get here; anything else is shown as DuckDB prints it.
  return String(value);
}

function decodeRows(rows: DuckDBValue[][], columns: Column[], into: Cell[][] = []): Cell[][] {
  for (const row of rows) {
    const out: Cell[] = new Array(columns.length);
    for (let c = 0; c < columns.length; c++) out[c] = decodeNative(row[c] ?? null, columns[c]);
    into.push(out);
  }
  return into;
}

/**
 * One item of a node-api vector → its cell. Structs (and lists of them) are read field by field from the
 * vector: node-api builds a struct value as `entries[name] = value`, which drops a field named `__proto__`
 * (it sets the object's prototype instead), so `{'__proto__': 1}` and `{'__proto__': 2}` came out equal.
 */
function decodeItem(vector: DuckDBVector, index: number, column?: Column): Cell {
  if (vector instanceof DuckDBStructVector) {
    if (vector.getItem(index) === null) return null;
    const out: { [field: string]: Cell } = {};
    vector.type.entryNames.forEach((name, f) => {
      setField(out, name, decodeNative(vector.getItemValue(index, f), column?.children?.[f]));
    });
    return out;
  }
  if (vector instanceof DuckDBListVector) {
    const items = vector.getItemVector(index);
    if (items === null) return null;
    const out: Cell[] = new Array(items.itemCount);
    for (let j = 0; j < items.itemCount; j++) out[j] = decodeItem(items, j, column?.children?.[0]);
    return out;
  }
  return decodeNative(vector.getItem(index), column);
}

function decodeChunk(chunk: DuckDBDataChunk, columns: Column[], into: Cell[][]): void {
  const vectors = columns.map((_, c) => chunk.getColumnVector(c));
  for (let r = 0; r < chunk.rowCount; r++) {
    const out: Cell[] = new Array(columns.length);
    for (let c = 0; c < columns.length; c++) out[c] = decodeItem(vectors[c]!, r, columns[c]);
    into.push(out);
  }
}

const NATIVE: ResultCodec<NativeTable, DuckDBDataChunk> = {
  rows: (table, columns) => decodeRows(table.rows, columns),
  names: (table) => table.names,
  batch: (chunk, columns, into) => decodeChunk(chunk, columns, into),
};

/** Settings given when the instance is created: nothing runs before extensions stop loading. */
/**
 * temp_directory '': no spilling, as DuckDB-WASM (a query past the memory limit is resource_exhausted on both).
 * Native DuckDB's default is `.tmp` in the current directory, allow-listed: a large sort wrote there, into the
 * user's checkout, and its files stayed behind when the engine was killed after an out-of-memory.
 */
const INSTANCE_OPTIONS = {
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
  temp_directory: '',
};

/**
 * Every node-api call that runs on libuv's thread pool (instance creation, connect, run, stream, fetch), in
 * flight. A worker thread must not end while one is: its completion then runs during the thread's teardown,
 * cannot resolve its promise, and node-addon-api's C++ exception escapes the callback, which aborts the whole
 * process ("terminate called after throwing an instance of 'Napi::Error'", exit 134). `drain` waits for them;
 * once `closing`, no new call starts.
 */
class NativeCalls {
  private readonly inFlight = new Set<Promise<unknown>>();
  closing = false;

  run<T>(call: () => Promise<T>): Promise<T> {
    if (this.closing) return Promise.reject(new Error('The native DuckDB engine is closing.'));
    const pending = call();
    const settled = pending.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(settled);
    void settled.then(() => this.inFlight.delete(settled));
    return pending;
  }

  get busy(): boolean {
    return this.inFlight.size > 0;
  }

  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }
}

export async function createNativeDuckDbDriver(
  options: { threads?: number } = {},
): Promise<DuckDbDriver<NativeTable, DuckDBDataChunk>> {
  const calls = new NativeCalls();
  let instance: NodeApi.DuckDBInstance = await calls.run(() => DuckDBInstance.create(':memory:', INSTANCE_OPTIONS));
  let conn: DuckDBConnection = await calls.run(() => instance.connect());
  mark('native: instance created');
  const [versionRows, keywordRows] = await Promise.all([
    calls.run(() => conn.runAndReadAll('SELECT version()')).then((r) => r.getRows()),
    calls.run(() => conn.runAndReadAll('SELECT keyword_name FROM duckdb_keywords()')).then((r) => r.getRows()),
  ]);
  mark('native: driver ready');
  // The scanner's keywords: an identifier that spells one is a keyword token.
  const keywords: ReadonlySet<string> = new Set(keywordRows.map((r) => String(r[0])));
  const version = `DuckDB ${String(versionRows[0]![0])} (node-api ${NODE_API_VERSION}, native)`;
  // The instance as created: only the catalog reads above ran on it (no setting, no file, no SQL of a fixture),
  // so the first reopen() keeps it instead of creating another one.
  let pristine = true;
  let files: string | null = null;
  const dropFiles = () => {
    if (files) rmSync(files, { recursive: true, force: true });
    files = null;
  };
  process.once('exit', dropFiles);
  const closeDatabase = () => {
    // Each may already be closed (a reopen that `closing` stopped half-way); closing twice is harmless to skip.
    try {
      conn.closeSync();
    } catch {
      /* already closed */
    }
    try {
      instance.closeSync();
    } catch {
      /* already closed */
    }
  };
  const interrupt = () => {
    try {
      conn.interrupt();
    } catch {
      /* a connection a reopen just closed: nothing of it runs */
    }
  };
  return {
    canCancel: true,
    codec: NATIVE,
    // Linked in here, not in DuckDB-WASM (icu, json, parquet, autocomplete): refused the way DuckDB-WASM refuses them.
    referenceFunctions: WASM_FUNCTION_NAMES,
    setup: [
      // ICU, linked in here, takes the TZ of the process: TIMESTAMPTZ text and parts would follow the machine's time
      // zone. UTC, as PostgreSQL's sessions and DuckDB-WASM (no ICU) read them.
      "SET TimeZone='UTC'",
      ...(options.threads ? [`SET threads=${Math.max(1, Math.floor(options.threads))}`] : []),
    ],
    async reopen() {
      if (calls.closing) throw new Error('The native DuckDB engine is closing.');
      if (pristine) {
        pristine = false;
        return;
      }
      closeDatabase();
      dropFiles();
      instance = await calls.run(() => DuckDBInstance.create(':memory:', INSTANCE_OPTIONS));
      conn = await calls.run(() => instance.connect());
    },
    async version() {
      return version;
    },
    async query(sql) {
      pristine = false;
      const reader = await calls.run(() => conn.runAndReadAll(sql));
      return { names: reader.columnNames(), rows: reader.getRows() as DuckDBValue[][] };
    },
    async stream(sql): Promise<StreamedResult<DuckDBDataChunk>> {
      pristine = false;
      // Chunk by chunk (2,048 rows): the session's row and byte budgets stop a large result early.
      const result = await calls.run(() => conn.stream(sql));
      async function* chunks(): AsyncGenerator<DuckDBDataChunk> {
        for (;;) {
          const chunk = await calls.run(() => result.fetchChunk());
          if (!chunk || chunk.rowCount === 0) return;
          yield chunk;
        }
      }
      return { fields: result.columnNames().map((name) => ({ name })), batches: chunks() };
    },
    async cancel() {
      if (!calls.closing) interrupt();
      return true;
    },
    /**
     * Stop what runs (interrupt), wait for every native call in flight to settle, then close: after this the
     * thread can end without aborting the process (see NativeCalls).
     */
    async dispose() {
      if (!calls.closing && calls.busy) interrupt();
      calls.closing = true;
      await calls.drain();
      closeDatabase();
      dropFiles();
    },
    async registerFile(name, bytes) {
      pristine = false;
      files ??= mkdtempSync(path.join(process.env[NATIVE_FILES_ENV] || tmpdir(), 'sql-verdict-duckdb-'));
      const at = path.join(files, name);
      writeFileSync(at, bytes);
      return at;
    },
    tokenize: async (sql): Promise<ScriptTokens> => tokenizeDuckDb(sql, keywords),
    mark,
  };
}
