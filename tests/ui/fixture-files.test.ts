import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureFromFiles, type PickedFile } from '../../src/ui/state/fixture-files.ts';
import { repoRoot } from '../helpers/paths.ts';

const text = (name: string, body: string): PickedFile => ({ name, bytes: new TextEncoder().encode(body) });
const bytes = (name: string, head: string, size = 64): PickedFile => {
  const b = new Uint8Array(size);
  b.set(new TextEncoder().encode(head));
  return { name, bytes: b };
};
const SQLITE_HEAD = 'SQLite format 3\0';
const duckdbFile = (name: string): PickedFile => bytes(name, '\0\0\0\0\0\0\0\0DUCK');

describe('fixtureFromFiles', () => {
  it('offers DuckDB, SQLite and PGlite for a SQL dump and one engine for database files', () => {
    const dump = fixtureFromFiles([text('shop.sql', 'CREATE TABLE t (a INT);')]);
    expect(dump).toMatchObject({ ok: true, value: { name: 'shop.sql', engines: ['duckdb', 'sqlite', 'pglite'] } });
    expect(fixtureFromFiles([bytes('spider.sqlite', SQLITE_HEAD)])).toMatchObject({
      ok: true,
      value: { engines: ['sqlite'] },
    });
    expect(fixtureFromFiles([duckdbFile('ledger.duckdb')])).toMatchObject({ ok: true, value: { engines: ['duckdb'] } });
    // The bytes decide: a DuckDB file named .db is a DuckDB file.
    expect(fixtureFromFiles([duckdbFile('ledger.db')])).toMatchObject({
      ok: true,
      value: { engines: ['duckdb'], files: [{ format: 'duckdb' }] },
    });
    expect(fixtureFromFiles([bytes('export.sql', SQLITE_HEAD)])).toMatchObject({
      ok: true,
      value: { engines: ['sqlite'], files: [{ format: 'sqlite' }] },
    });
  });

  it('combines CSV and Parquet files into one DuckDB fixture', () => {
    const out = fixtureFromFiles([text('a.csv', 'x\n1\n'), bytes('b.parquet', 'PAR1')]);
    expect(out).toMatchObject({ ok: true, value: { name: '2 files', engines: ['duckdb'] } });
  });

  it('names a SQLite database cut short (its header declares more pages than the file holds)', () => {
    const shop = new Uint8Array(
      readFileSync(path.join(repoRoot, 'fixtures/benchmarks/spider-sample/database/shop/shop.sqlite')),
    );
    expect(fixtureFromFiles([{ name: 'shop.sqlite', bytes: shop }]).ok).toBe(true);
    const cut = fixtureFromFiles([{ name: 'shop.sqlite', bytes: shop.subarray(0, 6144) }]);
    // Before: accepted on the home page; grading then failed the run ("database disk image is malformed").
    expect(cut).toEqual({
      ok: false,
      error: {
        code: 'input.invalid',
        message: `shop.sqlite is cut short: 6144 bytes of the ${shop.length} its header declares (an interrupted copy or download?).`,
        location: 'shop.sqlite',
      },
    });
  });

  it('names the file and the problem', () => {
    const message = (files: PickedFile[]) => {
      const out = fixtureFromFiles(files);
      return out.ok ? 'ok' : `${out.error.code}: ${out.error.message}`;
    };
    expect(message([])).toBe('input.invalid: No file was given.');
    expect(message([text('empty.sql', '')])).toBe('input.invalid: empty.sql is empty.');
    expect(message([text('notes.txt', 'hi')])).toMatch(
      /^fixture\.unsupported_format: notes\.txt: unrecognised fixture format/,
    );
    expect(message([text('fake.sqlite', 'CREATE TABLE t (a INT);')])).toMatch(
      /fake\.sqlite is named like a SQLite database but its content is not one \(its header does not match\)/,
    );
    expect(message([{ name: 'latin1.sql', bytes: new Uint8Array([0x53, 0x45, 0x4c, 0xe9, 0x20]) }])).toMatch(
      /latin1\.sql is not UTF-8 text/,
    );
    expect(message([text('a.sql', 'SELECT 1;'), text('b.csv', 'x\n1\n')])).toMatch(
      /a\.sql is a SQL dump, a fixture on its own/,
    );
    expect(message([text('Sales.csv', 'x\n1\n'), bytes('sales.parquet', 'PAR1')])).toMatch(
      /Sales\.csv and sales\.parquet would both become table "sales"/,
    );
  });
});
