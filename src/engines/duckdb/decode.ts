/**
 * Arrow (as DuckDB-WASM returns it) → the exact value model. Values are read
 * from the raw buffers where Arrow's convenience getters lose precision:
 * DECIMAL arrives unscaled ("1250" for 12.50), TIMESTAMP through `get()` is a
 * float of milliseconds (microseconds lost past ~2255), HUGEINT is a 128-bit
 * decimal. See ENGINE-NOTES "Values".
 */
import { type Data, type DataType, type RecordBatch, type Table, Type, type Vector } from 'apache-arrow';
import { decimalFromUnscaled } from '../../core/value/decimal.ts';
import type { Cell, Column, Kind } from '../../core/value/kind.ts';
import { dateFromEpochDays, timeFromMicros, timestampFromEpochMicros } from '../../core/value/temporal.ts';

const INT64_MAX = 9223372036854775807n;
const DATE_INFINITY_DAYS = 2147483647;

/** DuckDB type names whose Arrow form is lossy or unreadable here: the gate casts them to VARCHAR. */
const CAST_TO_TEXT = /\b(INTERVAL|TIMESTAMP_NS|TIMESTAMP WITH TIME ZONE_NS|TIME WITH TIME ZONE|TIMETZ|UUID|MAP|UNION|BIT|BITSTRING|ENUM|JSON|VARINT|BIGNUM|GEOMETRY)\b/i;

export function needsTextCast(engineType: string): boolean {
  return CAST_TO_TEXT.test(engineType);
}

/** The portable kind of a DuckDB type name (as DESCRIBE prints it). */
export function kindOfDuckDbType(engineType: string): Kind {
  const t = engineType.toUpperCase().trim();
  if (t.endsWith(']')) return needsTextCast(t) ? 'other' : 'list';
  if (t.startsWith('STRUCT')) return needsTextCast(t) ? 'other' : 'struct';
  if (t === 'INTERVAL') return 'interval';
  if (/^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT)$/.test(t)) return 'integer';
  if (t.startsWith('DECIMAL')) return 'decimal';
  if (t === 'FLOAT' || t === 'DOUBLE') return 'float';
  if (t === 'VARCHAR' || t.startsWith('ENUM') || t === 'JSON') return 'text';
  if (t === 'BOOLEAN') return 'boolean';
  if (t === 'DATE') return 'date';
  if (t === 'TIMESTAMP WITH TIME ZONE' || t === 'TIMESTAMPTZ') return 'timestamptz';
  if (t.startsWith('TIMESTAMP')) return 'timestamp';
  if (t === 'TIME') return 'time';
  if (t === 'BLOB') return 'blob';
  if (t === '"NULL"' || t === 'NULL') return 'null';
  return 'other';
}

type Reader = (index: number) => Cell;

function validity(data: Data): (index: number) => boolean {
  const bitmap = data.nullBitmap;
  if (!bitmap || data.nullCount === 0) return () => true;
  const offset = data.offset;
  return (i) => {
    const bit = offset + i;
    return ((bitmap[bit >> 3]! >> (bit & 7)) & 1) === 1;
  };
}

function int64ToCell(v: bigint): number | bigint {
  return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
}

function int128(words: Uint32Array, at: number, signed: boolean): bigint {
  const value =
    BigInt(words[at]!) |
    (BigInt(words[at + 1]!) << 32n) |
    (BigInt(words[at + 2]!) << 64n) |
    (BigInt(words[at + 3]!) << 96n);
  return signed && words[at + 3]! & 0x80000000 ? value - (1n << 128n) : value;
}

/** A reader for one Arrow Data chunk. `asInteger` decodes scale-0 decimals as integers (HUGEINT). */
function readerFor(data: Data, vector: Vector, asInteger = false): Reader {
  const valid = validity(data);
  const offset = data.offset;
  const type = data.type as DataType;
  const wrap = (read: Reader): Reader => (i) => (valid(i) ? read(i) : null);
  switch (type.typeId) {
    case Type.Null:
      return () => null;
    case Type.Bool:
      return wrap((i) => vector.get(i) as boolean);
    case Type.Int: {
      const values = data.values as ArrayLike<number | bigint>;
      const bits = (type as unknown as { bitWidth: number }).bitWidth;
      return bits === 64
        ? wrap((i) => int64ToCell(values[offset + i] as bigint))
        : wrap((i) => values[offset + i] as number);
    }
    case Type.Float: {
      const values = data.values as Float64Array | Float32Array;
      return wrap((i) => values[offset + i]!);
    }
    case Type.Decimal: {
      const words = data.values as Uint32Array;
      const scale = (type as unknown as { scale: number }).scale;
      const stride = ((type as unknown as { bitWidth?: number }).bitWidth ?? 128) / 32;
      if (stride !== 4) return wrap((i) => String(vector.get(i)));
      return asInteger && scale === 0
        ? wrap((i) => int64ToCell(int128(words, (offset + i) * 4, true)))
        : wrap((i) => decimalFromUnscaled(int128(words, (offset + i) * 4, true), scale));
    }
    case Type.Utf8:
    case Type.LargeUtf8:
    case Type.Dictionary:
      return wrap((i) => String(vector.get(i)));
    case Type.Binary:
    case Type.LargeBinary:
    case Type.FixedSizeBinary:
      return wrap((i) => (vector.get(i) as Uint8Array).slice());
    case Type.Date: {
      const unit = (type as unknown as { unit: number }).unit;
      const values = data.values as Int32Array | BigInt64Array;
      return wrap((i) => {
        const raw = values[offset + i]!;
        const days = unit === 0 ? Number(raw) : Math.floor(Number(raw) / 86_400_000);
        if (days >= DATE_INFINITY_DAYS) return 'infinity';
        if (days <= -DATE_INFINITY_DAYS) return '-infinity';
        return dateFromEpochDays(days);
      });
    }
    case Type.Timestamp: {
      const t = type as unknown as { unit: number; timezone?: string | null };
      const values = data.values as BigInt64Array;
      const toMicros = [1_000_000n, 1_000n, 1n, 0n][t.unit] ?? 1n; // SECOND, MILLISECOND, MICROSECOND, NANOSECOND
      const suffix = t.timezone ? '+00' : '';
      return wrap((i) => {
        const raw = values[offset + i]!;
        if (raw >= INT64_MAX) return 'infinity';
        if (raw <= -INT64_MAX) return '-infinity';
        const micros = toMicros === 0n ? raw / 1000n : raw * toMicros;
        return timestampFromEpochMicros(micros) + suffix;
      });
    }
    case Type.Time: {
      const t = type as unknown as { unit: number };
      const values = data.values as BigInt64Array | Int32Array;
      const toMicros = [1_000_000n, 1_000n, 1n, 0n][t.unit] ?? 1n;
      return wrap((i) => {
        const raw = BigInt(values[offset + i]!);
        return timeFromMicros(toMicros === 0n ? raw / 1000n : raw * toMicros);
      });
    }
    case Type.List:
    case Type.FixedSizeList:
      return wrap((i) => decodeVector(vector.get(i) as Vector));
    case Type.Struct: {
      const children = (type as unknown as { children: { name: string }[] }).children;
      const fieldReaders = children.map((field, f) => {
        const child = vector.getChildAt(f)!;
        return { name: field.name, read: readerFor(child.data[0]!, child) };
      });
      return wrap((i) => {
        const out: { [field: string]: Cell } = {};
        for (const field of fieldReaders) out[field.name] = field.read(i);
        return out;
      });
    }
    default:
      return wrap((i) => String(vector.get(i)));
  }
}

/** Decode a whole vector (possibly several chunks) into cells. */
export function decodeVector(vector: Vector): Cell[] {
  const out: Cell[] = new Array(vector.length);
  let base = 0;
  for (const data of vector.data) {
    const chunk = new (vector.constructor as new (d: Data[]) => Vector)([data]);
    const read = readerFor(data, chunk);
    for (let i = 0; i < data.length; i++) out[base + i] = read(i);
    base += data.length;
  }
  return out;
}

/**
 * Decode record batches into rows, reading columns by index (never by name:
 * duplicate output names are legal SQL).
 */
export function decodeBatches(batches: Iterable<RecordBatch>, columns: Column[], into: Cell[][] = []): Cell[][] {
  const width = columns.length;
  for (const batch of batches) {
    const readers: Reader[] = [];
    for (let c = 0; c < width; c++) {
      const vector = batch.getChildAt(c)!;
      readers.push(readerFor(vector.data[0]!, vector, columns[c]!.kind === 'integer'));
    }
    for (let r = 0; r < batch.numRows; r++) {
      const row: Cell[] = new Array(width);
      for (let c = 0; c < width; c++) row[c] = readers[c]!(r);
      into.push(row);
    }
  }
  return into;
}

export function decodeTable(table: Table, columns: Column[]): Cell[][] {
  return decodeBatches(table.batches, columns);
}

/** Nested column description from an Arrow field type, for list element and struct field kinds. */
export function childrenOf(type: DataType): Column[] | undefined {
  const children = (type as unknown as { children?: { name: string; type: DataType }[] }).children;
  if (!children || children.length === 0) return undefined;
  return children.map((child) => ({
    name: child.name,
    engineType: String(child.type),
    kind: kindOfArrowType(child.type),
    children: childrenOf(child.type),
  }));
}

function kindOfArrowType(type: DataType): Kind {
  switch (type.typeId) {
    case Type.Int:
      return 'integer';
    case Type.Float:
      return 'float';
    case Type.Decimal:
      return 'decimal';
    case Type.Utf8:
    case Type.LargeUtf8:
    case Type.Dictionary:
      return 'text';
    case Type.Bool:
      return 'boolean';
    case Type.Date:
      return 'date';
    case Type.Timestamp:
      return (type as unknown as { timezone?: string | null }).timezone ? 'timestamptz' : 'timestamp';
    case Type.Time:
      return 'time';
    case Type.Binary:
    case Type.LargeBinary:
    case Type.FixedSizeBinary:
      return 'blob';
    case Type.List:
    case Type.FixedSizeList:
      return 'list';
    case Type.Struct:
      return 'struct';
    case Type.Null:
      return 'null';
    default:
      return 'other';
  }
}
