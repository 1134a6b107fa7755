/**
 * Canonicalization never changes results: every rule fixture pair (input and
 * rewritten output) runs on a real engine and must return the same rows —
 * on SQLite against Spider's concert_singer database, on DuckDB against a
 * small dump of the same schema. Beyond the fixtures, the full canonical form
 * of every query of the shipped Spider subset runs against its own database;
 * on the full Spider dev data, a fixed-seed sample of each database's queries
 * (SQL_VERDICT_SAMPLE_ALL=1 runs all of them).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { Engine, EngineName, QueryResult } from '../../src/core/engine.ts';
import { canonicalize } from '../../src/core/structure/index.ts';
import { openEngine } from '../../src/engines/node.ts';
import { fileFixture, sqlFixture } from '../helpers/fixtures.ts';
import { spiderDatabase, spiderSubsetDir } from '../helpers/paths.ts';
import { seededSample } from '../helpers/sample.ts';
import { describeSpider, repoRoot, ruleFixtures, spiderDataSets, spiderPairs } from './helpers.ts';

/** Rows as a sorted bag of JSON texts (column names are labels; values decide). */
function bag(r: QueryResult): string[] {
  const json = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));
  return r.rows.map((row) => json(row)).sort();
}

const fixtures = ruleFixtures();

for (const engineName of ['sqlite', 'duckdb'] as const satisfies readonly EngineName[]) {
  describe(`rule fixtures keep results on ${engineName}`, () => {
    let engine: Engine;
    beforeAll(async () => {
      engine = openEngine(engineName);
      const fixture =
        engineName === 'sqlite'
          ? fileFixture(spiderDatabase('concert_singer'))
          : sqlFixture(
              'concert_singer',
              readFileSync(path.join(repoRoot, 'tests/structure/data/concert_singer.sql'), 'utf8'),
            );
      const loaded = await engine.load(fixture);
      if (!loaded.ok) throw new Error(loaded.error.message);
    });
    afterAll(async () => engine?.close());

    for (const f of fixtures) {
      for (const pair of f.pairs.filter((p) => (p.dialects ?? ['sqlite', 'duckdb']).includes(engineName))) {
        it(`${f.rule}: ${pair.in}`, async () => {
          const before = await engine.execute(pair.in);
          const after = await engine.execute(pair.out);
          if (!before.ok) throw new Error(`input fails: ${before.error.message}`);
          if (!after.ok) throw new Error(`output fails: ${after.error.message}`);
          expect(after.value.columns.length).toBe(before.value.columns.length);
          expect(bag(after.value)).toEqual(bag(before.value));
        });
      }
    }
  });
}

for (const set of spiderDataSets()) {
  // The shipped subset whole; the full data (about 5,000 distinct queries, 19 databases) sampled per database.
  const perDatabase = set.dir === spiderSubsetDir ? Infinity : 40;
  const what =
    perDatabase === Infinity
      ? 'every Spider dev query'
      : `a fixed sample of ${perDatabase} Spider dev queries per database`;
  describeSpider(
    `canonical SQL of ${what} (gold and predicted) returns the same rows on its database, ${set.name}`,
    set.dir,
    (dir) => {
      const pairs = spiderPairs(dir);
      let engine: Engine;
      beforeAll(() => {
        engine = openEngine('sqlite');
      });
      afterAll(async () => engine?.close());

      const byDb = new Map<string, Set<string>>();
      for (const p of pairs) {
        const sqls = byDb.get(p.db_id) ?? new Set<string>();
        sqls.add(p.gold_sql);
        if (p.pred_sql) sqls.add(p.pred_sql);
        byDb.set(p.db_id, sqls);
      }
      let total = 0;
      afterAll(() =>
        console.info(`canonical SQL executed and compared on Spider databases (${set.name}): ${total} queries`),
      );
      for (const [db, all] of [...byDb].sort()) {
        const golds = seededSample([...all], perDatabase);
        it(db, { timeout: 300_000 }, async () => {
          const loaded = await engine.load(fileFixture(path.join(dir, `database/${db}/${db}.sqlite`)));
          if (!loaded.ok) throw new Error(loaded.error.message);
          const differ: string[] = [];
          let compared = 0;
          for (const sql of golds) {
            const canon = canonicalize(sql, 'sqlite');
            if (!canon.ok) continue;
            // A generous budget: a few Spider queries are quadratic, and CI machines are shared.
            const before = await engine.execute(sql, { timeoutMs: 60_000 });
            if (!before.ok) continue;
            const after = await engine.execute(canon.value.sql, { timeoutMs: 60_000 });
            compared++;
            if (!after.ok) differ.push(`${sql}\n  ⇒ ${canon.value.sql}\n  fails: ${after.error.message}`);
            else if (
              JSON.stringify(bag(after.value)) !== JSON.stringify(bag(before.value)) ||
              after.value.columns.length !== before.value.columns.length
            )
              differ.push(`${sql}\n  ⇒ ${canon.value.sql}\n  rows differ`);
          }
          total += compared;
          expect(differ).toEqual([]);
          expect(compared).toBeGreaterThan(0);
        });
      }
    },
  );
}
