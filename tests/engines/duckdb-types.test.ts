/**
 * DuckDB type names → column kinds and the cast that makes a column
 * Arrow-exact (src/engines/duckdb/types.ts). The type names are the ones
 * DESCRIBE prints in DuckDB 1.4.3 (see the engine contract for the values).
 */
import { Bool, Field, Float64, Int32, List, Struct, vectorFromArray } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { arrowCastOf, duckDbColumn, readerFor } from '../../src/engines/duckdb/decode.ts';
import { arrowProjectionOf, parseDuckDbType } from '../../src/engines/duckdb/types.ts';

describe('DuckDB type names', () => {
  it('reads lists, arrays, structs with quoted field names, and maps', () => {
    expect(duckDbColumn('s', 'STRUCT("a b" INTEGER, "x""y" INTERVAL[], n STRUCT(d DECIMAL(18,2)))[3]')).toEqual({
      name: 's',
      engineType: 'STRUCT("a b" INTEGER, "x""y" INTERVAL[], n STRUCT(d DECIMAL(18,2)))[3]',
      kind: 'list',
      children: [
        {
          name: 'element',
          engineType: 'STRUCT("a b" INTEGER, "x""y" INTERVAL[], n STRUCT(d DECIMAL(18,2)))',
          kind: 'struct',
          children: [
            { name: 'a b', engineType: 'INTEGER', kind: 'integer' },
            {
              name: 'x"y',
              engineType: 'INTERVAL[]',
              kind: 'list',
              children: [{ name: 'element', engineType: 'INTERVAL', kind: 'interval' }],
            },
            {
              name: 'n',
              engineType: 'STRUCT(d DECIMAL(18,2))',
              kind: 'struct',
              children: [{ name: 'd', engineType: 'DECIMAL(18,2)', kind: 'decimal' }],
            },
          ],
        },
      ],
    });
    expect(parseDuckDbType('MAP(VARCHAR, INTEGER[])')).toMatchObject({
      shape: 'map',
      children: [{ name: 'key' }, { name: 'value', type: { shape: 'list' } }],
    });
    expect(parseDuckDbType("ENUM('a', 'b''c)')[]")).toMatchObject({
      shape: 'list',
      children: [{ type: { base: 'ENUM', text: "ENUM('a', 'b''c)')" } }],
    });
  });

  it('gives HUGEINT and UHUGEINT inside nested values the integer kind', () => {
    expect(duckDbColumn('h', 'STRUCT(x HUGEINT, u UHUGEINT)[]').children![0]!.children!.map((c) => c.kind)).toEqual([
      'integer',
      'integer',
    ]);
    expect(duckDbColumn('t', 'TIMESTAMP WITH TIME ZONE').kind).toBe('timestamptz');
    expect(duckDbColumn('n', '"NULL"').kind).toBe('null');
  });

  it('casts only the parts Arrow cannot carry exactly', () => {
    expect(arrowCastOf('INTEGER[]')).toBeNull();
    expect(arrowCastOf('UHUGEINT[]')).toBeNull();
    expect(arrowCastOf('TIME_NS')).toBe('VARCHAR');
    expect(arrowCastOf('INTERVAL[]')).toBe('VARCHAR[]');
    expect(arrowCastOf('STRUCT("a b" INTEGER, "x""y" INTERVAL[])')).toBe('STRUCT("a b" INTEGER, "x""y" VARCHAR[])');
    // A MAP reaches Arrow as a map (its entries); only parts Arrow cannot carry are cast.
    expect(arrowCastOf('MAP(VARCHAR, INTEGER)[2]')).toBeNull();
    expect(arrowCastOf('MAP(VARCHAR, INTERVAL)[]')).toBe('MAP(VARCHAR, VARCHAR)[]');
    expect(arrowCastOf('UNION(k INTEGER)')).toBe('VARCHAR');
  });

  it('reads an unnamed struct (ROW(1, 2)) as a struct whose fields are named by position', () => {
    const row = duckDbColumn('r', 'STRUCT(INTEGER, VARCHAR)');
    expect(row.kind).toBe('struct');
    expect(row.children!.map((c) => [c.name, c.kind])).toEqual([
      ['1', 'integer'],
      ['2', 'text'],
    ]);
    expect(arrowCastOf('STRUCT(INTEGER, VARCHAR)')).toBe('STRUCT("1" INTEGER, "2" VARCHAR)');
    expect(arrowCastOf('STRUCT(INTEGER, INTEGER)[]')).toBe('STRUCT("1" INTEGER, "2" INTEGER)[]');
    // Types that read like `name TYPE` are still types: DECIMAL(18,2), INTEGER[], TIMESTAMP WITH TIME ZONE.
    expect(
      duckDbColumn('r', 'STRUCT(DECIMAL(18,2), INTEGER[], TIMESTAMP WITH TIME ZONE, STRUCT(DATE))').children!.map(
        (c) => [c.name, c.kind],
      ),
    ).toEqual([
      ['1', 'decimal'],
      ['2', 'list'],
      ['3', 'timestamptz'],
      ['4', 'struct'],
    ]);
    expect(arrowCastOf('STRUCT(a INTEGER)')).toBeNull();
  });

  it('reads a UNION column as (tag, value): the member’s name is part of the value', () => {
    const union = duckDbColumn('u', 'UNION(a INTEGER, b VARCHAR)');
    expect([union.kind, union.children!.map((c) => c.name)]).toEqual(['struct', ['tag', 'value']]);
    expect(arrowProjectionOf('UNION(a INTEGER, b VARCHAR)', '#1')).toContain('union_tag(#1)');
    // No cast keeps the tag inside a list, struct or map: each union is rebuilt where it sits.
    expect(duckDbColumn('l', 'UNION(a INTEGER)[]').children![0]!.children!.map((c) => c.name)).toEqual([
      'tag',
      'value',
    ]);
    expect(arrowProjectionOf('UNION(a INTEGER)[]', '#2')).toMatch(/^list_transform\(#2, lambda x0: .*union_tag\(x0\)/);
    expect(arrowProjectionOf('STRUCT(k UNION(a INTEGER), i INTERVAL)', '#1')).toContain(
      '"i" := CAST(struct_extract_at(#1, 2) AS VARCHAR)',
    );
    expect(arrowProjectionOf('MAP(VARCHAR, UNION(a INTEGER))', '#1')).toMatch(
      /^map_from_entries\(list_transform\(map_entries\(#1\)/,
    );
  });

  it('reads a name outside the grammar as DuckDB’s text (kind other, cast to VARCHAR)', () => {
    expect(duckDbColumn('r', 'STRUCT(a INTEGER, VARCHAR)').kind).toBe('other');
    expect(arrowCastOf('STRUCT(a INTEGER, VARCHAR)')).toBe('VARCHAR');
    expect(arrowCastOf('STRUCT(INTEGER')).toBe('VARCHAR');
  });
});

describe('the Arrow reader on sliced data', () => {
  // apache-arrow 17 cuts a slice's value buffers at its offset but not its validity bitmap:
  // the reader must apply the offset to the bitmap only (the cause of issue #23).
  it('reads each row of a sliced list, struct and boolean column at its own position', () => {
    const lists = vectorFromArray(
      [[1], [10, 11], null, [20, null, 22]],
      new List(new Field('element', new Int32(), true)),
    );
    const column = duckDbColumn('l', 'INTEGER[]');
    const sliced = lists.slice(1);
    const read = readerFor(sliced.data[0]!, column);
    expect([0, 1, 2].map(read)).toEqual([[10, 11], null, [20, null, 22]]);

    const structs = vectorFromArray(
      [
        { x: 1.5, b: true },
        { x: null, b: false },
        { x: 3.5, b: null },
      ],
      new Struct([new Field('x', new Float64(), true), new Field('b', new Bool(), true)]),
    );
    const readStruct = readerFor(structs.slice(1).data[0]!, duckDbColumn('s', 'STRUCT(x DOUBLE, b BOOLEAN)'));
    expect([0, 1].map(readStruct)).toEqual([
      { x: null, b: false },
      { x: 3.5, b: null },
    ]);
  });
});
