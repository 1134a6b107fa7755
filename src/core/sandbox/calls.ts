/**
 * What a candidate may call, decided against the engine's own catalog and
 * the engine's own tokenizer (not a text match): DuckDB's configuration lock
 * does not stop table functions such as `enable_logging()` or
 * `checkpoint()`, and a qualified name (`system.main.now()`) reaches the
 * built-in behind a sandbox macro. So every name the tokens show being
 * called must be on an allow-list built from `duckdb_functions()`:
 *
 * - scalar and aggregate functions the catalog marks CONSISTENT without side
 *   effects, plus a few harmless volatile ones (random(), uuid());
 * - the clock functions, unqualified only (the frozen clock shadows them with
 *   TEMP macros; a qualified name would bypass the shadow);
 * - the table functions on TABLE_FUNCTIONS (reads of data or metadata);
 * - macros whose bodies call only allowed names (to a fixpoint).
 *
 * Everything else in the catalog — logging, checkpoint, query()/query_table()
 * (dynamic SQL would hide names from this check), sequences, setseed(),
 * uuidv7() (embeds the real time), write_log() — is refused by name, and so
 * are internal views over refused functions (`duckdb_logs`).
 */

/** One row of the engine's function catalog. */
export interface CatalogFunction {
  name: string;
  /** scalar, aggregate, table, macro, table_macro, pragma. */
  type: string;
  stability: string | null;
  sideEffects: boolean | null;
  /** Macro body (SQL text) for macros and table macros. */
  body: string | null;
}

export interface CatalogView {
  name: string;
  sql: string;
}

/** The decision, ready for checking token streams. */
export interface CallPolicy {
  /** Lower-case names a candidate may not call. */
  denied: ReadonlySet<string>;
  /** Names that may be called only unqualified (the sandbox shadows them). */
  unqualifiedOnly: ReadonlySet<string>;
  /** Relations (internal views) that read what a candidate may not. */
  deniedRelations: ReadonlySet<string>;
  /**
   * Functions this build has that the reference build (DuckDB-WASM) lacks, with the extension they come from
   * (native DuckDB links icu, json and parquet in): a call fails as it does on DuckDB-WASM.
   */
  absent?: ReadonlyMap<string, string>;
}

/** Clock functions (and the keywords that map to them): frozen by TEMP macros when the fixture has an as-of instant. */
export const CLOCK_FUNCTIONS = [
  'now',
  'current_date',
  'today',
  'current_timestamp',
  'get_current_timestamp',
  'transaction_timestamp',
  'localtimestamp',
  'current_localtimestamp',
  'current_time',
  'get_current_time',
  'localtime',
  'current_localtime',
  'age',
] as const;

/** Clock keywords DuckDB binds without parentheses (`current_date`): refused qualified even when not called. */
const PARENLESS_CLOCK = new Set(['current_date', 'current_timestamp', 'current_time', 'localtime', 'localtimestamp']);

/**
 * Volatile or per-query functions that reveal nothing about other queries.
 * histogram: the aggregate everyone uses shares its name with a table macro
 * over query_table(name); that reaches only relations a query could read
 * directly, and the log views stay empty because nothing can turn logging on.
 */
const HARMLESS = new Set([
  'random',
  'uuid',
  'uuidv4',
  'gen_random_uuid',
  'current_database',
  'current_schema',
  'current_schemas',
  'in_search_path',
  'histogram',
]);

/** Table functions a read query may use: data generators and catalog reads (file readers stay blocked by enable_external_access). */
const TABLE_FUNCTIONS = new Set([
  'range',
  'generate_series',
  'unnest',
  'repeat',
  'repeat_row',
  'glob',
  'read_csv',
  'read_csv_auto',
  'read_text',
  'read_blob',
  'duckdb_columns',
  'duckdb_constraints',
  'duckdb_databases',
  'duckdb_dependencies',
  'duckdb_functions',
  'duckdb_indexes',
  'duckdb_keywords',
  'duckdb_schemas',
  'duckdb_sequences',
  'duckdb_settings',
  'duckdb_tables',
  'duckdb_types',
  'duckdb_views',
  'pragma_table_info',
  'pragma_show',
  'pragma_version',
  'pragma_platform',
]);

/** Names a trusted SQL body calls: `name(`, and the paren-less clock keywords. */
function namesCalledIn(body: string): string[] {
  const out = [...body.matchAll(/"((?:[^"]|"")+)"\s*\(|([A-Za-z_][\w$]*)\s*\(/g)].map((m) =>
    (m[1] ?? m[2]!).replace(/""/g, '"').toLowerCase(),
  );
  for (const m of body.matchAll(/\b(current_date|current_timestamp|current_time|localtime|localtimestamp)\b/gi))
    out.push(m[1]!.toLowerCase());
  return out;
}

export function buildCallPolicy(functions: CatalogFunction[], internalViews: CatalogView[]): CallPolicy {
  const clock = new Set<string>(CLOCK_FUNCTIONS);
  const denied = new Set<string>();
  const macros: CatalogFunction[] = [];
  for (const f of functions) {
    const name = f.name.toLowerCase();
    if (f.type === 'pragma') continue; // only a PRAGMA statement reaches these, and it is refused
    if (clock.has(name) || HARMLESS.has(name)) continue;
    if (f.type === 'macro' || f.type === 'table_macro') macros.push(f);
    else if (f.type === 'table') {
      if (!TABLE_FUNCTIONS.has(name)) denied.add(name);
    } else if (f.stability !== 'CONSISTENT' || f.sideEffects !== false) denied.add(name);
  }
  // A macro is as safe as what it calls; a denial can make another macro unsafe, so iterate.
  for (let changed = true; changed;) {
    changed = false;
    for (const m of macros) {
      const name = m.name.toLowerCase();
      if (denied.has(name)) continue;
      // A built-in macro reading the clock may bind it past the sandbox's shadow: refuse it too.
      if (namesCalledIn(m.body ?? '').some((called) => (denied.has(called) || clock.has(called)) && called !== name)) {
        denied.add(name);
        changed = true;
      }
    }
  }
  const deniedRelations = new Set(
    internalViews.filter((v) => namesCalledIn(v.sql).some((n) => denied.has(n))).map((v) => v.name.toLowerCase()),
  );
  return { denied, unqualifiedOnly: clock, deniedRelations };
}

/** DuckDB's tokenizer output (duckdb-wasm `ScriptTokens`). */
export interface ScriptTokens {
  offsets: number[];
  types: number[];
}

/** duckdb-wasm TokenType. */
const IDENTIFIER = 0;
const OPERATOR = 3;
const KEYWORD = 4;

/** Appended before tokenizing: if the tokenizer stops early (an error), this token is missing. */
export const TOKEN_SENTINEL = '\n__sql_verdict_end__';

export type CallVerdict = { ok: true } | { ok: false; name: string; reason: string; absentFrom?: string };

/** The name a token spells: a quoted identifier unescaped, else the word; lower-case (DuckDB names are case-insensitive). */
function tokenName(slice: string): string | null {
  if (slice.startsWith('"')) {
    const m = /^"((?:[^"]|"")*)"/.exec(slice);
    return m ? m[1]!.replace(/""/g, '"').toLowerCase() : null;
  }
  const m = /^[^\s"'(),;.:[\]{}+\-*/<>=~!@#%^&|`?]+/.exec(slice);
  return m ? m[0].toLowerCase() : null;
}

/**
 * Check the names a statement calls or reads, from the engine's tokens of
 * `sql + TOKEN_SENTINEL`. Refuses text the tokenizer could not read whole.
 */
export function checkCalls(sql: string, tokens: ScriptTokens, policy: CallPolicy): CallVerdict {
  const text = sql + TOKEN_SENTINEL;
  const n = tokens.offsets.length;
  const at = utf8ToIndex(text, tokens.offsets);
  const slice = (i: number) => text.slice(at[i]!, i + 1 < n ? at[i + 1]! : text.length);
  const last = n > 0 ? tokenName(slice(n - 1)) : null;
  if (at.includes(-1) || last !== TOKEN_SENTINEL.trim() || at[n - 1] !== text.length - TOKEN_SENTINEL.trim().length)
    return {
      ok: false,
      name: '',
      reason:
        "The engine's tokenizer could not read the whole text (an unterminated quote or comment, or an unsupported escape).",
    };
  for (let i = 0; i < n - 1; i++) {
    const type = tokens.types[i];
    if (type !== IDENTIFIER && type !== KEYWORD) continue;
    const name = tokenName(slice(i));
    if (!name) continue;
    const called = i + 1 < n - 1 && tokens.types[i + 1] === OPERATOR && slice(i + 1).startsWith('(');
    const qualified = i > 0 && /\.\s*$/.test(stripComments(slice(i - 1)));
    const extension = called ? policy.absent?.get(name) : undefined;
    if (extension)
      return {
        ok: false,
        name,
        absentFrom: extension,
        reason: `Catalog Error: Scalar Function with name ${name} is not in the catalog, but it exists in the ${extension} extension.`,
      };
    if (called && policy.denied.has(name))
      return {
        ok: false,
        name,
        reason: `${name}() is not allowed in the sandbox: it changes or reveals engine state shared between queries.`,
      };
    // A qualified name that is not called is a column (`singer.age`), except the paren-less clock keywords.
    if (qualified && policy.unqualifiedOnly.has(name) && (called || PARENLESS_CLOCK.has(name)))
      return {
        ok: false,
        name,
        reason: `A qualified ${name} is not allowed in the sandbox: call ${name} unqualified (the fixture's clock is frozen).`,
      };
    if (!called && policy.deniedRelations.has(name))
      return { ok: false, name, reason: `${name} is not readable in the sandbox: it holds other queries' text.` };
  }
  return { ok: true };
}

/** The tokenizer counts UTF-8 bytes; map its offsets to string indices (-1 for an offset inside a character). */
function utf8ToIndex(text: string, offsets: number[]): number[] {
  const byIndex = new Map<number, number>();
  let bytes = 0;
  for (let i = 0; i < text.length;) {
    byIndex.set(bytes, i);
    const cp = text.codePointAt(i)!;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    i += cp >= 0x10000 ? 2 : 1;
  }
  byIndex.set(bytes, text.length);
  return offsets.map((o) => byIndex.get(o) ?? -1);
}

/** Remove SQL comments (nested block comments, as DuckDB's scanner reads them) from a token's trailing text. */
function stripComments(s: string): string {
  let out = '';
  let i = 0;
  while (i < s.length) {
    if (s.startsWith('--', i)) {
      const end = s.indexOf('\n', i);
      i = end < 0 ? s.length : end + 1;
    } else if (s.startsWith('/*', i)) {
      let depth = 1;
      i += 2;
      while (i < s.length && depth > 0) {
        if (s.startsWith('/*', i)) {
          depth++;
          i += 2;
        } else if (s.startsWith('*/', i)) {
          depth--;
          i += 2;
        } else i++;
      }
    } else out += s[i++];
  }
  return out;
}
