/**
 * The one engine pool of corpus runs (src/engines/engine-pool.ts), on real sql.js engine threads: the CLI's runs,
 * its benchmark folders and the app worker all get their engines from it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Engine, FixtureSource } from '../../src/core/engine.ts';
import { fail, ok, type Outcome } from '../../src/core/errors.ts';
import { EnginePool } from '../../src/engines/engine-pool.ts';
import { openEngine } from '../../src/engines/node.ts';
import { sqlFixture } from '../helpers/fixtures.ts';

const FIXTURES: Record<string, string> = {
  a: 'CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1);',
  b: 'CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (2);',
  c: 'CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (3);',
  broken: 'CREATE TABLE t (v INTEGER); INSERT INTO nowhere VALUES (1);',
};

let pool: EnginePool | null = null;
afterEach(async () => {
  await pool?.close();
  pool = null;
});

function poolOf(options: { capacity?: number; source?: (name: string) => Outcome<FixtureSource> } = {}) {
  let opened = 0;
  pool = new EnginePool({
    open: () => {
      opened++;
      return openEngine('sqlite');
    },
    source:
      options.source ??
      ((name) => (FIXTURES[name] ? ok(sqlFixture(name, FIXTURES[name]!)) : fail('input.not_found', `no ${name}`))),
    ...(options.capacity ? { capacity: options.capacity } : {}),
  });
  return { pool, opened: () => opened };
}

async function valueIn(engine: Outcome<Engine>): Promise<unknown> {
  if (!engine.ok) throw new Error(engine.error.message);
  const result = await engine.value.execute('SELECT v FROM t');
  if (!result.ok) throw new Error(result.error.message);
  return result.value.rows[0]?.[0];
}

describe('the engine pool', () => {
  it('starts one engine per fixture, loaded once, and hands the same one to every caller', async () => {
    const { pool, opened } = poolOf();
    const [first, again] = await Promise.all([pool.engineFor('a'), pool.engineFor('a')]);
    expect(first.ok && again.ok && first.value === again.value).toBe(true);
    expect(await valueIn(await pool.engineFor('b'))).toBe(2);
    expect(await valueIn(await pool.engineFor('a'))).toBe(1);
    expect(opened()).toBe(2);
  }, 60_000);

  it('with a capacity, reloads the least recently used engine with the next fixture', async () => {
    const { pool, opened } = poolOf({ capacity: 2 });
    await pool.engineFor('a');
    await pool.engineFor('b');
    await pool.engineFor('a'); // b is now the least recently used
    expect(await valueIn(await pool.engineFor('c'))).toBe(3);
    expect(await valueIn(await pool.engineFor('a'))).toBe(1);
    expect(opened()).toBe(2);
    expect(pool.engines()).toHaveLength(2);
  }, 60_000);

  it('a fixture that fails to load is named; its engine serves the next fixture, and asking again retries', async () => {
    let attempts = 0;
    const { pool, opened } = poolOf({
      source: (name) => {
        if (name === 'flaky')
          return ++attempts === 1 ? fail('input.not_found', 'not there yet') : ok(sqlFixture(name, FIXTURES.a!));
        return FIXTURES[name] ? ok(sqlFixture(name, FIXTURES[name]!)) : fail('input.not_found', `no ${name}`);
      },
    });
    const broken = await pool.engineFor('broken');
    expect(broken.ok).toBe(false);
    if (!broken.ok) {
      expect(broken.error.message).toMatch(/^Fixture broken: /);
      expect(broken.error.location).toBe('broken');
    }
    expect(await valueIn(await pool.engineFor('b'))).toBe(2);
    expect(opened()).toBe(1);
    expect((await pool.engineFor('flaky')).ok).toBe(false);
    expect(await valueIn(await pool.engineFor('flaky'))).toBe(1);
  }, 60_000);

  it('a fixture given with the request (an upload) is told apart from another version by its key', async () => {
    const { pool } = poolOf();
    const v1 = { key: 'upload-1', source: sqlFixture('mine', FIXTURES.a!) };
    const v2 = { key: 'upload-2', source: sqlFixture('mine', FIXTURES.b!) };
    expect(await valueIn(await pool.engineFor('mine', v1))).toBe(1);
    expect(await valueIn(await pool.engineFor('mine', v2))).toBe(2);
    expect(await valueIn(await pool.engineFor('mine', v1))).toBe(1);
  }, 60_000);
});
