/**
 * The execution cache the CLI's grading threads and the app's gradings share: a repeatable
 * query runs once per fixture content and limits; a timing measurement (BIRD's VES), a
 * volatile query and a failure always reach the engine (the real sql.js engine, counted).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine.ts';
import { ExecutionCache, isRepeatable } from '../../src/core/run/execution-cache.ts';
import { openEngine } from '../../src/engines/node.ts';
import type { SupervisedEngine } from '../../src/engines/supervisor.ts';
import { sqlFixture } from '../helpers/fixtures.ts';

let lite: SupervisedEngine;
const calls: string[] = [];
let counted: Engine;

beforeAll(async () => {
  lite = openEngine('sqlite');
  const loaded = await lite.load(sqlFixture('t', 'CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3);'));
  if (!loaded.ok) throw new Error(loaded.error.message);
  counted = {
    name: lite.name,
    version: () => lite.version(),
    load: (f) => lite.load(f),
    execute: (sql, options) => {
      calls.push(sql);
      return lite.execute(sql, options);
    },
    contentDigest: () => lite.contentDigest(),
    explain: (sql, options) => lite.explain(sql, options),
    close: () => lite.close(),
  };
});
afterAll(() => lite.close());

const ran = (sql: string) => calls.filter((c) => c === sql).length;
/** The same text from two wraps of the same content at once, as the app's warm-up and a grading's self-check ask. */
const askedTwiceAtOnce = (cache: ExecutionCache, sql: string) =>
  Promise.all([cache.wrap(counted, 'digest-a').execute(sql), cache.wrap(counted, 'digest-a').execute(sql)]);

describe('ExecutionCache', () => {
  it('answers a repeated query from the cache, per fixture content and row limit', async () => {
    const cache = new ExecutionCache();
    const engine = cache.wrap(counted, 'digest-a');
    const sql = 'SELECT sum(x) FROM t';
    const first = await engine.execute(sql);
    const second = await engine.execute(sql);
    expect(second).toEqual(first);
    expect(ran(sql)).toBe(1);
    await engine.execute(sql, { maxRows: 10 });
    await cache.wrap(counted, 'digest-b').execute(sql);
    expect(ran(sql)).toBe(3);
    expect(cache.hits).toBe(1);
  });

  it('runs a query asked for again while it runs once: the second caller gets its answer', async () => {
    const cache = new ExecutionCache();
    const sql = 'SELECT count(*) FROM t AS a, t AS b';
    const [first, second] = await askedTwiceAtOnce(cache, sql);
    expect(first.ok && first.value.rows).toEqual([[9]]);
    expect(second).toBe(first);
    expect(ran(sql)).toBe(1);
    expect([cache.hits, cache.misses]).toEqual([1, 1]);
    // Another content or row limit is another query.
    await Promise.all([
      cache.wrap(counted, 'digest-b').execute(sql),
      cache.wrap(counted, 'digest-a').execute(sql, { maxRows: 5 }),
    ]);
    expect(ran(sql)).toBe(3);
  });

  it('does not share a failure in flight: the second caller runs the query itself', async () => {
    const cache = new ExecutionCache();
    const sql = 'SELECT no_such_column FROM t';
    const [first, second] = await askedTwiceAtOnce(cache, sql);
    expect(first.ok || second.ok).toBe(false);
    expect(second).not.toBe(first);
    expect(ran(sql)).toBe(2);
  });

  it('runs a timing measurement every time (each VES iteration is timed anew)', async () => {
    const engine = new ExecutionCache().wrap(counted, 'digest-a');
    const sql = 'SELECT max(x) FROM t';
    await engine.execute(sql);
    for (let i = 0; i < 3; i++) expect((await engine.execute(sql, { measure: true })).ok).toBe(true);
    expect(ran(sql)).toBe(4);
  });

  it('never keeps a volatile query or a failure', async () => {
    const engine = new ExecutionCache().wrap(counted, 'digest-a');
    const volatile = 'SELECT x, random() FROM t';
    const failing = 'SELECT nope FROM t';
    for (let i = 0; i < 2; i++) {
      await engine.execute(volatile);
      expect((await engine.execute(failing)).ok).toBe(false);
    }
    expect(ran(volatile)).toBe(2);
    expect(ran(failing)).toBe(2);
  });

  it('tells repeatable texts from volatile ones, whatever the case or quoting', () => {
    for (const sql of ['SELECT x FROM t', 'SELECT t.now, random_id FROM t', "SELECT 'random' FROM t"])
      expect(isRepeatable(sql), sql).toBe(true);
    for (const sql of [
      'SELECT RANDOM() FROM t',
      "SELECT date('NOW')",
      'SELECT current_date',
      'SELECT * FROM t USING SAMPLE 10',
    ])
      expect(isRepeatable(sql), sql).toBe(false);
  });
});
