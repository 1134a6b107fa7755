/**
 * The PostgreSQL engines' own tests, shared by PGlite (tests/engines/pglite.test.ts)
 * and a PostgreSQL server (tests/engines/postgres-server.test.ts): one engine per
 * file, started once. The attack list of tests/engines/attacks.ts on a fixture
 * whose clock is frozen (0 successes, digest and engine state unchanged), the
 * error taxonomy from SQLSTATE codes, the built-in retail fixtures' digests
 * (the same as DuckDB's, from fixtures/fixtures.json), CSV fixtures, the row
 * cap and a runaway query stopped.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureSource } from '../../src/core/engine.ts';
import { openEngine } from '../../src/engines/node.ts';
import type { SupervisedEngine } from '../../src/engines/supervisor.ts';
import { fileFixture, sqlFixture } from '../helpers/fixtures.ts';
import { repoRoot } from '../helpers/paths.ts';
import { AS_OF, ATTACK_DUMP, CLOCK, ENGINE_ATTACKS, statementAttacks } from './attacks.ts';
import { CASES, normalizeCell, rowsOf } from './contract-cases.ts';

const file = (name: string) => `/tmp/sql-verdict-attacks-${name}`;

export const TAXONOMY: [string, string][] = [
  ['SELECT * FROM nope', 'missing_table'],
  ['SELECT * FROM nowhere.items', 'missing_table'],
  ['SELECT nope FROM items', 'missing_column'],
  ['SELECT name + 1 FROM items', 'type_mismatch'],
  ['SELECT CASE WHEN id > 1 THEN id ELSE name END FROM items', 'type_mismatch'],
  ['SELECT 1 / 0', 'division_by_zero'],
  ['SELECT name, count(*) FROM items', 'invalid_aggregation'],
  ['SELECT id FROM items a, items b', 'ambiguous_reference'],
  ['SELECT * FROM pg_catalog.pg_authid', 'permission_error'],
  ['SELEC 1', 'syntax_error'],
];

function builtIn(name: string): { source: FixtureSource; digest: string } {
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'fixtures/fixtures.json'), 'utf8')) as {
    fixtures: Record<string, { dump: string; as_of: string; content_digest: string }>;
  };
  const entry = manifest.fixtures[name]!;
  return {
    source: { ...fileFixture(path.join(repoRoot, 'fixtures', entry.dump)), name, asOf: entry.as_of },
    digest: entry.content_digest,
  };
}

/** Other backends of the test's database still running a query (the engine's cursor shows as its FETCH). */
async function runningOnServer(): Promise<number> {
  const client = new pg.Client({ connectionString: process.env.SQL_VERDICT_DATABASE_URL });
  await client.connect();
  try {
    const result = await client.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND state = 'active' AND pid <> pg_backend_pid()",
    );
    return (result.rows[0] as { n: number }).n;
  } finally {
    await client.end();
  }
}

export function postgresEngineSuite(engineName: 'pglite' | 'postgres', options: { contract: boolean }): void {
  describe(`${engineName}: attack list, taxonomy, fixtures`, () => {
    let engine: SupervisedEngine;
    let digest: string;
    let state: Record<string, string>;

    beforeAll(async () => {
      engine = openEngine(engineName);
      const loaded = await engine.load(sqlFixture('attacks', ATTACK_DUMP, AS_OF));
      if (!loaded.ok) throw new Error(loaded.error.message);
      digest = loaded.value.contentDigest;
      const before = await engine.sandboxState();
      if (!before.ok) throw new Error(before.error.message);
      state = before.value;
    }, 180_000);

    afterAll(async () => {
      await engine?.close();
    });

    const attacks = [...statementAttacks(file), ...ENGINE_ATTACKS[engineName]];
    it(`refuses all ${attacks.length} attacks, digest and engine state unchanged after each`, async () => {
      const escapes: string[] = [];
      for (const attack of attacks) {
        const outcome = await engine.execute(attack.sql);
        if (outcome.ok) escapes.push(`${attack.what}: ${attack.sql}`);
        else if (attack.kind) {
          expect(outcome.error.code, attack.sql).toBe('sandbox.statement_rejected');
          expect(outcome.error.statement_kind, attack.sql).toBe(attack.kind);
        }
        expect(await engine.sandboxState(), attack.sql).toEqual({ ok: true, value: state });
        expect(await engine.contentDigest(), attack.sql).toEqual({ ok: true, value: digest });
      }
      expect(escapes).toEqual([]);
    });

    it('refuses a denied function hidden from the check by name, at the engine (EXECUTE revoked)', async () => {
      // ts_stat runs its text: refused by name here; the revoked EXECUTE is the wall behind that.
      const outcome = await engine.execute("SELECT (xpath('/a', query_to_xml('SELECT 1', true, true, '')))");
      expect(outcome.ok).toBe(false);
    });

    it("a candidate's setseed() does not fix a later case's random()", async () => {
      // The seed is session state that the per-query ROLLBACK does not undo: seeded twice, two later random() agree.
      const after = async () => {
        await engine.execute('SELECT setseed(0.5)');
        const outcome = await engine.execute('SELECT random() AS r');
        expect(outcome.ok, outcome.ok ? '' : outcome.error.message).toBe(true);
        return outcome.ok ? outcome.value.rows[0]![0] : null;
      };
      expect(await after()).not.toEqual(await after());
    });

    it.each(CLOCK[engineName].map((c) => [c.sql, c] as const))('frozen clock: %s', async (_label, probe) => {
      const outcome = await engine.execute(probe.sql);
      if (probe.frozen === 'refused') {
        expect(outcome.ok).toBe(false);
        return;
      }
      expect(outcome.ok, outcome.ok ? '' : outcome.error.message).toBe(true);
      if (outcome.ok) expect(outcome.value.rows[0]![0]).toEqual(probe.frozen);
    });

    it.each(TAXONOMY)('taxonomy from SQLSTATE: %s -> %s', async (sql, category) => {
      const outcome = await engine.execute(sql);
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) {
        expect(outcome.error.category).toBe(category);
        expect(outcome.error.raw).toMatch(/SQLSTATE [0-9A-Z]{5}/);
      }
    });

    it('still answers ordinary reads, PostgreSQL dialect included', async () => {
      const outcome = await engine.execute(
        "SELECT count(*) FILTER (WHERE price > 2) AS dear, string_agg(name, ',' ORDER BY id) AS names, bool_or(name ILIKE 'P%') AS p, max(price)::numeric(10,3) AS top FROM items",
      );
      expect(outcome.ok, outcome.ok ? '' : outcome.error.message).toBe(true);
      if (outcome.ok) expect(outcome.value.rows).toEqual([[1, 'pen,ink,pad', true, '12.000']]);
      const distinctOn = await engine.execute(
        'SELECT DISTINCT ON (price IS NULL) name FROM items ORDER BY price IS NULL, id',
      );
      expect(distinctOn.ok && distinctOn.value.rows).toEqual([['pen'], ['pad']]);
    });

    it('caps the number of rows a query may return', async () => {
      const outcome = await engine.execute('SELECT * FROM generate_series(1, 5000)', { maxRows: 1000 });
      expect(!outcome.ok && outcome.error.code).toBe('sandbox.resource_exhausted');
      const atCap = await engine.execute('SELECT * FROM generate_series(1, 1000)', { maxRows: 1000 });
      expect(atCap.ok && atCap.value.rows.length).toBe(1000);
    });

    it('stops a 1M x 8 KB result at the byte budget while it streams, without a restart, and keeps working', async () => {
      // 8 GB of text: fetched whole it could not even fit PGlite's wasm heap (4 GB at most).
      const restarts = engine.restarts;
      const outcome = await engine.execute("SELECT n, repeat('x', 8192) AS s FROM generate_series(1, 1000000) AS n", {
        timeoutMs: 60_000,
        maxResultBytes: 4 * 1024 * 1024,
      });
      expect(!outcome.ok && outcome.error).toMatchObject({
        code: 'sandbox.resource_exhausted',
        category: 'resource_exhausted',
      });
      // A row is 16,408 decoded bytes (value/size.ts: 8 + 8 + 8 + 2 x 8,192): 255 fit in 4 MiB.
      expect(!outcome.ok && outcome.error.message).toBe(
        "The result is larger than 4 MiB (max_result_bytes, the memory budget for one query's decoded rows); it was stopped after 255 rows.",
      );
      expect(engine.restarts).toBe(restarts);
      const next = await engine.execute('SELECT count(*) AS n FROM items');
      expect(next.ok && next.value.rows[0]![0]).toBe(3);
      // 100 rows of 2,016 decoded bytes: 201,600, under one budget and over the other.
      const hundred = "SELECT repeat('x', 1000) AS s FROM generate_series(1, 100)";
      const under = await engine.execute(hundred, { maxResultBytes: 210_000 });
      expect(under.ok && under.value.rows.length).toBe(100);
      const over = await engine.execute(hundred, { maxResultBytes: 200_000 });
      expect(!over.ok && over.error.message).toMatch(/larger than 195.3 KiB .*stopped after 99 rows/);
      expect(await engine.contentDigest()).toEqual({ ok: true, value: digest });
    }, 180_000);

    it('reads a result of many batches whole and in order, arrays shaped over all of them', async () => {
      const many = await engine.execute('SELECT n FROM generate_series(1, 25000) AS n');
      if (!many.ok) throw new Error(many.error.message);
      expect(many.value.rows.length).toBe(25000);
      expect(many.value.rows.every((r, i) => r[0] === i + 1)).toBe(true);
      // Every value two-dimensional: a list of lists; one one-dimensional value in the last batch: text.
      const square = await engine.execute('SELECT ARRAY[[n, n]] AS a FROM generate_series(1, 250) AS n');
      expect(square.ok && square.value.columns[0]!.kind).toBe('list');
      expect(square.ok && square.value.rows[249]).toEqual([[[250, 250]]]);
      const mixed = await engine.execute(
        'SELECT CASE WHEN n = 250 THEN ARRAY[n] ELSE ARRAY[[n]] END AS a FROM generate_series(1, 250) AS n',
      );
      expect(mixed.ok && mixed.value.columns[0]!.kind).toBe('other');
      expect(mixed.ok && mixed.value.rows.slice(-2)).toEqual([['{{249}}'], ['{250}']]);
      // An error in a later batch is the query's error.
      const late = await engine.execute('SELECT 1 / (n - 150) AS x FROM generate_series(1, 200) AS n');
      expect(!late.ok && late.error.category).toBe('division_by_zero');
      const empty = await engine.execute('SELECT id, name AS n, price AS n FROM items WHERE false');
      expect(empty.ok && empty.value).toMatchObject({
        rows: [],
        columns: [{ name: 'id' }, { name: 'n' }, { name: 'n' }],
      });
    });

    it('plans through the same gate: EXPLAIN of a read, never of a write', async () => {
      const plan = await engine.explain('SELECT name FROM items ORDER BY price');
      expect(plan.ok && plan.value.operators).toContain('SORT');
      for (const sql of [
        'DROP TABLE items',
        'SELECT 1; DELETE FROM items',
        "SELECT set_config('role', 'postgres', false)",
      ])
        expect((await engine.explain(sql)).ok).toBe(false);
    });

    it('stops a runaway query at its budget and keeps working', async () => {
      const timeoutMs = 1500;
      const started = performance.now();
      const outcome = await engine.execute(
        'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r',
        { timeoutMs },
      );
      expect(performance.now() - started).toBeLessThan(timeoutMs + 2000);
      expect(!outcome.ok && outcome.error.category).toBe('timeout');
      // Ending the worker thread only closes the connection: without statement_timeout the server went on running
      // the query, for ever. Stopped by the server itself, it is gone from pg_stat_activity within moments.
      if (engineName === 'postgres') await expect.poll(runningOnServer, { timeout: 5000 }).toBe(0);
      const next = await engine.execute('SELECT count(*) AS n FROM items');
      expect(next.ok && next.value.rows[0]![0]).toBe(3);
      expect(await engine.contentDigest()).toEqual({ ok: true, value: digest });
    }, 180_000);

    if (options.contract)
      describe('engine contract (the pglite column of tests/engines/contract-cases.ts)', () => {
        for (const c of CASES)
          it(c.name, async () => {
            const expectation = c.pglite;
            const outcome = await engine.execute(expectation.sql);
            if (!outcome.ok) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
            expect(outcome.value.columns.map((col) => col.kind)).toEqual(expectation.kinds);
            if (expectation.names) expect(outcome.value.columns.map((col) => col.name)).toEqual(expectation.names);
            if (expectation.engineTypes)
              expect(outcome.value.columns.map((col) => col.engineType)).toEqual(expectation.engineTypes);
            if (expectation.children)
              expectation.children.forEach((kinds, i) => {
                if (kinds) expect(outcome.value.columns[i]!.children?.map((child) => child.kind)).toEqual(kinds);
              });
            expect(outcome.value.rows.map((row) => row.map(normalizeCell))).toEqual(
              rowsOf(expectation).map((row) => row.map(normalizeCell)),
            );
          });
      });

    // Last: these replace the fixture.
    it.each(['retail', 'retail_monthly'])(
      'the built-in fixture %s loads with the content digest DuckDB gives it',
      async (name) => {
        const { source, digest: expected } = builtIn(name);
        const loaded = await engine.load(source);
        if (!loaded.ok) throw new Error(loaded.error.message);
        expect(loaded.value.contentDigest).toBe(expected);
        expect(loaded.value.tables.map((t) => t.name)).toEqual(['customers', 'order_items', 'orders', 'products']);
      },
      120_000,
    );

    it('loads a CSV file as a table named after it, types read from the text', async () => {
      const csv = 'id,name,price,sold_on,ok\n1,pen,1.5,2024-01-02,true\n2,"ink, blue",12,2024-02-03,false\n3,,,,\n';
      const loaded = await engine.load({
        name: 'prices',
        files: [{ fileName: 'prices.csv', format: 'csv', bytes: new TextEncoder().encode(csv) }],
      });
      if (!loaded.ok) throw new Error(loaded.error.message);
      expect(loaded.value.tables).toEqual([
        {
          name: 'prices',
          rowCount: 3,
          columns: [
            { name: 'id', engineType: 'bigint' },
            { name: 'name', engineType: 'text' },
            { name: 'price', engineType: 'double precision' },
            { name: 'sold_on', engineType: 'date' },
            { name: 'ok', engineType: 'boolean' },
          ],
        },
      ]);
      const rows = await engine.execute('SELECT * FROM prices ORDER BY id');
      expect(rows.ok && rows.value.rows).toEqual([
        [1, 'pen', 1.5, '2024-01-02', true],
        [2, 'ink, blue', 12, '2024-02-03', false],
        [3, null, null, null, null],
      ]);
    });

    it('a fixture dump with an error names its file and line', async () => {
      const loaded = await engine.load(
        sqlFixture('broken', 'CREATE TABLE t (x INTEGER);\nINSERT INTO t VALUES (1);\nINSERT INTO t VALUES (2;\n'),
      );
      expect(loaded.ok).toBe(false);
      if (!loaded.ok) expect(loaded.error.message).toMatch(/^broken\.sql:3: .*syntax error/);
    });
  });
}
