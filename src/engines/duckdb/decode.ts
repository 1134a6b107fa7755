/**
 * Arrow (as DuckDB-WASM returns it) → the exact value model.
 *
 * One reader per Arrow `Data`, reading a row by its index whatever the
 * nesting: a list reads its elements from the child `Data` through the value
 * offsets, a fixed-size list at `index × size`, a struct its fields at the
 * same index. Nothing is sliced, so no offset is ever applied twice (with
 * apache-arrow 17 a sliced `Data` has its value buffers already cut at the
 * offset, but not its validity bitmap or boolean bits: the reader follows the
 * same convention as Arrow's own getters).
 *
 * Values are read from the raw buffers where Arrow's convenience getters lose
 * precision: DECIMAL arrives unscaled, TIMESTAMP through `get()` is a float of
 * milliseconds, HUGEINT is a 128-bit decimal, UHUGEINT 16 little-endian bytes.
 * The column (from DuckDB's own type names, see types.ts) says what a buffer
 * means where Arrow cannot: HUGEINT vs DECIMAL(38,0), UHUGEINT vs bytes.
 * See ENGINE-NOTES "Values".
 */
import { type Data, type DataType, type RecordBatch, type Table, Type, makeVector } from 'apache-arrow';
import { decimalFromUnscaled } from '../../core/value/decimal.ts';
import { type Cell, type Column, setField } from '../../core/value/kind.ts';
import { dateFromEpochDays, timeFromMicros, timestampFromEpochMicros } from '../../core/value/temporal.ts';
import type { ResultCodec } from './session.ts';

export { arrowCastOf, duckDbColumn } from './types.ts';

const INT64_MAX = 9223372036854775807n;
const DATE_INFINITY_DAYS = 2147483647;
const utf8 = new TextDecoder('utf-8');

type Reader = (index: number) => Cell;

function validity(data: Data): (index: number) => boolean {
  const bitmap = data.nullBitmap;
  if (!bitmap || bitmap.length === 0 || data.nullCount === 0) return () => true;
  // The bitmap is never cut by a slice: it is read at offset + index.
  const offset = data.offset;
  return (i) => {
    const bit = offset + i;
    return ((bitmap[bit >> 3]! >> (bit & 7)) & 1) === 1;
  };
}

function safe(v: bigint): number | bigint {
  return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
}

/** A little-endian integer of `words` 32-bit words starting at word `at`. */
function wideInteger(words: Uint32Array, at: number, count: number, signed: boolean): bigint {
  let value = 0n;
  for (let w = count - 1; w >= 0; w--) value = (value << 32n) | BigInt(words[at + w]!);
  return signed && words[at + count - 1]! & 0x80000000 ? value - (1n << BigInt(32 * count)) : value;
}

function unsignedFromBytes(bytes: Uint8Array, at: number, width: number): bigint {
  let value = 0n;
  for (let b = width - 1; b >= 0; b--) value = (value << 8n) | BigInt(bytes[at + b]!);
  return value;
}

function isUnsignedHuge(column: Column | undefined): boolean {
  return column?.kind === 'integer' && /^UHUGEINT$/i.test(column.engineType);
}

/**
 * The reader of one Arrow `Data`: row index → cell. `column` (optional)
 * carries DuckDB's type for this node; without it the Arrow type decides.
 */
export function readerFor(data: Data, column?: Column): Reader {
  const valid = validity(data);
  const type = data.type as DataType;
  const wrap =
    (read: Reader): Reader =>
    (i) =>
      valid(i) ? read(i) : null;
  switch (type.typeId) {
    case Type.Null:
      return () => null;
    case Type.Bool: {
      // Boolean bits are not cut by a slice either.
      const bits = data.values as Uint8Array;
      const offset = data.offset;
      return wrap((i) => ((bits[(offset + i) >> 3]! >> ((offset + i) & 7)) & 1) === 1);
    }
    case Type.Int: {
      const values = data.values as ArrayLike<number | bigint>;
      return (type as unknown as { bitWidth: number }).bitWidth === 64
        ? wrap((i) => safe(values[i] as bigint))
        : wrap((i) => values[i] as number);
    }
    case Type.Float: {
      const values = data.values as ArrayLike<number>;
      return wrap((i) => values[i]!);
    }
    case Type.Decimal: {
      const words = data.values as Uint32Array;
      const t = type as unknown as { scale: number; bitWidth?: number };
      const stride = (t.bitWidth ?? 128) / 32;
      // HUGEINT (and sum() of integers) arrive as DECIMAL(38,0): an integer when DuckDB says so.
      return column?.kind === 'integer' && t.scale === 0
        ? wrap((i) => safe(wideInteger(words, i * stride, stride, true)))
        : wrap((i) => decimalFromUnscaled(wideInteger(words, i * stride, stride, true), t.scale));
    }
    case Type.Utf8:
    case Type.LargeUtf8: {
      const offsets = data.valueOffsets as ArrayLike<number | bigint>;
      const bytes = data.values as Uint8Array;
      const text = (i: number) => utf8.decode(bytes.subarray(Number(offsets[i]), Number(offsets[i + 1])));
      // An integer reaching Arrow as text is a BIGNUM cast to VARCHAR: its digits.
      if (column?.kind === 'integer') return wrap((i) => safe(BigInt(text(i))));
      return wrap(text);
    }
    case Type.Binary:
    case Type.LargeBinary: {
      const offsets = data.valueOffsets as ArrayLike<number | bigint>;
      const bytes = data.values as Uint8Array;
      return wrap((i) => bytes.slice(Number(offsets[i]), Number(offsets[i + 1])));
    }
    case Type.FixedSizeBinary: {
      const width = (type as unknown as { byteWidth: number }).byteWidth;
      const bytes = data.values as Uint8Array;
      // UHUGEINT reaches Arrow as 16 raw little-endian bytes ("arrow.opaque" uhugeint).
      if (isUnsignedHuge(column) && width === 16) return wrap((i) => safe(unsignedFromBytes(bytes, i * width, width)));
      return wrap((i) => bytes.slice(i * width, (i + 1) * width));
    }
    case Type.Date: {
      const unit = (type as unknown as { unit: number }).unit;
      const values = data.values as Int32Array | BigInt64Array;
      return wrap((i) => {
        const raw = values[i]!;
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
        const raw = values[i]!;
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
        const raw = BigInt(values[i]!);
        return timeFromMicros(toMicros === 0n ? raw / 1000n : raw * toMicros);
      });
    }
    case Type.List:
    case Type.Map: {
      // Value offsets index the child as a whole (children are not cut by a slice).
      const offsets = data.valueOffsets as ArrayLike<number | bigint>;
      const element = readerFor(data.children[0]!, column?.children?.[0]);
      return wrap((i) => {
        const end = Number(offsets[i + 1]);
        const out: Cell[] = [];
        for (let j = Number(offsets[i]); j < end; j++) out.push(element(j));
        return out;
      });
    }
    case Type.FixedSizeList: {
      const size = (type as unknown as { listSize: number }).listSize;
      const element = readerFor(data.children[0]!, column?.children?.[0]);
      return wrap((i) => {
        const out: Cell[] = new Array(size);
        for (let j = 0; j < size; j++) out[j] = element(i * size + j);
        return out;
      });
    }
    case Type.Struct: {
      const fields = (type as unknown as { children: { name: string }[] }).children.map((field, f) => ({
        name: field.name,
        read: readerFor(data.children[f]!, column?.children?.[f]),
      }));
      return wrap((i) => {
        const out: { [field: string]: Cell } = {};
        for (const field of fields) setField(out, field.name, field.read(i));
        return out;
      });
    }
    default: {
      // Types the session casts to VARCHAR never get here; anything else is shown as Arrow prints it.
      const vector = makeVector(data);
      return wrap((i) => String(vector.get(i)));
    }
  }
}

/**
 * Decode record batches into rows, reading columns by index (never by name:
 * duplicate output names are legal SQL).
 */
export function decodeBatches(batches: Iterable<RecordBatch>, columns: Column[], into: Cell[][] = []): Cell[][] {
  const width = columns.length;
  for (const batch of batches) {
    const readers: Reader[] = [];
    for (let c = 0; c < width; c++) readers.push(readerFor(batch.getChildAt(c)!.data[0]!, columns[c]));
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

/** Arrow results (DuckDB-WASM's) → cells: the codec the WASM drivers give their session. */
export const ARROW_CODEC: ResultCodec<Table, RecordBatch> = {
  rows: (table, columns) => decodeTable(table, columns),
  names: (table) => table.schema.fields.map((f) => f.name),
  batch: (batch, columns, into) => void decodeBatches([batch], columns, into),
};
