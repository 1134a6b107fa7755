/**
 * The JSON form of cells, used by reports, frozen `expected` results in
 * corpora, and `sql-verdict query --json`. Exact by construction:
 *
 * - integer: a JSON number when |v| ≤ 2^53 − 1, otherwise a string of digits;
 * - decimal: a string keeping its scale ("12.50"); a JSON number is accepted
 *   on input (hand-written corpora) and read by its printed digits;
 * - float: a JSON number, or one of "NaN", "Infinity", "-Infinity", "-0";
 * - blob: lowercase hex;
 * - list: an array, struct: an object, both encoded by their children's kinds;
 * - other: strings, numbers and booleans as themselves, `{"$bigint": "…"}`
 *   and `{"$blob": "hex"}` for the rest;
 * - every other kind: the text form of the value model; NULL is null.
 */
import { floatToDecimalText, isDecimalText } from './decimal.ts';
import { isDateText, isTimestampText } from './temporal.ts';
import { isKind, setField, type Cell, type Column, type Kind, type ResultTable } from './kind.ts';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export class CodecError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = 'CodecError';
  }
}

export function bytesToHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

export function hexToBytes(hex: string): Uint8Array | null {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return null;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function encodeFloat(value: number): JsonValue {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  if (Object.is(value, -0)) return '-0';
  return value;
}

export function encodeCell(column: Pick<Column, 'kind' | 'children'>, cell: Cell): JsonValue {
  if (cell === null) return null;
  switch (column.kind) {
    case 'integer':
      if (typeof cell === 'bigint') {
        const asNumber = Number(cell);
        return Number.isSafeInteger(asNumber) && BigInt(asNumber) === cell ? asNumber : cell.toString();
      }
      return cell as number;
    case 'float':
      return typeof cell === 'number' ? encodeFloat(cell) : encodeOther(cell);
    case 'blob':
      return cell instanceof Uint8Array ? bytesToHex(cell) : encodeOther(cell);
    case 'list': {
      const element = column.children?.[0] ?? { kind: 'other' as Kind };
      return Array.isArray(cell) ? cell.map((c) => encodeCell(element, c)) : encodeOther(cell);
    }
    case 'struct': {
      if (typeof cell !== 'object' || Array.isArray(cell) || cell instanceof Uint8Array) return encodeOther(cell);
      const out: { [key: string]: JsonValue } = {};
      const fields = new Map((column.children ?? []).map((c) => [c.name, c]));
      for (const [key, value] of Object.entries(cell))
        setField(out, key, encodeCell(fields.get(key) ?? { kind: 'other' }, value));
      return out;
    }
    case 'other':
      return encodeOther(cell);
    default:
      return typeof cell === 'string' || typeof cell === 'boolean' ? cell : encodeOther(cell);
  }
}

function encodeOther(cell: Cell): JsonValue {
  if (cell === null || typeof cell === 'string' || typeof cell === 'boolean') return cell;
  if (typeof cell === 'number') return encodeFloat(cell);
  if (typeof cell === 'bigint') return { $bigint: cell.toString() };
  if (cell instanceof Uint8Array) return { $blob: bytesToHex(cell) };
  if (Array.isArray(cell)) return cell.map(encodeOther);
  const out: { [key: string]: JsonValue } = {};
  for (const [key, value] of Object.entries(cell)) setField(out, key, encodeOther(value));
  return out;
}

function describe(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export function decodeCell(column: Pick<Column, 'kind' | 'children'>, value: unknown, path = 'cell'): Cell {
  if (value === null) return null;
  const fail = (expected: string): never => {
    throw new CodecError(path, `expected ${expected} for a ${column.kind} column, got ${describe(value)}`);
  };
  switch (column.kind) {
    case 'integer':
      if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
      if (typeof value === 'string' && /^-?\d+$/.test(value)) {
        const big = BigInt(value);
        const asNumber = Number(big);
        return Number.isSafeInteger(asNumber) ? asNumber : big;
      }
      return fail('an integer (a number, or a string of digits beyond 2^53)');
    case 'decimal':
      if (typeof value === 'string' && isDecimalText(value)) return value;
      // A JSON (or YAML) number is a double: its printed digits are the written ones only for an
      // integer below 2^53 or up to 15 significant digits. Beyond, the parser has already rounded it
      // (12345678901234567890.12 arrives as 12345678901234567000), and taking those digits would make
      // the frozen value another number: it must be written as text.
      if (typeof value === 'number' && Math.abs(value) <= Number.MAX_SAFE_INTEGER) {
        const text = floatToDecimalText(value);
        const digits = text?.replace(/^-|\./g, '').replace(/^0+/, '').replace(/0+$/, '') ?? '';
        if (text !== null && (Number.isSafeInteger(value) || digits.length <= 15)) return text;
      }
      return fail('decimal text such as "12.50" (a number only up to 15 significant digits)');
    case 'float':
      if (typeof value === 'number') return value;
      if (value === 'NaN') return NaN;
      if (value === 'Infinity') return Infinity;
      if (value === '-Infinity') return -Infinity;
      if (value === '-0') return -0;
      return fail('a number or "NaN", "Infinity", "-Infinity", "-0"');
    case 'boolean':
      return typeof value === 'boolean' ? value : fail('true or false');
    case 'text':
    case 'interval':
      return typeof value === 'string' ? value : fail('a string');
    case 'date':
      return typeof value === 'string' && isDateText(value) ? value : fail('a date "YYYY-MM-DD"');
    case 'timestamp':
    case 'timestamptz': {
      if (typeof value !== 'string' || !isTimestampText(value))
        return fail('a timestamp "YYYY-MM-DD HH:MM:SS[.ffffff]"');
      if (value === 'infinity' || value === '-infinity') return value;
      // The "+00" suffix is what the comparison reads as "an instant": a timestamptz is UTC with or
      // without it, a local timestamp never has it. Taken as written, a timestamptz without it never
      // equalled the engine's "… +00" (and equalled a local TIMESTAMP or DATE instead), and a local
      // timestamp with it never equalled the engine's TIMESTAMP.
      const local = value.replace('T', ' ').replace(/\+00$/, '');
      return column.kind === 'timestamptz' ? `${local}+00` : local;
    }
    case 'time':
      return typeof value === 'string' && /^\d{2}:\d{2}:\d{2}(\.\d{1,9})?$/.test(value)
        ? value
        : fail('a time "HH:MM:SS"');
    case 'blob': {
      const bytes = typeof value === 'string' ? hexToBytes(value) : null;
      return bytes ?? fail('hex text');
    }
    case 'list': {
      if (!Array.isArray(value)) return fail('an array');
      const element = column.children?.[0] ?? { kind: 'other' as Kind };
      return value.map((v, i) => decodeCell(element, v, `${path}[${i}]`));
    }
    case 'struct': {
      if (typeof value !== 'object' || Array.isArray(value)) return fail('an object');
      const fields = new Map((column.children ?? []).map((c) => [c.name, c]));
      const out: { [key: string]: Cell } = {};
      for (const [key, v] of Object.entries(value as object))
        setField(out, key, decodeCell(fields.get(key) ?? { kind: 'other' }, v, `${path}.${key}`));
      return out;
    }
    case 'null':
      return fail('null');
    case 'other':
      return decodeOther(value, path);
  }
}

function decodeOther(value: unknown, path: string): Cell {
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number')
    return value;
  if (Array.isArray(value)) return value.map((v, i) => decodeOther(v, `${path}[${i}]`));
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if (typeof record.$bigint === 'string' && /^-?\d+$/.test(record.$bigint)) return BigInt(record.$bigint);
    if (typeof record.$blob === 'string') {
      const bytes = hexToBytes(record.$blob);
      if (bytes) return bytes;
    }
    const out: { [key: string]: Cell } = {};
    for (const [key, v] of Object.entries(record)) setField(out, key, decodeOther(v, `${path}.${key}`));
    return out;
  }
  throw new CodecError(path, `unsupported value ${describe(value)}`);
}

export interface JsonColumn {
  name: string;
  kind: Kind;
  engine_type?: string;
  children?: JsonColumn[];
}

export interface JsonResultTable {
  columns: JsonColumn[];
  rows: JsonValue[][];
}

function columnToJson(column: Column): JsonColumn {
  const out: JsonColumn = { name: column.name, kind: column.kind, engine_type: column.engineType };
  if (column.children) out.children = column.children.map(columnToJson);
  return out;
}

export function encodeResultTable(table: ResultTable): JsonResultTable {
  return {
    columns: table.columns.map(columnToJson),
    rows: table.rows.map((row) => row.map((cell, i) => encodeCell(table.columns[i] ?? { kind: 'other' }, cell))),
  };
}

function columnFromJson(value: unknown, path: string): Column {
  if (typeof value === 'string') return { name: value, engineType: '', kind: 'other' };
  if (typeof value !== 'object' || value === null)
    throw new CodecError(path, 'a column must be an object {name, kind}');
  const record = value as Record<string, unknown>;
  if (typeof record.name !== 'string') throw new CodecError(`${path}.name`, 'a column needs a string name');
  if (!isKind(record.kind)) throw new CodecError(`${path}.kind`, `unknown kind ${describe(record.kind)}`);
  const engineType = record.engine_type ?? record.engineType ?? '';
  const column: Column = { name: record.name, engineType: String(engineType), kind: record.kind };
  if (Array.isArray(record.children))
    column.children = record.children.map((c, i) => columnFromJson(c, `${path}.children[${i}]`));
  return column;
}

/** Decode `{columns, rows}` as written in a report or a corpus; errors name the path. */
export function decodeResultTable(value: unknown, path = 'expected'): ResultTable {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new CodecError(path, 'expected an object {columns, rows}');
  const record = value as Record<string, unknown>;
  if (!Array.isArray(record.columns)) throw new CodecError(`${path}.columns`, 'expected an array of columns');
  if (!Array.isArray(record.rows)) throw new CodecError(`${path}.rows`, 'expected an array of rows');
  const columns = record.columns.map((c, i) => columnFromJson(c, `${path}.columns[${i}]`));
  const rows = record.rows.map((row, r) => {
    if (!Array.isArray(row)) throw new CodecError(`${path}.rows[${r}]`, 'a row must be an array');
    if (row.length !== columns.length)
      throw new CodecError(`${path}.rows[${r}]`, `has ${row.length} cells, the columns say ${columns.length}`);
    return row.map((cell, c) => decodeCell(columns[c]!, cell, `${path}.rows[${r}][${c}]`));
  });
  return { columns, rows };
}
