/**
 * PGlite in a Node worker thread (one engine for the file): the PostgreSQL
 * suite of pg-suite.ts, and plain pg_dump output (COPY … FROM stdin blocks,
 * psql meta-commands, schemas, an enum, arrays, jsonb, bytea) loaded exactly.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engines/node.ts';
import { PGLITE_FILE_BYTES } from '../../src/engines/pglite/files.ts';
import type { SupervisedEngine } from '../../src/engines/supervisor.ts';
import { fileFixture } from '../helpers/fixtures.ts';
import { repoRoot } from '../helpers/paths.ts';
import { normalizeCell } from './contract-cases.ts';
import { postgresEngineSuite } from './pg-suite.ts';

postgresEngineSuite('pglite', { contract: false });

describe('pglite: a pg_dump fixture', () => {
  let engine: SupervisedEngine;
  beforeAll(() => {
    engine = openEngine('pglite');
  });
  afterAll(async () => {
    await engine.close();
  });

  it('loads COPY blocks exactly, in their schemas, and says which tables it holds', async () => {
    const loaded = await engine.load(fileFixture(path.join(repoRoot, 'tests/fixtures/postgres/shop.pg_dump.sql')));
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(loaded.value.tables.map((t) => `${t.name}:${t.rowCount}`)).toEqual(['customers:3', 'sales.orders:3']);
    expect(loaded.value.engineVersion).toMatch(/^PostgreSQL 18\.\d+ \(PGlite 0\.5\.16\), TimeZone UTC$/);
    const customers = await engine.execute('SELECT id, name, mood, joined, tags, profile FROM customers ORDER BY id');
    if (!customers.ok) throw new Error(customers.error.message);
    expect(customers.value.columns.map((c) => `${c.engineType}:${c.kind}`)).toEqual([
      'integer:integer',
      'text:text',
      'mood:other',
      'date:date',
      'text[]:list',
      'jsonb:other',
    ]);
    expect(customers.value.rows).toEqual([
      [1, 'Zoë', 'happy', '2024-01-02', ['a', 'b c'], '{"n": 9007199254740993, "vip": true}'],
      [2, 'Tab\there', null, null, [], null],
      [3, 'line\nbreak \\ back', 'sad', '1999-12-31', null, '[]'],
    ]);
    const orders = await engine.execute('SELECT id, amount, placed_at, note, paid, blob FROM sales.orders ORDER BY id');
    if (!orders.ok) throw new Error(orders.error.message);
    expect(orders.value.rows.map((r) => r.map(normalizeCell))).toEqual(
      [
        [2, '0.01', '2024-03-02 00:00:00+00', null, false, null],
        [3, '99.99', null, `quote ' and "dq"`, null, new Uint8Array([])],
        [9007199254740993n, '1234.50', '2024-03-01 08:00:00+00', 'first', true, new Uint8Array([0, 255])],
      ].map((r) => r.map(normalizeCell)),
    );
    // The view is readable; the sequence is not (no USAGE for the reader, nextval refused by name).
    const view = await engine.execute('SELECT count(*) FROM big_orders');
    expect(view.ok && view.value.rows).toEqual([[1]]);
    expect((await engine.execute('SELECT last_value FROM ticket_seq')).ok).toBe(false);
  }, 180_000);
});

describe('pglite: the browser files', () => {
  it('the first-load progress total is the installed package’s file sizes', () => {
    const dist = path.join(repoRoot, 'node_modules', '@electric-sql', 'pglite', 'dist');
    for (const [file, bytes] of Object.entries(PGLITE_FILE_BYTES))
      expect(statSync(path.join(dist, file)).size, file).toBe(bytes);
  });
});
