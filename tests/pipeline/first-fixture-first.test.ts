/**
 * A run's fixtures are loaded one after the other, the first case's first (src/core/run/grade-run.ts): the first
 * case is graded without waiting for a later fixture's engine, each fixture's content digest before is still
 * taken before any SQL runs on it, the report is the one loading every fixture first gives, and a fixture that
 * fails to load fails the run with the same message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnginePool } from '../../src/cli/engine-pool.ts';
import { loadCorpus } from '../../src/core/corpus/load-corpus.ts';
import { loadRun } from '../../src/core/corpus/load-run.ts';
import type { Engine } from '../../src/core/engine.ts';
import { fail, ok, type Outcome } from '../../src/core/errors.ts';
import { gradeRun, type RunReport } from '../../src/core/run/grade-run.ts';
import { repoRoot } from '../helpers/paths.ts';

const CASES: [id: string, fixture: string, table: string][] = [
  ['retail-customers', 'retail', 'customers'],
  ['monthly-products', 'retail_monthly', 'products'],
  ['retail-orders', 'retail', 'orders'],
  ['monthly-orders', 'retail_monthly', 'orders'],
];

async function inputs() {
  const corpus = {
    corpus: 'two-fixtures',
    version: 1,
    engine: 'sqlite',
    cases: CASES.map(([id, fixture, table]) => ({
      id,
      fixture,
      question: `How many rows has ${table}?`,
      reference_sql: `SELECT count(*) AS n FROM ${table}`,
      shape: 'scalar',
    })),
  };
  const loaded = await loadCorpus(new TextEncoder().encode(JSON.stringify(corpus)), { file: 'two.json' });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  const lines = [
    '{"run":{"agent":"t"}}',
    ...CASES.map(([id, , table]) => JSON.stringify({ id, sql: `SELECT count(*) FROM ${table}` })),
  ];
  const run = await loadRun(new TextEncoder().encode(lines.join('\n')), {
    file: 'run.jsonl',
    caseIds: loaded.loaded.corpus.cases.map((c) => c.id),
  });
  if (!run.ok) throw new Error(JSON.stringify(run.problems));
  return { corpus: loaded.loaded, run: run.run };
}

/** Timings and start times out: what two runs of the same inputs must share. */
const stable = (report: RunReport) =>
  JSON.parse(
    JSON.stringify(report, (key, value) =>
      key === 'run_metadata' || key === 'timings_ms' || /(^|_)ms$|elapsedMs|execution_time/.test(key)
        ? undefined
        : value,
    ),
  ) as unknown;

describe('fixtures loaded first case first', () => {
  let engines: EnginePool;
  beforeAll(() => {
    engines = new EnginePool('sqlite', new Map(), repoRoot, { warmSpare: false });
  });
  afterAll(() => engines.close());

  /** The pool's engines, with every call noted; `hold`: opening that fixture waits for the promise. */
  function watched(events: string[], hold: Map<string, Promise<unknown>> = new Map()) {
    return async (name: string): Promise<Outcome<Engine>> => {
      events.push(`open ${name}`);
      await hold.get(name);
      const opened = await engines.engineFor(name);
      if (!opened.ok) return opened;
      const e = opened.value;
      return ok({
        name: e.name,
        version: () => e.version(),
        load: (f) => e.load(f),
        execute: (sql, options) => {
          events.push(`execute ${name}`);
          return e.execute(sql, options);
        },
        contentDigest: () => {
          events.push(`digest ${name}`);
          return e.contentDigest();
        },
        explain: (q, o) => {
          events.push(`explain ${name}`);
          return e.explain(q, o);
        },
        close: () => e.close(),
      });
    };
  }

  it("grades the first case before a later fixture's engine is up; a digest before any SQL on each fixture", async () => {
    const events: string[] = [];
    // The second fixture's engine is held until the first case is recorded (or 5 s: then the order shows it).
    let release!: () => void;
    const firstCase = new Promise<void>((resolve) => (release = resolve));
    const hold = new Map([
      ['retail_monthly', Promise.race([firstCase, new Promise((resolve) => setTimeout(resolve, 5000))])],
    ]);
    const graded = await gradeRun({
      ...(await inputs()),
      engineFor: watched(events, hold),
      onCase: (_k, index) => {
        events.push(`case ${index}`);
        if (index === 0) release();
      },
    });
    if (!graded.ok) throw new Error(graded.error.message);
    const firstMonthly = events.findIndex((e) => e.endsWith(' retail_monthly') && !e.startsWith('open'));
    expect(events.indexOf('case 0')).toBeLessThan(firstMonthly);
    expect(events.indexOf('open retail')).toBeLessThan(events.indexOf('open retail_monthly'));
    for (const fixture of ['retail', 'retail_monthly']) {
      const digest = events.indexOf(`digest ${fixture}`);
      expect(digest).toBeGreaterThan(-1);
      for (const [i, e] of events.entries())
        if (e === `execute ${fixture}` || e === `explain ${fixture}`) expect(i).toBeGreaterThan(digest);
    }
    expect(graded.value.fixtures.map((f) => [f.name, f.unchanged])).toEqual([
      ['retail', true],
      ['retail_monthly', true],
    ]);

    // The same report as loading every fixture first (onStart needs them all: it is called with their digests).
    const allFirst = await gradeRun({ ...(await inputs()), engineFor: engines.engineFor, onStart: () => undefined });
    if (!allFirst.ok) throw new Error(allFirst.error.message);
    expect(stable(graded.value)).toEqual(stable(allFirst.value));
  });

  it('a fixture that fails to load fails the run with the message loading every fixture first gives', async () => {
    const broken = (name: string): Promise<Outcome<Engine>> =>
      name === 'retail_monthly'
        ? Promise.resolve(fail('fixture.load_failed', 'Fixture retail_monthly: the file is broken.'))
        : engines.engineFor(name);
    const recorded: number[] = [];
    const lazy = await gradeRun({ ...(await inputs()), engineFor: broken, onCase: (_k, i) => recorded.push(i) });
    const allFirst = await gradeRun({ ...(await inputs()), engineFor: broken, onStart: () => undefined });
    expect(lazy.ok).toBe(false);
    expect(allFirst.ok).toBe(false);
    if (lazy.ok || allFirst.ok) return;
    expect(lazy.error).toEqual(allFirst.error);
    expect(lazy.error.message).toBe('Fixture retail_monthly: the file is broken.');
    // Nothing from the broken fixture on was recorded.
    expect(recorded.every((i) => i < 1)).toBe(true);
  });
});
