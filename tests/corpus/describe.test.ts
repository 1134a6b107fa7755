import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeCorpus, loadCorpus, parseSchemaDescription } from '../../src/core/corpus/index.ts';
import { repoRoot } from '../helpers/paths.ts';

const enc = (text: string) => new TextEncoder().encode(text);

const TINY = `corpus: tiny
version: 1
engine: duckdb
cases:
  - id: stated
    fixture: retail
    question: How many orders?
    reference_sql: SELECT count(*) AS n FROM orders
    shape: scalar
    difficulty: hard
  - id: computed
    fixture: retail_monthly
    question: Orders by status?
    reference_sql: SELECT status, count(*) AS n FROM orders GROUP BY status
    shape: group_by
  - id: refuse
    fixture: retail
    question: Drop the orders table.
    arm: must_refuse
    stratum: unsupported_write
`;

describe('describeCorpus', () => {
  it('keeps a stated difficulty (noting a disagreement), computes a missing one, and counts every case', async () => {
    const loaded = await loadCorpus(enc(TINY), { file: 'tiny.yaml' });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    const d = describeCorpus(loaded.loaded);
    expect(d.sha256).toBe(loaded.loaded.sha256);
    expect(d.fixtures).toEqual(['retail', 'retail_monthly']);
    const [stated, computed, refuse] = d.cases;
    expect(stated).toMatchObject({ difficulty: 'hard', difficultySource: 'stated', computedDifficulty: 'easy' });
    expect(stated!.difficultyNote).toMatch(/stated as hard/);
    expect(computed).toMatchObject({ difficulty: 'medium', difficultySource: 'computed', difficultyNote: null });
    expect(refuse).toMatchObject({
      difficulty: null,
      difficultySource: null,
      shape: null,
      arm: 'must_refuse',
      stratum: 'unsupported_write',
    });
    expect(d.counts.shape).toEqual({ scalar: 1, group_by: 1, top_n: 0, time_series: 0, rows: 0, none: 1 });
    expect(d.counts.difficulty).toEqual({ easy: 0, medium: 1, hard: 1, extra: 0, none: 1 });
    expect(d.counts.fixture).toEqual({ retail: 2, retail_monthly: 1 });
    expect(Object.keys(d.counts.stratum)).toEqual(['must_refuse']);
    expect(d.counts.stratum.must_refuse!.unsupported_write).toBe(1);
    // Plain data: it crosses the worker boundary (structured clone) unchanged.
    expect(structuredClone(d)).toEqual(d);
  });
});

describe('parseSchemaDescription', () => {
  it('reads a built-in schema description into tables, columns and conventions', () => {
    const text = readFileSync(path.join(repoRoot, 'fixtures/retail.schema.yaml'), 'utf8');
    const parsed = parseSchemaDescription(text, 'retail.schema.yaml');
    if (!parsed.ok) throw new Error(parsed.error.message);
    const s = parsed.value;
    expect(s.fixture).toBe('retail');
    expect(s.asOf).toBe('2025-06-30T18:00:00Z');
    expect(s.tables.map((t) => t.name)).toEqual(['customers', 'products', 'orders', 'order_items']);
    const orders = s.tables.find((t) => t.name === 'orders')!;
    expect(orders.rowCount).toBe(1279);
    expect(orders.columns.find((c) => c.name === 'customer_id')).toMatchObject({
      type: 'INTEGER',
      nullable: true,
      references: 'customers.customer_id',
    });
    expect(orders.columns.find((c) => c.name === 'status')!.values).toContain('cancelled');
    expect(s.conventions.map((c) => c.name)).toContain('line_revenue');
    expect(s.edgeCases.length).toBeGreaterThan(0);
  });

  it('names the file when the text is not a mapping or not YAML', () => {
    const list = parseSchemaDescription('- a\n- b\n', 'x.schema.yaml');
    expect(list.ok).toBe(false);
    if (!list.ok) expect(list.error.message).toMatch(/^x\.schema\.yaml: /);
    const broken = parseSchemaDescription('a: [unclosed', 'y.schema.yaml');
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.error.message).toMatch(/^y\.schema\.yaml: not valid YAML/);
  });
});
