/**
 * What a PostgreSQL session needs from its connection: PGlite in a worker,
 * or a server through node-postgres. Every value arrives as PostgreSQL's own
 * text (see types.ts); errors are thrown with their SQLSTATE in `code`.
 */

export interface PgField {
  name: string;
  /** pg_type oid of the column. */
  oid: number;
}

export interface PgRows {
  fields: PgField[];
  rows: (string | null)[][];
  /** The command tag's verb: SELECT, SHOW, ... */
  command: string;
}

export interface PgDriver {
  /** "PostgreSQL 18.6 (PGlite 0.5.16)", "PostgreSQL 15.14 (server)". */
  version(): Promise<string>;
  /** One statement through the extended protocol (which refuses a second one), values as text. */
  query(sql: string): Promise<PgRows>;
  /** A trusted script of any number of statements (simple protocol). */
  exec(sql: string): Promise<void>;
  /** Make the driver read types created since it started (a fixture's enums, domains) as text too. */
  refreshTypes(): Promise<void>;
  close(): Promise<void>;
}

/** The SQLSTATE of a thrown PostgreSQL error, if it is one. */
export function sqlStateOf(thrown: unknown): string | undefined {
  const code = (thrown as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
