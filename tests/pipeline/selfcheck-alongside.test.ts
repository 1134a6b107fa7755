/**
 * The oracle self-check of a run goes alongside the grading (src/core/run/grade-run.ts,
 * OracleCheck): the first case is graded once its own reference is checked, not after every
 * reference; a broken reference still refuses the run, naming each broken reference and why (the
 * self-check's oracle check, `expectedMismatch`) and recording no case from it on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnginePool } from '../../src/cli/engine-pool.ts';
import { loadCorpus } from '../../src/core/corpus/load-corpus.ts';
import { loadRun } from '../../src/core/corpus/load-run.ts';
import type { Engine } from '../../src/core/engine.ts';
import { ok, type Outcome } from '../../src/core/errors.ts';
import { gradeRun, type GradeProgress } from '../../src/core/run/grade-run.ts';
import { repoRoot } from '../helpers/paths.ts';

const COUNTS: [string, number][] = [
  ['customers', 160],
  ['orders', 1279],
  ['products', 30],
  ['order_items', 2422],
];

const MONTHLY_COUNTS: [string, number][] = [
  ['customers', 240],
  ['orders', 2236],
  ['products', 30],
  ['order_items', 4333],
];

/**
 * Four count cases on sql.js; `broken` lists the cases whose frozen count is off by one. `twoFixtures`: four more
 * on retail_monthly after them (ids `monthly-count-<table>`).
 */
async function inputs(broken: number[], twoFixtures = false) {
  const all: [string, number, string][] = [
    ...COUNTS.map(([t, n]): [string, number, string] => [t, n, 'retail']),
    ...(twoFixtures ? MONTHLY_COUNTS.map(([t, n]): [string, number, string] => [t, n, 'retail_monthly']) : []),
  ];
  const idOf = (table: string, fixture: string) => `${fixture === 'retail' ? '' : 'monthly-'}count-${table}`;
  const corpus = {
    corpus: 'alongside',
    version: 1,
    engine: 'sqlite',
    cases: all.map(([table, n, fixture], i) => ({
      id: idOf(table, fixture),
      fixture,
      question: `How many rows has ${table}?`,
      reference_sql: `SELECT count(*) AS n FROM ${table}`,
      shape: 'scalar',
      expected: {
        columns: [{ name: 'n', kind: 'integer', engine_type: 'INTEGER' }],
        rows: [[broken.includes(i) ? n + 1 : n]],
      },
    })),
  };
  const loaded = await loadCorpus(new TextEncoder().encode(JSON.stringify(corpus)), { file: 'alongside.json' });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  const lines = [
    '{"run":{"agent":"t"}}',
    ...all.map(([table, , fixture]) =>
      JSON.stringify({ id: idOf(table, fixture), sql: `SELECT count(*) AS n FROM ${table}` }),
    ),
  ];
  const run = await loadRun(new TextEncoder().encode(lines.join('\n')), {
    file: 'run.jsonl',
    caseIds: loaded.loaded.corpus.cases.map((c) => c.id),
  });
  if (!run.ok) throw new Error(JSON.stringify(run.problems));
  return { corpus: loaded.loaded, run: run.run };
}

describe('the self-check alongside the grading', () => {
  let engines: EnginePool;
  beforeAll(() => {
    engines = new EnginePool('sqlite', new Map(), repoRoot);
  });
  afterAll(() => engines.close());

  it('grades the first case before the last reference is checked, and reports every reference checked', async () => {
    // The self-check's query of the last reference is held until the first case is recorded: checking every
    // reference before grading would wait out the fallback, and the order below would show it.
    let release!: () => void;
    const firstCase = new Promise<void>((resolve) => (release = resolve));
    const last = 'SELECT count(*) AS n FROM order_items';
    const events: string[] = [];
    const engineFor = async (name: string): Promise<Outcome<Engine>> => {
      const opened = await engines.engineFor(name);
      if (!opened.ok) return opened;
      const e = opened.value;
      const execute: Engine['execute'] = async (sql, options) => {
        if (sql === last && options === undefined)
          await Promise.race([firstCase, new Promise((resolve) => setTimeout(resolve, 5000))]);
        const run = await e.execute(sql, options);
        if (sql === last && options === undefined) events.push('last reference checked');
        return run;
      };
      return ok({
        name: e.name,
        version: () => e.version(),
        load: (f) => e.load(f),
        execute,
        contentDigest: () => e.contentDigest(),
        explain: (q, o) => e.explain(q, o),
        close: () => e.close(),
      });
    };
    const graded = await gradeRun({
      ...(await inputs([])),
      engineFor,
      concurrency: 1,
      onCase: (_k, index) => {
        events.push(`case ${index}`);
        if (index === 0) release();
      },
      onProgress: (p: GradeProgress) => {
        if (p.step === 'selfcheck') events.push(`check ${p.index}`);
      },
    });
    if (!graded.ok) throw new Error(graded.error.message);
    expect(graded.value.self_check).toEqual({ passed: true, checked: 4, findings: [] });
    expect(graded.value.summary.answer_accuracy.correct).toBe(4);
    expect(events.indexOf('case 0')).toBeLessThan(events.indexOf('last reference checked'));
    // A case starts only after its own reference was checked.
    for (let i = 0; i < 4; i++) expect(events.indexOf(`check ${i}`)).toBeLessThan(events.indexOf(`case ${i}`));
  });

  it('refuses a run with broken references, naming each one and why, and records no case from the first on', async () => {
    const broken = await inputs([1, 3]);
    const recorded: number[] = [];
    const graded = await gradeRun({
      ...broken,
      engineFor: engines.engineFor,
      onCase: (_k, index) => recorded.push(index),
    });
    expect(graded.ok).toBe(false);
    if (graded.ok) return;
    expect(graded.error.message).toMatch(
      /^The oracle self-check failed, grading refused: count-orders \(The reference no longer returns its frozen expected result\. value_mismatch: .+expected 1280, got 1279.+\); count-order_items \(The reference no longer returns its frozen expected result\. value_mismatch: .+expected 2423, got 2422.+\)$/,
    );
    expect(graded.error.location).toBe('count-orders, count-order_items');
    expect(recorded.every((i) => i < 1)).toBe(true);
  });

  it('by fixture: a held query on one fixture holds up only its references; cases are told once all passed, in order', async () => {
    // Retail's second reference is held until a retail_monthly case has been graded: with one chain for all
    // references, retail_monthly's would wait behind it (its cases too) and the fallback would run out; the order
    // below would show it.
    let release!: () => void;
    const monthlyGraded = new Promise<void>((resolve) => (release = resolve));
    const events: string[] = [];
    const engineFor = async (name: string): Promise<Outcome<Engine>> => {
      const opened = await engines.engineFor(name);
      if (!opened.ok) return opened;
      const e = opened.value;
      const held = name === 'retail' ? 'SELECT count(*) AS n FROM orders' : null;
      const execute: Engine['execute'] = async (sql, options) => {
        const reference = options === undefined;
        if (reference && sql === held)
          await Promise.race([monthlyGraded, new Promise((resolve) => setTimeout(resolve, 5000))]);
        const run = await e.execute(sql, options);
        events.push(reference ? `checked ${name} ${sql}` : `graded on ${name}`);
        if (!reference && name === 'retail_monthly') release();
        return run;
      };
      return ok({
        name: e.name,
        version: () => e.version(),
        load: (f) => e.load(f),
        execute,
        contentDigest: () => e.contentDigest(),
        explain: (q, o) => e.explain(q, o),
        close: () => e.close(),
      });
    };
    const told: number[] = [];
    const graded = await gradeRun({
      ...(await inputs([], true)),
      engineFor,
      concurrency: 8,
      selfCheckByFixture: true,
      holdCasesUntilSelfChecked: true,
      onStart: () => events.push('started'),
      onCase: (_k, index) => {
        events.push(`case ${index}`);
        told.push(index);
      },
    });
    if (!graded.ok) throw new Error(graded.error.message);
    // The other fixture's references are checked, and its cases graded, while retail's reference is held.
    const held = events.indexOf('checked retail SELECT count(*) AS n FROM orders');
    expect(events.indexOf('checked retail_monthly SELECT count(*) AS n FROM order_items')).toBeLessThan(held);
    expect(events.indexOf('graded on retail_monthly')).toBeGreaterThanOrEqual(0);
    expect(events.indexOf('graded on retail_monthly')).toBeLessThan(held);
    // A fixture's cases wait for all its references.
    const gradedOn = (fixture: string) => events.indexOf(`graded on ${fixture}`);
    const lastChecked = (fixture: string) =>
      Math.max(...events.map((e, i) => (e.startsWith(`checked ${fixture} `) ? i : -1)));
    expect(gradedOn('retail_monthly')).toBeGreaterThan(lastChecked('retail_monthly'));
    expect(gradedOn('retail')).toBeGreaterThan(lastChecked('retail'));
    const lastCheck = Math.max(...events.map((e, i) => (e.startsWith('checked') ? i : -1)));
    expect(events.indexOf('started')).toBeGreaterThan(lastCheck);
    expect(told).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // The same report as with every reference checked first (timings aside).
    const first = await gradeRun({ ...(await inputs([], true)), engineFor: engines.engineFor, selfCheckFirst: true });
    if (!first.ok) throw new Error(first.error.message);
    expect(graded.value.self_check).toEqual({ passed: true, checked: 8, findings: [] });
    expect(graded.value.self_check).toEqual(first.value.self_check);
    expect(graded.value.summary).toEqual(first.value.summary);
    expect(graded.value.cases.map((c) => [c.id, c.outcome])).toEqual(first.value.cases.map((c) => [c.id, c.outcome]));
  });

  it('by fixture, cases held: broken references refuse the run as checking them first does, telling nothing', async () => {
    const broken = await inputs([5, 1], true);
    const told: string[] = [];
    const graded = await gradeRun({
      ...broken,
      engineFor: engines.engineFor,
      concurrency: 8,
      selfCheckByFixture: true,
      holdCasesUntilSelfChecked: true,
      onStart: () => told.push('started'),
      onCase: (_k, index) => told.push(`case ${index}`),
    });
    const first = await gradeRun({ ...broken, engineFor: engines.engineFor, selfCheckFirst: true, onStart: () => {} });
    expect(graded.ok).toBe(false);
    expect(first.ok).toBe(false);
    if (graded.ok || first.ok) return;
    expect(graded.error).toEqual(first.error);
    expect(graded.error.location).toBe('count-orders, monthly-count-orders');
    expect(told).toEqual([]);
  });

  it('by fixture, cases held: a cancel while a reference is being checked ends the run, telling nothing', async () => {
    const controller = new AbortController();
    const held = 'SELECT count(*) AS n FROM orders';
    const engineFor = async (name: string): Promise<Outcome<Engine>> => {
      const opened = await engines.engineFor(name);
      if (!opened.ok) return opened;
      const e = opened.value;
      // Retail's second reference is checked only once the run is cancelled (the cases after it wait in flight).
      const execute: Engine['execute'] = async (sql, options) => {
        if (name === 'retail' && sql === held && options === undefined) {
          setTimeout(() => controller.abort(), 50);
          await new Promise((resolve) => controller.signal.addEventListener('abort', resolve));
        }
        return e.execute(sql, options);
      };
      return ok({
        name: e.name,
        version: () => e.version(),
        load: (f) => e.load(f),
        execute,
        contentDigest: () => e.contentDigest(),
        explain: (q, o) => e.explain(q, o),
        close: () => e.close(),
      });
    };
    const told: string[] = [];
    const graded = await gradeRun({
      ...(await inputs([], true)),
      engineFor,
      concurrency: 8,
      selfCheckByFixture: true,
      holdCasesUntilSelfChecked: true,
      signal: controller.signal,
      onStart: () => told.push('started'),
      onCase: (_k, index) => told.push(`case ${index}`),
    });
    expect(graded.ok).toBe(false);
    if (graded.ok) return;
    expect(graded.error.code).toBe('run.cancelled');
    expect(told).toEqual([]);
  });
});
