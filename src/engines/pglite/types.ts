/**
 * PostgreSQL values, read from their text output into the exact value model
 * (src/core/value/kind.ts). Both PostgreSQL engines (PGlite, a server through
 * node-postgres) hand over every value as PostgreSQL's own text, with the
 * session pinned to `TimeZone=UTC`, `DateStyle=ISO`, `IntervalStyle=postgres`
 * and `extra_float_digits=1`, so a value is decoded by meaning from its type
 * alone — never through a JavaScript Date or a float.
 */
import type { Cell, Column, Kind } from '../../core/value/kind.ts';

/** One row of pg_type, reduced: the name PostgreSQL prints, its element (arrays) and category. */
export interface PgType {
  oid: number;
  /** `format_type(oid, NULL)`: bigint, numeric, timestamp with time zone, integer[]. */
  name: string;
  /** Element type of an array type (0 otherwise). */
  elem: number;
  /** pg_type.typcategory: A array, E enum, C composite, ... */
  category: string;
}

export type TypeCatalog = Map<number, PgType>;

/** The catalog query both engines run once per session. */
export const TYPE_CATALOG_SQL =
  'SELECT oid::int4, format_type(oid, NULL), typelem::int4, typcategory::text FROM pg_catalog.pg_type';

export function typeCatalogOf(rows: (string | null)[][]): TypeCatalog {
  const catalog: TypeCatalog = new Map();
  for (const [oid, name, elem, category] of rows)
    catalog.set(Number(oid), { oid: Number(oid), name: String(name), elem: Number(elem), category: String(category) });
  return catalog;
}

const SCALAR_KINDS: Record<string, Kind> = {
  smallint: 'integer',
  integer: 'integer',
  bigint: 'integer',
  oid: 'integer',
  xid: 'integer',
  cid: 'integer',
  numeric: 'decimal',
  real: 'float',
  'double precision': 'float',
  text: 'text',
  'character varying': 'text',
  character: 'text',
  name: 'text',
  '"char"': 'text',
  unknown: 'text',
  citext: 'text',
  boolean: 'boolean',
  date: 'date',
  'timestamp without time zone': 'timestamp',
  'timestamp with time zone': 'timestamptz',
  'time without time zone': 'time',
  interval: 'interval',
  bytea: 'blob',
};

/** The column of a result field: the type PostgreSQL names, its kind, and for arrays the element column. */
export function columnOf(name: string, oid: number, catalog: TypeCatalog): Column {
  const type = catalog.get(oid);
  if (!type) return { name, engineType: `oid ${oid}`, kind: 'other' };
  // record[] is a pseudo-type (category P), still an array of its element.
  if (type.elem !== 0 && (type.category === 'A' || type.name.endsWith('[]'))) {
    const element = columnOf('element', type.elem, catalog);
    return { name, engineType: type.name, kind: 'list', children: [element] };
  }
  return { name, engineType: type.name, kind: SCALAR_KINDS[type.name] ?? 'other' };
}

const SAFE = 9007199254740991n;

function integerCell(text: string): Cell {
  const n = BigInt(text);
  return n >= -SAFE && n <= SAFE ? Number(n) : n;
}

function floatCell(text: string): number {
  if (text === 'NaN') return NaN;
  if (text === 'Infinity') return Infinity;
  if (text === '-Infinity') return -Infinity;
  return Number(text);
}

/** PostgreSQL writes BC years as `0044-03-15 BC`; the value model writes the astronomical year (1 BC is year 0). */
function bcToAstronomical(text: string): string {
  const m = /^(\d{4,})(-.*?)(?: BC)$/.exec(text);
  if (!m) return text;
  const year = 1 - Number(m[1]);
  const digits = String(Math.abs(year)).padStart(year === 0 ? 4 : 6, '0');
  return `${year < 0 ? '-' : year === 0 ? '' : '+'}${digits}${m[2]}`;
}

function temporalText(text: string): string {
  if (text.endsWith(' BC')) return bcToAstronomical(text);
  // Years past 9999 print with more digits; the value model writes them signed, six or more digits.
  const m = /^(\d{5,})(-.*)$/.exec(text);
  return m ? `+${m[1]!.padStart(6, '0')}${m[2]}` : text;
}

function bytesOfHex(text: string): Uint8Array {
  const hex = text.startsWith('\\x') ? text.slice(2) : text;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

const PG_INTERVAL =
  /^(?:([+-]?\d+) years? ?)?(?:([+-]?\d+) mons? ?)?(?:([+-]?\d+) days? ?)?([+-]?\d+:\d\d:\d\d(?:\.\d+)?)?$/;

/**
 * PostgreSQL's interval text (IntervalStyle postgres: `1 year 2 mons`, `-1 days +02:00:00`) in DuckDB's
 * form (`1 year 2 months`, `-1 day 02:00:00`). Intervals compare as text (their months, days and
 * microseconds apart), so the same interval must read the same from every engine: PostgreSQL's
 * `1 mon` against DuckDB's `1 month` was a value mismatch. Months carry years as DuckDB prints them
 * (years = months / 12 truncated, the rest as months, one sign each); a unit is plural unless ±1.
 */
export function intervalText(text: string): string {
  const m = PG_INTERVAL.exec(text);
  if (!m || text === '') return text;
  const months = 12 * Number(m[1] ?? 0) + Number(m[2] ?? 0);
  const years = Math.trunc(months / 12);
  const rest = months - years * 12;
  const days = Number(m[3] ?? 0);
  const unit = (n: number, name: string) => `${n} ${name}${Math.abs(n) === 1 ? '' : 's'}`;
  const parts: string[] = [];
  if (years !== 0) parts.push(unit(years, 'year'));
  if (rest !== 0) parts.push(unit(rest, 'month'));
  if (days !== 0) parts.push(unit(days, 'day'));
  const time = m[4]?.replace(/^\+/, '');
  if (time !== undefined && !/^-?0+:00:00$/.test(time)) parts.push(time);
  return parts.length ? parts.join(' ') : '00:00:00';
}

/** One value, from PostgreSQL's text output, by its column. */
export function cellOf(column: Column, text: string | null): Cell {
  if (text === null) return null;
  switch (column.kind) {
    case 'integer':
      return integerCell(text);
    case 'decimal':
      return text;
    case 'float':
      // A real is a float32: PostgreSQL prints its shortest text (0.1), DuckDB and Arrow hand over the
      // float32 itself (0.10000000149011612). Read the float32 so the same value is the same number.
      return column.engineType === 'real' ? Math.fround(floatCell(text)) : floatCell(text);
    case 'boolean':
      return text === 't' || text === 'true';
    case 'date':
    case 'timestamp':
    case 'timestamptz':
      return temporalText(text);
    case 'interval':
      return intervalText(text);
    case 'blob':
      return bytesOfHex(text);
    case 'list':
      return parseArray(text, column.children![0]!);
    default:
      return text;
  }
}

/**
 * A PostgreSQL array literal (`{1,2}`, `{{1,2},{3,4}}`, `{"a b",NULL,"c\"d"}`,
 * `[0:1]={1,2}`) into nested lists, each element decoded by the element column.
 */
export function parseArray(text: string, element: Column): Cell {
  let i = 0;
  if (text[0] === '[') i = text.indexOf('=') + 1; // explicit bounds: shapeArrayColumn keeps such a column as text
  const readList = (): Cell[] => {
    const out: Cell[] = [];
    i++; // '{'
    if (text[i] === '}') {
      i++;
      return out;
    }
    for (;;) {
      if (text[i] === '{') out.push(readList());
      else if (text[i] === '"') {
        let value = '';
        i++;
        while (text[i] !== '"') {
          if (text[i] === '\\') i++;
          value += text[i];
          i++;
        }
        i++;
        out.push(cellOf(element, value));
      } else {
        let end = i;
        while (text[end] !== ',' && text[end] !== '}') end++;
        const raw = text.slice(i, end);
        i = end;
        out.push(raw === 'NULL' ? null : cellOf(element, raw));
      }
      if (text[i] === ',') {
        i++;
        continue;
      }
      i++; // '}'
      return out;
    }
  };
  return readList();
}

/** How deep a decoded array value nests (0: no non-empty value tells). */
function depthOf(cell: Cell): number {
  if (!Array.isArray(cell)) return 0;
  for (const element of cell)
    if (element !== null) return Array.isArray(element) ? 1 + Math.max(1, depthOf(element)) : 1;
  return 1;
}

/**
 * PostgreSQL names every array `integer[]` whatever its dimensions, and each
 * value has its own: a column whose values are all two-dimensional gets a
 * list-of-lists column; a column mixing dimensions, or with an array whose lower bound is not 1, is the
 * engine's text (other).
 */
export function shapeArrayColumn(
  column: Column,
  cells: Cell[],
  texts: (string | null)[],
): { column: Column; cells: Cell[] } {
  // PostgreSQL writes bounds only when a lower bound is not 1 ('[2:3]={1,2}'), and such an array is another
  // value: '[2:3]={1,2}' = ARRAY[1,2] is false there. Read as elements alone, the two were equal.
  if (texts.some((text) => text !== null && text.startsWith('[')))
    return { column: { name: column.name, engineType: column.engineType, kind: 'other' }, cells: texts };
  const depths = new Set<number>();
  for (const cell of cells) {
    if (!Array.isArray(cell) || cell.length === 0 || cell.every((e) => e === null)) continue;
    depths.add(depthOf(cell));
  }
  if (depths.size === 0 || (depths.size === 1 && depths.has(1))) return { column, cells };
  if (depths.size > 1)
    return { column: { name: column.name, engineType: column.engineType, kind: 'other' }, cells: texts };
  const depth = [...depths][0]!;
  let shaped: Column = column.children![0]!;
  for (let level = 0; level < depth; level++)
    shaped = {
      name: level === depth - 1 ? column.name : 'element',
      engineType: column.engineType,
      kind: 'list',
      children: [shaped],
    };
  return { column: shaped, cells };
}
