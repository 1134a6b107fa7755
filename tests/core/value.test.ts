import { describe, expect, it } from 'vitest';
import { canonicalCell } from '../../src/core/digest/canonical-dump.ts';
import { sha256Hex, sha256Text, utf8Encode } from '../../src/core/digest/sha256.ts';
import {
  compareDecimal,
  decimalFromUnscaled,
  floatToDecimalText,
  normalizeDecimal,
} from '../../src/core/value/decimal.ts';
import {
  CodecError,
  decodeCell,
  decodeResultTable,
  encodeCell,
  encodeResultTable,
} from '../../src/core/value/json-codec.ts';
import { formatCell } from '../../src/core/value/format.ts';
import { dateFromEpochDays, splitTimestamp, timestampFromEpochMicros } from '../../src/core/value/temporal.ts';

describe('decimal text', () => {
  it.each([
    [1250n, 2, '12.50'],
    [-1250n, 2, '-12.50'],
    [5n, 3, '0.005'],
    [-5n, 3, '-0.005'],
    [0n, 2, '0.00'],
    [12345678901234567890123456789012345678n, 10, '1234567890123456789012345678.9012345678'],
    [7n, 0, '7'],
  ])('%s at scale %i is %s', (unscaled, scale, text) => {
    expect(decimalFromUnscaled(unscaled, scale)).toBe(text);
  });

  it('normalizes by value: 10 = 10.00 = 10.000, -0.00 = 0', () => {
    expect(['10', '10.00', '10.000', '010'].map(normalizeDecimal)).toEqual(['10', '10', '10', '10']);
    expect(normalizeDecimal('-0.00')).toBe('0');
    expect(normalizeDecimal('10.01')).not.toBe(normalizeDecimal('10.02'));
  });

  it('compares exactly beyond double precision', () => {
    expect(compareDecimal('1234567890123456789012345678.1234567891', '1234567890123456789012345678.1234567892')).toBe(
      -1,
    );
    expect(compareDecimal('10.00', '10')).toBe(0);
  });

  it('reads a float by its printed digits', () => {
    expect(floatToDecimalText(0.1)).toBe('0.1');
    expect(floatToDecimalText(1e21)).toBe('1000000000000000000000');
    expect(floatToDecimalText(1.5e-7)).toBe('0.00000015');
    expect(floatToDecimalText(NaN)).toBeNull();
  });
});

describe('temporal text', () => {
  it('converts epoch days and microseconds exactly', () => {
    expect(dateFromEpochDays(0)).toBe('1970-01-01');
    expect(dateFromEpochDays(19724)).toBe('2024-01-02');
    expect(dateFromEpochDays(-719528)).toBe('0000-01-01');
    expect(dateFromEpochDays(2932896)).toBe('9999-12-31');
    expect(dateFromEpochDays(2932897)).toBe('+010000-01-01');
    expect(timestampFromEpochMicros(253402300799999999n)).toBe('9999-12-31 23:59:59.999999');
    expect(timestampFromEpochMicros(-1n)).toBe('1969-12-31 23:59:59.999999');
  });

  it('reads back the first and last DATE DuckDB has (seven-digit years)', () => {
    // DuckDB's DATE range: 5877642-06-25 (BC) to 5881580-07-10.
    expect(dateFromEpochDays(-2147483646)).toBe('-5877641-06-25');
    expect(dateFromEpochDays(2147483646)).toBe('+5881580-07-10');
    for (const text of ['-5877641-06-25', '+5881580-07-10', '-000043-03-15'])
      expect(decodeCell({ kind: 'date' }, text)).toBe(text);
  });

  it('splits a timestamp into its day and time of day', () => {
    expect(splitTimestamp('2024-01-02 00:00:00')).toEqual({ date: '2024-01-02', micros: 0, nanos: 0 });
    expect(splitTimestamp('2024-01-02 00:00:00.000001')).toEqual({ date: '2024-01-02', micros: 1, nanos: 0 });
    // DuckDB's TIMESTAMP_NS text: nanoseconds beyond the microsecond.
    expect(splitTimestamp('2024-01-02 00:00:01.000000789')).toEqual({
      date: '2024-01-02',
      micros: 1_000_000,
      nanos: 789,
    });
    expect(splitTimestamp('2024-01-02')).toBeNull();
  });
});

describe('JSON codec', () => {
  it('round-trips every kind exactly', () => {
    const table = {
      columns: [
        { name: 'i', engineType: 'BIGINT', kind: 'integer' as const },
        { name: 'd', engineType: 'DECIMAL(10,2)', kind: 'decimal' as const },
        { name: 'f', engineType: 'DOUBLE', kind: 'float' as const },
        { name: 'b', engineType: 'BOOLEAN', kind: 'boolean' as const },
        { name: 'x', engineType: 'BLOB', kind: 'blob' as const },
        { name: 't', engineType: 'TIMESTAMP', kind: 'timestamp' as const },
      ],
      rows: [
        [9007199254740993n, '12.50', NaN, true, new Uint8Array([0, 255]), '2024-01-02 03:04:05.123456'],
        [1, '-0.01', -0, false, new Uint8Array([]), null],
        [null, null, Infinity, null, null, '2024-01-02 00:00:00'],
      ],
    };
    const json = JSON.parse(JSON.stringify(encodeResultTable(table)));
    expect(json.rows[0]).toEqual(['9007199254740993', '12.50', 'NaN', true, '00ff', '2024-01-02 03:04:05.123456']);
    expect(json.rows[1][2]).toBe('-0');
    const back = decodeResultTable(json);
    expect(back.rows[0]![0]).toBe(9007199254740993n);
    expect(Object.is(back.rows[1]![2], -0)).toBe(true);
    expect(back.rows[0]![4]).toEqual(new Uint8Array([0, 255]));
  });

  it('names the path of a bad cell', () => {
    expect(() => decodeResultTable({ columns: [{ name: 'n', kind: 'integer' }], rows: [[1], ['x']] })).toThrowError(
      CodecError,
    );
    expect(() => decodeResultTable({ columns: [{ name: 'n', kind: 'integer' }], rows: [[1], ['x']] })).toThrowError(
      /expected\.rows\[1\]\[0\]/,
    );
    expect(() => decodeResultTable({ columns: [{ name: 'n', kind: 'bogus' }], rows: [] })).toThrowError(
      /columns\[0\]\.kind/,
    );
    expect(() => decodeResultTable({ columns: [{ name: 'n', kind: 'text' }], rows: [['a', 'b']] })).toThrowError(
      /2 cells, the columns say 1/,
    );
  });

  it('keeps a struct field named __proto__ (a frozen expected result with one)', () => {
    const column = {
      kind: 'struct' as const,
      children: [{ name: '__proto__', engineType: 'INTEGER', kind: 'integer' as const }],
    };
    const cell = decodeCell(column, JSON.parse('{"__proto__": 1}'));
    expect(Object.keys(cell as object)).toEqual(['__proto__']);
    expect(JSON.stringify(encodeCell(column, cell))).toBe('{"__proto__":1}');
    expect(Object.keys(decodeCell({ kind: 'other' }, JSON.parse('{"__proto__": 2}')) as object)).toEqual(['__proto__']);
  });

  it('accepts hand-written decimals as numbers, by their printed digits', () => {
    expect(decodeCell({ kind: 'decimal' }, 12.5)).toBe('12.5');
    expect(encodeCell({ kind: 'integer' }, 12)).toBe(12);
  });
});

describe('display and digest text', () => {
  it('prints exact values', () => {
    expect(formatCell({ kind: 'decimal' }, '12.50')).toBe('12.50');
    expect(formatCell({ kind: 'integer' }, 9007199254740993n)).toBe('9007199254740993');
    expect(formatCell({ kind: 'float' }, -0)).toBe('-0.0');
    expect(formatCell({ kind: 'text' }, null)).toBe('NULL');
  });

  it('writes numbers by value in the canonical dump', () => {
    expect(canonicalCell({ kind: 'decimal' }, '12.50')).toBe(canonicalCell({ kind: 'float' }, 12.5));
    expect(canonicalCell({ kind: 'decimal' }, '10.00')).toBe(canonicalCell({ kind: 'integer' }, 10));
    expect(canonicalCell({ kind: 'text' }, '10')).not.toBe(canonicalCell({ kind: 'integer' }, 10));
  });

  it('hashes with SHA-256 and encodes UTF-8 like TextEncoder', async () => {
    expect(await sha256Text('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const sample = 'Zoë 漢字 🎉 \ud800';
    expect([...utf8Encode(sample)]).toEqual([...new TextEncoder().encode(sample)]);
    expect(await sha256Hex(new Uint8Array())).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});
