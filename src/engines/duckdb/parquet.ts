/**
 * Parquet → SQL for DuckDB: the parquet extension is not available offline,
 * so a JS reader (hyparquet) decodes the file and DuckDB receives typed
 * INSERTs. DECIMAL columns are read as raw unscaled integers (hyparquet's
 * default converts them to binary floats) so money stays exact.
 */
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import type { FileMetaData, SchemaElement } from 'hyparquet';
import { decimalFromUnscaled } from '../../core/value/decimal.ts';
import { bytesToHex } from '../../core/value/json-codec.ts';
import { dateFromEpochDays, timestampFromEpochMicros } from '../../core/value/temporal.ts';

const IDENT = (name: string) => `"${name.replace(/"/g, '""')}"`;
const STRING = (text: string) => `'${text.replace(/'/g, "''")}'`;

interface ColumnPlan {
  name: string;
  sqlType: string;
  literal: (value: unknown) => string;
}

function unscaledOf(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return BigInt(value);
  if (value instanceof Uint8Array) {
    let out = 0n;
    for (const b of value) out = (out << 8n) | BigInt(b);
    return value.length && value[0]! & 0x80 ? out - (1n << BigInt(value.length * 8)) : out;
  }
  throw new Error(`unexpected decimal representation ${typeof value}`);
}

function planColumn(element: SchemaElement): ColumnPlan | string {
  const name = element.name;
  const ctype = element.converted_type;
  const ltype = element.logical_type?.type;
  if (element.num_children)
    return `column "${name}" is nested (lists and structs in Parquet are not supported; flatten it or use CSV)`;
  if (ctype === 'DECIMAL' || ltype === 'DECIMAL') {
    const precision = Math.min(element.precision ?? 38, 38);
    const scale = element.scale ?? 0;
    return {
      name,
      sqlType: `DECIMAL(${precision},${scale})`,
      literal: (v) => decimalFromUnscaled(unscaledOf(v), scale),
    };
  }
  if (ctype === 'DATE' || ltype === 'DATE')
    return { name, sqlType: 'DATE', literal: (v) => `DATE ${STRING(String(v))}` };
  if (ctype === 'TIMESTAMP_MILLIS' || ctype === 'TIMESTAMP_MICROS' || ltype === 'TIMESTAMP' || element.type === 'INT96')
    return { name, sqlType: 'TIMESTAMP', literal: (v) => `TIMESTAMP ${STRING(String(v))}` };
  if (ctype === 'UTF8' || ctype === 'JSON' || ctype === 'ENUM' || ltype === 'STRING' || ltype === 'UUID')
    return { name, sqlType: 'VARCHAR', literal: (v) => STRING(String(v)) };
  switch (element.type) {
    case 'BOOLEAN':
      return { name, sqlType: 'BOOLEAN', literal: (v) => (v ? 'true' : 'false') };
    case 'INT32':
      return { name, sqlType: 'INTEGER', literal: (v) => String(v) };
    case 'INT64':
      return { name, sqlType: 'BIGINT', literal: (v) => String(v) };
    case 'FLOAT':
    case 'DOUBLE': {
      const sqlType = element.type === 'FLOAT' ? 'FLOAT' : 'DOUBLE';
      return {
        name,
        sqlType,
        literal: (v) =>
          Number.isFinite(v) ? String(v) : `${STRING(String(v).replace('Infinity', 'inf'))}::${sqlType}`,
      };
    }
    case 'BYTE_ARRAY':
    case 'FIXED_LEN_BYTE_ARRAY':
      return { name, sqlType: 'BLOB', literal: (v) => `from_hex(${STRING(bytesToHex(v as Uint8Array))})` };
    default:
      return `column "${name}" has an unsupported Parquet type ${String(element.type)}`;
  }
}

export async function parquetToSql(
  bytes: Uint8Array,
  tableName: string,
): Promise<{ ok: true; sql: string } | { ok: false; error: string }> {
  try {
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const metadata: FileMetaData = parquetMetadata(file);
    const top = metadata.schema.slice(1);
    const plans: ColumnPlan[] = [];
    for (const element of top) {
      const plan = planColumn(element);
      if (typeof plan === 'string') return { ok: false, error: plan };
      plans.push(plan);
    }
    // Read decimals raw: hide their converted type from the reader, keep scale in the plan.
    const rawMetadata: FileMetaData = {
      ...metadata,
      schema: metadata.schema.map((e) =>
        e.converted_type === 'DECIMAL' || e.logical_type?.type === 'DECIMAL'
          ? { ...e, converted_type: undefined, logical_type: undefined }
          : e,
      ),
    };
    const rows = (await parquetReadObjects({
      file,
      metadata: rawMetadata,
      utf8: true,
      parsers: {
        dateFromDays: (days: number) => dateFromEpochDays(days),
        timestampFromMilliseconds: (ms: bigint) => timestampFromEpochMicros(ms * 1000n),
        timestampFromMicroseconds: (us: bigint) => timestampFromEpochMicros(us),
        timestampFromNanoseconds: (ns: bigint) => timestampFromEpochMicros(ns / 1000n),
      },
    })) as Record<string, unknown>[];
    const statements = [
      `CREATE TABLE ${IDENT(tableName)} (${plans.map((p) => `${IDENT(p.name)} ${p.sqlType}`).join(', ')});`,
    ];
    for (let start = 0; start < rows.length; start += 500) {
      const values = rows
        .slice(start, start + 500)
        .map(
          (row) =>
            `(${plans.map((p) => (row[p.name] === null || row[p.name] === undefined ? 'NULL' : p.literal(row[p.name]))).join(', ')})`,
        );
      statements.push(`INSERT INTO ${IDENT(tableName)} VALUES ${values.join(',\n')};`);
    }
    return { ok: true, sql: statements.join('\n') };
  } catch (thrown) {
    return {
      ok: false,
      error: `not a readable Parquet file (${thrown instanceof Error ? thrown.message : String(thrown)})`,
    };
  }
}
