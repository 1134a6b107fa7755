import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadCorpus, STRATA, strataCounts, type Corpus } from '../../src/core/corpus/index.ts';
import { resolveFixture } from '../../src/cli/fixtures.ts';
import { openEngine } from '../../src/engines/node.ts';
import type { SupervisedEngine } from '../../src/engines/supervisor.ts';
import { CONTROL_REWRITES } from '../../scripts/fixtures/runs/rewrites.ts';
import { repoRoot } from '../helpers/paths.ts';
import { resultMismatch } from './result-match.ts';

const FILE = 'fixtures/corpora/refusal_battery.yaml';
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

describe('refusal battery: the strata', () => {
  it('has exactly 60 cases, all on the retail schema: 40 must_refuse and 20 must_answer', () => {
    expect(corpus.cases).toHaveLength(60);
    expect(new Set(corpus.cases.map((c) => c.fixture))).toEqual(new Set(['retail']));
    expect(corpus.cases.filter((c) => c.arm === 'must_refuse')).toHaveLength(40);
    expect(corpus.cases.filter((c) => c.arm === 'must_answer')).toHaveLength(20);
  });

  it('has the per-stratum counts of the methodology, and declares them', () => {
    const want = {
      must_refuse: {
        out_of_schema: 8,
        nonexistent_column: 7,
        injection: 7,
        unsupported_write: 6,
        non_analytical: 6,
        ambiguous: 6,
      },
      must_answer: { control_scalar: 11, control_group_by: 5, control_top_n: 2, control_time_series: 2 },
    };
    expect(strataCounts(corpus.cases)).toEqual(want);
    expect(corpus.declared.strata).toEqual(want);
    expect(Object.keys(want.must_refuse)).toEqual([...STRATA.must_refuse]);
  });

  it('gives every must_refuse case a rationale and no answer; every control a reference and a frozen result', () => {
    for (const c of corpus.cases) {
      if (c.arm === 'must_refuse') {
        expect(c.referenceSql, c.id).toBeUndefined();
        expect(c.expected, c.id).toBeUndefined();
        expect(c.rationale?.trim().length ?? 0, c.id).toBeGreaterThan(20);
      } else {
        expect(c.referenceSql, c.id).toBeDefined();
        expect(c.expected!.rows.length, c.id).toBeGreaterThan(0);
      }
    }
    const shapes = corpus.cases.filter((c) => c.arm === 'must_answer').map((c) => `${c.stratum}:${c.shape}`);
    for (const s of shapes) expect(s.replace('control_', '').split(':')[0]).toBe(s.split(':')[1]);
  });
});

describe('refusal battery: must_refuse cases ask for what the schema does not hold', () => {
  const schema = parse(readFileSync(path.join(repoRoot, 'fixtures/retail.schema.yaml'), 'utf8')) as {
    tables: { name: string; columns: { name: string }[] }[];
  };
  const names = new Set(schema.tables.flatMap((t) => [t.name, ...t.columns.map((c) => c.name)]));
  /** The concept each out-of-schema or missing-column case needs, as names that would have to exist. */
  const NEEDS: Record<string, string[]> = {
    'oos-marketing-spend': ['marketing_spend', 'campaigns', 'spend'],
    'oos-website-traffic': ['sessions', 'visits', 'page_views'],
    'oos-stock-on-hand': ['inventory', 'stock', 'stock_on_hand'],
    'oos-suppliers': ['suppliers', 'supplier_id'],
    'oos-sales-associates': ['employees', 'staff', 'employee_id', 'sales_associate'],
    'oos-shipping-cost': ['shipping_cost', 'shipments', 'freight'],
    'oos-support-tickets': ['tickets', 'support_tickets'],
    'oos-competitor-prices': ['competitor_prices', 'competitor_price'],
    'col-customer-age': ['age', 'birth_date', 'date_of_birth'],
    'col-customer-gender': ['gender', 'sex'],
    'col-customer-phone': ['phone', 'phone_number'],
    'col-product-weight': ['weight', 'shipping_weight'],
    'col-payment-method': ['payment_method', 'payments'],
    'col-coupon-code': ['coupon_code', 'coupon', 'promo_code'],
    'col-delivered-at': ['delivered_at', 'delivery_date', 'shipped_at'],
  };

  it('names no table or column the missing concept could be read from', () => {
    const ids = corpus.cases
      .filter((c) => c.stratum === 'out_of_schema' || c.stratum === 'nonexistent_column')
      .map((c) => c.id);
    expect(Object.keys(NEEDS).sort()).toEqual(ids.sort());
    for (const [id, needed] of Object.entries(NEEDS))
      for (const name of needed) expect(names.has(name), `${id}: ${name}`).toBe(false);
  });

  it('keeps must_refuse questions distinct from every control question', () => {
    const questions = corpus.cases.map((c) => c.question.toLowerCase());
    expect(new Set(questions).size).toBe(questions.length);
  });
});

describe('refusal battery: each control answer agrees with a second, independent query', () => {
  let engine: SupervisedEngine;
  beforeAll(async () => {
    engine = openEngine('duckdb');
    const loaded = await engine.load(resolveFixture('retail', repoRoot).source);
    if (!loaded.ok) throw new Error(loaded.error.message);
  }, 120_000);
  afterAll(async () => {
    await engine?.close();
  });

  it('every control rewrite returns the frozen expected result', async () => {
    const controls = corpus.cases.filter((c) => c.arm === 'must_answer');
    expect(Object.keys(CONTROL_REWRITES).sort()).toEqual(controls.map((c) => c.id).sort());
    const failures: string[] = [];
    for (const c of controls) {
      const outcome = await engine.execute(CONTROL_REWRITES[c.id]!);
      if (!outcome.ok) {
        failures.push(`${c.id}: ${outcome.error.message}`);
        continue;
      }
      const mismatch = resultMismatch(c.expected!, outcome.value, c.orderMatters);
      if (mismatch) failures.push(`${c.id}: ${mismatch}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
