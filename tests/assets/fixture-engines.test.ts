import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFixtureManifest, type FixtureManifestEntry } from '../../src/core/corpus/index.ts';
import { ENGINE_NAMES } from '../../src/core/engine.ts';
import { resolveFixture } from '../../src/cli/fixtures.ts';
import { openEngine } from '../../src/engines/node.ts';
import type { SupervisedEngine } from '../../src/engines/supervisor.ts';
import { monthlyViolations } from '../../scripts/fixtures/monthly-properties.ts';
import { repoRoot } from '../helpers/paths.ts';

const manifest = parseFixtureManifest(readFileSync(path.join(repoRoot, 'fixtures/fixtures.json'), 'utf8'));
if (!manifest.ok) throw new Error('bad manifest');
const entries: FixtureManifestEntry[] = manifest.entries;

// The server engine cannot freeze current_date: its built-in fixtures are checked in tests/engines/pg-suite.ts.
describe.each(ENGINE_NAMES.filter((e) => e !== 'postgres'))('built-in fixtures on %s', (engineName) => {
  let engine: SupervisedEngine;
  beforeAll(() => {
    engine = openEngine(engineName);
  });
  afterAll(async () => {
    await engine?.close();
  });

  it.each(entries.map((e) => [e.name, e] as const))(
    '%s loads with the content digest the generator computed',
    async (_name, entry) => {
      const info = await engine.load(resolveFixture(entry.name, repoRoot).source);
      if (!info.ok) throw new Error(info.error.message);
      expect(info.value.contentDigest).toBe(entry.contentDigest);
      expect(Object.fromEntries(info.value.tables.map((t) => [t.name, t.rowCount]))).toEqual(entry.tables);
      const clock = await engine.execute('SELECT CAST(current_date AS VARCHAR) AS today');
      if (!clock.ok) throw new Error(clock.error.message);
      expect(clock.value.rows).toEqual([[entry.asOf.slice(0, 10)]]);
    },
    120_000,
  );

  it('retail_monthly keeps every monthly total and period delta pairwise distinct, read back from the engine', async () => {
    const info = await engine.load(resolveFixture('retail_monthly', repoRoot).source);
    expect(info.ok).toBe(true);
    // Portable SQL (both engines): month keys as text, revenue as whole cents.
    const revenue = await engine.execute(`
      SELECT substr(CAST(o.order_ts AS VARCHAR), 1, 7) AS month,
             CAST(round(sum(oi.quantity * oi.unit_price * 100 - COALESCE(oi.discount, 0) * 100)) AS BIGINT) AS cents
      FROM orders o JOIN order_items oi ON oi.order_id = o.order_id
      WHERE o.status <> 'cancelled'
      GROUP BY 1 ORDER BY 1`);
    const counts = await engine.execute(
      `SELECT substr(CAST(order_ts AS VARCHAR), 1, 7) AS month, count(*) AS n FROM orders GROUP BY 1 ORDER BY 1`,
    );
    if (!revenue.ok || !counts.ok) throw new Error('query failed');
    expect(revenue.value.rows.map((r) => r[0])).toEqual(counts.value.rows.map((r) => r[0]));
    expect(revenue.value.rows[0]![0]).toBe('2024-01');
    expect(revenue.value.rows[23]![0]).toBe('2025-12');
    const series = {
      revenueCents: revenue.value.rows.map((r) => Number(r[1])),
      orderCounts: counts.value.rows.map((r) => Number(r[1])),
    };
    expect(monthlyViolations(series)).toEqual([]);
  }, 120_000);
});
