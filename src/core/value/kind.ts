/**
 * The exact value model every engine result is decoded into.
 *
 * A result is a list of columns (name, the engine's own type name, and a
 * portable `kind`) and rows of cells. Cells are plain JavaScript values so
 * they survive structured cloning (workers) unchanged; their meaning is fixed
 * by the column kind:
 *
 * | kind        | cell                                                        |
 * |-------------|-------------------------------------------------------------|
 * | integer     | `number` when a safe integer, otherwise `bigint`            |
 * | decimal     | canonical decimal text keeping its scale: `"12.50"`         |
 * | float       | `number` (NaN, ±Infinity and -0 kept)                       |
 * | text        | `string`                                                    |
 * | boolean     | `boolean`                                                   |
 * | date        | `"YYYY-MM-DD"` (years outside 0000–9999: `±YYYYYY`, six or more digits), `"infinity"` |
 * | timestamp   | `"YYYY-MM-DD HH:MM:SS[.ffffff]"` to the microsecond (TIMESTAMP_NS: nine digits) |
 * | timestamptz | as timestamp, in UTC, suffixed `+00`                         |
 * | time        | `"HH:MM:SS[.ffffff]"`                                        |
 * | interval    | DuckDB's canonical text, e.g. `"3 days 04:00:00"` (PostgreSQL's is rewritten to it) |
 * | blob        | `Uint8Array`                                                 |
 * | list        | `Cell[]` (elements decoded by the same rules)                |
 * | struct      | `{ [field]: Cell }`                                          |
 * | null        | always `null` (a column of the NULL type)                    |
 * | other       | the engine's canonical text, or mixed JS values (SQLite)     |
 *
 * NULL is `null` in every kind.
 */
export const KINDS = [
  'integer',
  'decimal',
  'float',
  'text',
  'boolean',
  'date',
  'timestamp',
  'timestamptz',
  'time',
  'interval',
  'blob',
  'list',
  'struct',
  'null',
  'other',
] as const;

export type Kind = (typeof KINDS)[number];

export type Cell = null | boolean | number | bigint | string | Uint8Array | Cell[] | { [field: string]: Cell };

export interface Column {
  /** The output name as the engine reports it (duplicates allowed). */
  name: string;
  /** The engine's own type name, e.g. `DECIMAL(18,2)`, `BIGINT`, `REAL`. */
  engineType: string;
  kind: Kind;
  /** For `list`: one child, the element; for `struct`: one child per field. */
  children?: Column[];
}

/** A materialized result: columns and rows of cells (see {@link Kind}). */
export interface ResultTable {
  columns: Column[];
  rows: Cell[][];
}

export function isKind(value: unknown): value is Kind {
  return typeof value === 'string' && (KINDS as readonly string[]).includes(value);
}

/** Kinds whose cells are numbers in the mathematical sense. */
export function isNumericKind(kind: Kind): boolean {
  return kind === 'integer' || kind === 'decimal' || kind === 'float';
}

export function isTemporalKind(kind: Kind): boolean {
  return kind === 'date' || kind === 'timestamp' || kind === 'timestamptz' || kind === 'time';
}

/**
 * Set a struct cell's field. A plain `out[name] = value` would not create a field named
 * `__proto__` (it sets the object's prototype, or is ignored for a non-object), so
 * `{'__proto__': 1}` and `{'__proto__': 2}` would both decode to `{}` and compare equal:
 * that one name is defined as an own property instead (also when encoding to JSON).
 */
export function setField<T>(struct: { [field: string]: T }, name: string, value: T): void {
  if (name === '__proto__')
    Object.defineProperty(struct, name, { value, enumerable: true, writable: true, configurable: true });
  else struct[name] = value;
}
