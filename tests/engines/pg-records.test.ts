/** PostgreSQL's JSON of records, read exactly (src/engines/pglite/records.ts); the engine's side is in tests/result/engine-values. */
import { describe, expect, it } from 'vitest';
import { parseJson, recordColumn, recordProjection } from '../../src/engines/pglite/records.ts';

describe('parseJson', () => {
  it('keeps numbers as printed, keys in order, escapes decoded', () => {
    expect(parseJson(' {"b": [1, 2.50, -1e+20], "a": "\\u00e9\\"", "c": {}} ')).toEqual({
      entries: [
        ['b', [{ number: '1' }, { number: '2.50' }, { number: '-1e+20' }]],
        ['a', 'é"'],
        ['c', { entries: [] }],
      ],
    });
    expect(parseJson('[true,false,null,[]]')).toEqual([true, false, null, []]);
  });

  it("names an anonymous record's f1, f2, … by position, and only those", () => {
    expect(parseJson('{"f1":1,"f2":"a"}')).toEqual({
      entries: [
        ['1', { number: '1' }],
        ['2', 'a'],
      ],
    });
    expect(parseJson('{"f2":1,"f1":"a"}')).toEqual({
      entries: [
        ['f2', { number: '1' }],
        ['f1', 'a'],
      ],
    });
  });

  it('refuses what is not JSON', () => {
    for (const text of ['', '{', '[1,]', '{"a" 1}', '01', 'nul', '[1] x']) expect(() => parseJson(text)).toThrow();
  });
});

describe('recordColumn', () => {
  it('decodes integers exactly and decimals keeping their scale', () => {
    const read = recordColumn('r', 'record', ['{"f1":12345678901234567890,"f2":2.50,"f3":1e+20,"f4":true}']);
    expect(read!.column.children!.map((c) => [c.name, c.kind])).toEqual([
      ['1', 'integer'],
      ['2', 'decimal'],
      ['3', 'decimal'],
      ['4', 'boolean'],
    ]);
    expect(read!.cells).toEqual([{ 1: 12345678901234567890n, 2: '2.50', 3: '100000000000000000000', 4: true }]);
  });

  it('takes each field’s kind from every row: NULLs tell nothing, an integer beside a decimal is a decimal', () => {
    const read = recordColumn('r', 'record', [
      '{"f1":null,"f2":[]}',
      null,
      '{"f1":1,"f2":[2.5]}',
      '{"f1":1.5,"f2":[3]}',
    ]);
    expect(read!.column.children!.map((c) => [c.name, c.kind])).toEqual([
      ['1', 'decimal'],
      ['2', 'list'],
    ]);
    expect(read!.cells).toEqual([{ 1: null, 2: [] }, null, { 1: '1', 2: ['2.5'] }, { 1: '1.5', 2: ['3'] }]);
  });

  it('keeps a __proto__ field as a field', () => {
    const read = recordColumn('r', 'x', ['{"__proto__":1}']);
    expect(Object.keys(read!.cells[0] as object)).toEqual(['__proto__']);
  });

  it('gives up (the column stays text) when no one column holds every row', () => {
    expect(recordColumn('r', 'record', ['{"f1":1}', '{"f1":"1"}'])).toBeNull();
    expect(recordColumn('r', 'record', ['{"f1":1}', '{"f1":1,"f2":2}'])).toBeNull();
    expect(recordColumn('r', 'record', ['not json'])).toBeNull();
    expect(recordColumn('r', 'record', [null])).toBeNull();
  });
});

describe('recordProjection', () => {
  it('renames by position, converts only the record columns, and closes a final comment', () => {
    const fields = [
      { name: 'a', oid: 23 },
      { name: 'a', oid: 2249 },
    ];
    expect(recordProjection('SELECT 1 AS a, ROW(1) AS a; ', fields, new Set([1]))).toBe(
      'SELECT q."1", to_json(q."2")::text FROM (SELECT 1 AS a, ROW(1) AS a\n) AS q("1", "2")',
    );
  });
});
