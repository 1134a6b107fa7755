/**
 * A supervised engine ends every thread it started when it is closed, whatever path started it:
 * the primary, a warm spare, a replacement after a timeout, and a host started by a call that came
 * while a spare was being taken over. (A leaked thread kept `sql-verdict run` alive after it had
 * printed its answer: CI waited on it until its time limit.)
 */
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engines/node.ts';
import type { SupervisedEngine } from '../../src/engines/supervisor.ts';
import { sqlFixture } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/cli.ts';

const RUNAWAY = 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r';

async function ended(engine: SupervisedEngine, withinMs = 10_000): Promise<number> {
  const until = Date.now() + withinMs;
  while (engine.liveHosts > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return engine.liveHosts;
}

describe('supervised engine lifecycle', () => {
  it(
    'a timeout with a warm spare, then calls during the takeover: one primary, and nothing left after close',
    { timeout: 120_000 },
    async () => {
      const engine = openEngine('duckdb', { warmSpare: true, cancelGraceMs: 100 });
      const loaded = await engine.load(
        sqlFixture('items', 'CREATE TABLE items (id INTEGER); INSERT INTO items VALUES (1), (2);'),
      );
      expect(loaded.ok).toBe(true);
      expect(await engine.spareReady()).toBe(true);
      const timedOut = await engine.execute(RUNAWAY, { timeoutMs: 500 });
      expect(!timedOut.ok && timedOut.error.code).toBe('sandbox.timeout');
      // The takeover awaits the spare; version() and a second query arrive meanwhile.
      const [next, version, again] = await Promise.all([
        engine.execute('SELECT count(*) FROM items'),
        engine.version(),
        engine.execute('SELECT 1'),
      ]);
      expect(next.ok && next.value.rows[0]![0]).toBe(2);
      expect(again.ok).toBe(true);
      expect(version).toMatch(/\S/);
      expect(engine.spareTakeovers).toBe(1);
      // The primary and the new spare: never a third host beside them.
      expect(await engine.spareReady()).toBe(true);
      expect(engine.liveHosts).toBe(2);
      await engine.close();
      expect(await ended(engine)).toBe(0);
    },
  );

  it('start() ahead of the first load starts one host, which the load then uses; nothing after close', async () => {
    const engine = openEngine('sqlite');
    engine.start();
    engine.start();
    expect(engine.liveHosts).toBe(1);
    const loaded = await engine.load(
      sqlFixture('items', 'CREATE TABLE items (id INTEGER); INSERT INTO items VALUES (7);'),
    );
    expect(loaded.ok).toBe(true);
    const read = await engine.execute('SELECT id FROM items');
    expect(read.ok && read.value.rows).toEqual([[7]]);
    expect(engine.liveHosts).toBe(1);
    engine.start(); // one runs: nothing
    expect(engine.liveHosts).toBe(1);
    await engine.close();
    engine.start(); // closed: nothing
    expect(await ended(engine)).toBe(0);
  });

  it(
    '`sql-verdict run` exits once it has answered, after a candidate timed out (the demo run has one)',
    { timeout: 240_000 },
    async () => {
      const started = Date.now();
      const r = await runCli(
        ['run', '--corpus', 'execution_goldens', '--run', 'src/ui/assets/demo-flawed.run.json', '--json'],
        { timeoutMs: 200_000 },
      );
      expect(r.timedOut, `still running after ${Date.now() - started} ms`).toBe(false);
      expect(r.code).toBe(1);
      const report = JSON.parse(r.stdout) as { summary: { failures: { id: string; outcome: string }[] } };
      expect(report.summary.failures.map((f) => f.id)).toContain('retail-returned-lines');
    },
  );
});
