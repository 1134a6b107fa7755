import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCorpus, type Corpus, type CorpusCase } from '../../src/core/corpus/index.ts';
import type { ResultTable } from '../../src/core/value/kind.ts';
import { resolveFixture } from '../../src/cli/fixtures.ts';
import { openEngine } from '../../src/engines/node.ts';
import type { SupervisedEngine } from '../../src/engines/supervisor.ts';
import { GOLDEN_REWRITES } from '../../scripts/fixtures/runs/rewrites.ts';
import { repoRoot } from '../helpers/paths.ts';
import { resultMismatch } from './result-match.ts';

const FILE = 'fixtures/corpora/execution_goldens.yaml';
let corpus: Corpus;

beforeAll(async () => {
  const result = await loadCorpus(new Uint8Array(readFileSync(path.join(repoRoot, FILE))), {
    file: FILE,
    knownFixtures: ['retail', 'retail_monthly'],
  });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  expect(result.problems).toEqual([]);
  corpus = result.loaded.corpus;
});

const tally = (cases: CorpusCase[], key: (c: CorpusCase) => string | undefined) =>
  cases.reduce<Record<string, number>>((acc, c) => ((acc[key(c) ?? '?'] = (acc[key(c) ?? '?'] ?? 0) + 1), acc), {});

describe('execution goldens: the corpus', () => {
  it('has exactly 64 cases over both fixtures, at least 20 on retail_monthly', () => {
    expect(corpus.cases).toHaveLength(64);
    expect(tally(corpus.cases, (c) => c.fixture)).toEqual({ retail: 40, retail_monthly: 24 });
  });

  it('spans the difficulty pyramid and every shape', () => {
    expect(tally(corpus.cases, (c) => c.difficulty)).toEqual({ easy: 12, medium: 16, hard: 24, extra: 12 });
    expect(Object.keys(tally(corpus.cases, (c) => c.shape)).sort()).toEqual([
      'group_by',
      'rows',
      'scalar',
      'time_series',
      'top_n',
    ]);
  });

  it('covers month-over-month, quarter-over-quarter and year-over-year comparisons on retail_monthly', () => {
    const monthly = corpus.cases.filter((c) => c.fixture === 'retail_monthly');
    for (const tag of ['mom', 'qoq', 'yoy'])
      expect(monthly.filter((c) => c.tags.includes(tag)).length, tag).toBeGreaterThanOrEqual(4);
  });

  it('freezes an expected result for every case; scalars are one row and one column; none is empty', () => {
    for (const c of corpus.cases) {
      expect(c.expected, c.id).toBeDefined();
      expect(c.expected!.rows.length, c.id).toBeGreaterThan(0);
      if (c.shape === 'scalar') expect([c.expected!.rows.length, c.expected!.columns.length], c.id).toEqual([1, 1]);
      if (c.shape === 'top_n' || c.shape === 'time_series') expect(c.orderMatters, c.id).toBe(true);
    }
  });

  it('uses the clock only through the frozen current_date', () => {
    for (const c of corpus.cases) {
      expect(c.referenceSql, c.id).not.toMatch(/\b(now|today|random|current_timestamp|get_current_timestamp)\s*\(/i);
      if (/current_date/i.test(c.referenceSql!)) expect(c.tags, c.id).toContain('frozen-clock');
    }
  });

  it('has a second formulation for every case, and it is not the reference', () => {
    expect(Object.keys(GOLDEN_REWRITES).sort()).toEqual(corpus.cases.map((c) => c.id).sort());
    const squash = (sql: string) => sql.replace(/\s+/g, ' ').trim().toLowerCase();
    for (const c of corpus.cases) expect(squash(GOLDEN_REWRITES[c.id]!), c.id).not.toBe(squash(c.referenceSql!));
  });
});

describe('execution goldens: each answer agrees with a second, independent query', () => {
  let engine: SupervisedEngine;
  const results = new Map<string, ResultTable>();

  beforeAll(async () => {
    engine = openEngine('duckdb');
    for (const fixture of ['retail', 'retail_monthly']) {
      const loaded = await engine.load(resolveFixture(fixture, repoRoot).source);
      if (!loaded.ok) throw new Error(loaded.error.message);
      for (const c of corpus.cases.filter((x) => x.fixture === fixture)) {
        const outcome = await engine.execute(GOLDEN_REWRITES[c.id]!, { timeoutMs: 20_000 });
        if (!outcome.ok) throw new Error(`${c.id}: ${outcome.error.message} ${outcome.error.raw ?? ''}`);
        results.set(c.id, outcome.value);
      }
    }
  }, 300_000);

  afterAll(async () => {
    await engine?.close();
  });

  it('every rewrite returns the frozen expected result', () => {
    const failures: string[] = [];
    for (const c of corpus.cases) {
      const mismatch = resultMismatch(c.expected!, results.get(c.id)!, c.orderMatters);
      if (mismatch) failures.push(`${c.id}: ${mismatch}`);
    }
    expect(failures).toEqual([]);
  });
});

describe('execution goldens: answers recomputed in TypeScript from the generator rows', () => {
  const cents = (text: string | number | null | undefined) =>
    text === null || text === undefined ? 0 : Math.round(Number(text) * 100);
  const expectedOf = (id: string) => corpus.cases.find((c) => c.id === id)!.expected!;

  it('monthly revenue and order counts equal the series the generator checked for distinctness', async () => {
    const { generateRetailMonthly } = await import('../../scripts/fixtures/retail-monthly.ts');
    const { series } = generateRetailMonthly();
    expect(expectedOf('monthly-revenue-by-month').rows.map((r) => cents(r[1] as string))).toEqual(series.revenueCents);
    expect(expectedOf('monthly-orders-by-month').rows.map((r) => r[1])).toEqual(series.orderCounts);
  });

  it('retail: 2024 net revenue, customers without orders, most-returned products, top products by units', async () => {
    const { generateRetail } = await import('../../scripts/fixtures/retail.ts');
    const [customers, products, orders, items] = generateRetail();
    const status = new Map(orders!.rows.map((o) => [o[0] as number, o[3] as string]));
    const ts = new Map(orders!.rows.map((o) => [o[0] as number, o[2] as string]));
    const live = (orderId: number) => status.get(orderId) !== 'cancelled';
    const net = (l: (string | number | null)[]) => (l[3] as number) * cents(l[4]) - cents(l[5]);

    const revenue2024 = items!.rows
      .filter((l) => live(l[0] as number) && ts.get(l[0] as number)!.startsWith('2024'))
      .reduce((s, l) => s + net(l), 0);
    expect(cents(expectedOf('retail-net-revenue-2024').rows[0]![0] as string)).toBe(revenue2024);

    const ordering = new Set(orders!.rows.map((o) => o[1]));
    const without = customers!.rows.filter((c) => !ordering.has(c[0])).map((c) => c[0]);
    expect(
      expectedOf('retail-customers-without-orders')
        .rows.map((r) => r[0])
        .sort((a, b) => Number(a) - Number(b)),
    ).toEqual(without);

    const returned = new Map<number, number>();
    for (const l of items!.rows)
      if ((l[3] as number) < 0) returned.set(l[2] as number, (returned.get(l[2] as number) ?? 0) - (l[3] as number));
    const most = Math.max(...returned.values());
    const sku = new Map(products!.rows.map((p) => [p[0] as number, p[1] as string]));
    const tied = [...returned]
      .filter(([, n]) => n === most)
      .map(([id]) => sku.get(id)!)
      .sort();
    expect(
      expectedOf('retail-most-returned-products')
        .rows.map((r) => r[0])
        .sort(),
    ).toEqual(tied);

    const units = new Map<number, number>();
    for (const l of items!.rows)
      if (live(l[0] as number)) units.set(l[2] as number, (units.get(l[2] as number) ?? 0) + (l[3] as number));
    const ranked = [...units].map(([id, u]) => ({ id, u, rank: 1 + [...units.values()].filter((v) => v > u).length }));
    const top = ranked
      .filter((r) => r.rank <= 3)
      .sort((a, b) => a.rank - b.rank || a.id - b.id)
      .map((r) => [r.rank, r.id, r.u]);
    expect(expectedOf('retail-top3-products-by-units').rows.map((r) => [r[0], r[1], r[3]])).toEqual(top);
  });

  it('retail_monthly: percentage changes agree with exact rational arithmetic (no rounding on a knife edge)', async () => {
    const { generateRetailMonthly } = await import('../../scripts/fixtures/retail-monthly.ts');
    const r = generateRetailMonthly().series.revenueCents;
    // Round half away from zero on the exact ratio, in hundredths of a percent.
    const pct = (cur: number, prev: number) => {
      const scaled = (BigInt(cur - prev) * 1_000_000n) / BigInt(prev); // 1e-4 % units, truncated
      const sign = scaled < 0n ? -1n : 1n;
      const abs = scaled * sign;
      return Number(sign * ((abs + 50n) / 100n)) / 100;
    };
    const y24 = r.slice(0, 12).reduce((a, b) => a + b, 0);
    const y25 = r.slice(12).reduce((a, b) => a + b, 0);
    expect(expectedOf('monthly-yoy-2025-vs-2024').rows[0]![0]).toBe(pct(y25, y24));
    const q = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => r[3 * i]! + r[3 * i + 1]! + r[3 * i + 2]!);
    expect(expectedOf('monthly-qoq-last-quarter').rows[0]![0]).toBe(pct(q[7]!, q[6]!));
    const mom = r.slice(1).map((v, i) => ({ month: i + 1, exact: (v - r[i]!) / r[i]!, pct: pct(v, r[i]!) }));
    const best = mom.reduce((a, b) => (b.exact > a.exact ? b : a));
    const month = `${2024 + Math.floor(best.month / 12)}-${String((best.month % 12) + 1).padStart(2, '0')}-01`;
    expect(expectedOf('monthly-largest-mom-increase-pct').rows[0]).toEqual([month, best.pct]);
  });
});

describe('execution goldens: the checks can fail', () => {
  let engine: SupervisedEngine;
  beforeAll(async () => {
    engine = openEngine('duckdb');
  }, 120_000);
  afterAll(async () => {
    await engine?.close();
  });

  const WRONG: [string, string, string][] = [
    [
      'retail',
      'retail-net-revenue-2024',
      "SELECT sum(oi.quantity * oi.unit_price - oi.discount) FROM orders o JOIN order_items oi USING (order_id) WHERE o.status <> 'cancelled' AND year(o.order_ts) = 2024",
    ],
    [
      'retail',
      'retail-customers-without-orders',
      'SELECT customer_id, customer_name FROM customers WHERE customer_id NOT IN (SELECT customer_id FROM orders)',
    ],
    ['retail', 'retail-orders-on-2024-12-31', "SELECT count(*) FROM orders WHERE order_ts = TIMESTAMP '2024-12-31'"],
    [
      'retail',
      'retail-top3-products-by-units',
      'SELECT row_number() OVER (ORDER BY sum(quantity) DESC) r, product_id, any_value(product_id)::VARCHAR, sum(quantity) FROM order_items GROUP BY product_id ORDER BY 1 LIMIT 3',
    ],
    [
      'retail_monthly',
      'monthly-yoy-by-month-2025',
      "WITH m AS (SELECT date_trunc('month', o.order_ts) AS month, sum(oi.quantity * oi.unit_price - COALESCE(oi.discount, 0)) AS rev FROM orders o JOIN order_items oi USING (order_id) WHERE o.status <> 'cancelled' GROUP BY 1) SELECT month, rev, lag(rev, 11) OVER (ORDER BY month), rev - lag(rev, 11) OVER (ORDER BY month) FROM m QUALIFY year(month) = 2025 ORDER BY month",
    ],
  ];

  it('a plausible wrong query does not match the frozen answer', async () => {
    for (const [fixture, id, sql] of WRONG) {
      const loaded = await engine.load(resolveFixture(fixture, repoRoot).source);
      expect(loaded.ok).toBe(true);
      const outcome = await engine.execute(sql);
      if (!outcome.ok) throw new Error(`${id}: ${outcome.error.message}`);
      const c = corpus.cases.find((x) => x.id === id)!;
      expect(resultMismatch(c.expected!, outcome.value, c.orderMatters), id).not.toBeNull();
    }
  }, 120_000);
});

describe('execution goldens and controls: no LIMIT leaves the question ambiguous', () => {
  let engine: SupervisedEngine;
  beforeAll(() => {
    engine = openEngine('duckdb');
  });
  afterAll(async () => {
    await engine?.close();
  });

  it('the primary ORDER BY key differs between the last kept row and the first dropped one', async () => {
    const { outlineQuery } = await import('../../src/core/corpus/sql-tokens.ts');
    const battery = await loadCorpus(
      new Uint8Array(readFileSync(path.join(repoRoot, 'fixtures/corpora/refusal_battery.yaml'))),
      { file: 'battery' },
    );
    if (!battery.ok) throw new Error('battery');
    const limited = [...corpus.cases, ...battery.loaded.corpus.cases].filter(
      (c) => c.referenceSql && outlineQuery(c.referenceSql).limit,
    );
    expect(limited.length).toBeGreaterThanOrEqual(8);
    const failures: string[] = [];
    for (const c of limited) {
      const q = outlineQuery(c.referenceSql!);
      const primary = q.orderBy!.keys[0]!;
      // Without its tie-breakers the reference must still pick the same rows, unless the question states how ties break.
      if (/\bties?\b/i.test(c.question)) continue;
      const loaded = await engine.load(resolveFixture(c.fixture, repoRoot).source);
      if (!loaded.ok) throw new Error(loaded.error.message);
      const probe = `${q.sql.slice(0, q.orderBy!.start)}ORDER BY ${primary.expression} ${primary.modifiers} LIMIT ${q.limit!.count + 1}`;
      const out = await engine.execute(probe);
      if (!out.ok) throw new Error(`${c.id}: ${out.error.message}`);
      const rows = out.value.rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
      const expected = c.expected!.rows.map((r) =>
        JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)),
      );
      if (
        rows.length > q.limit!.count &&
        JSON.stringify(rows.slice(0, q.limit!.count).sort()) !== JSON.stringify([...expected].sort())
      )
        failures.push(c.id);
      const keyIndex = out.value.columns.findIndex((col) => col.name === primary.expression.replace(/^\w+\./, ''));
      if (
        keyIndex >= 0 &&
        rows.length > q.limit!.count &&
        JSON.stringify(out.value.rows[q.limit!.count - 1]![keyIndex]) ===
          JSON.stringify(out.value.rows[q.limit!.count]![keyIndex])
      )
        failures.push(`${c.id}: rows ${q.limit!.count} and ${q.limit!.count + 1} tie on ${primary.expression}`);
    }
    expect(failures).toEqual([]);
  }, 240_000);
});

describe('every reference is within reach of the structural layer', () => {
  it('parses with the structural parser, so clause diffs and diagnostics are never blocked on a golden', async () => {
    const { parseSql } = await import('../../src/core/structure/parse.ts');
    const battery = await loadCorpus(
      new Uint8Array(readFileSync(path.join(repoRoot, 'fixtures/corpora/refusal_battery.yaml'))),
      { file: 'battery' },
    );
    if (!battery.ok) throw new Error('battery');
    const failures = [...corpus.cases, ...battery.loaded.corpus.cases]
      .filter((c) => c.referenceSql)
      .flatMap((c) => {
        const parsed = parseSql(c.referenceSql!, 'duckdb');
        return parsed.ok ? [] : [`${c.id}: ${parsed.error.message}`];
      });
    expect(failures).toEqual([]);
  });
});
