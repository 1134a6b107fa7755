/**
 * Where neighbours are loaded: a scratch engine of the fixture's kind, opened
 * lazily by the caller's factory (a worker thread in Node, a Web Worker in the
 * browser), one neighbour at a time (cases in flight queue for it). The
 * fixture's own engine is never reloaded. Snapshots are read once per fixture.
 */
import type { Engine, EngineName } from '../engine.ts';
import { fail, messageOf, ok, type Outcome } from '../errors.ts';
import { utf8Encode } from '../digest/sha256.ts';
import { readSnapshot, type FixtureSnapshot } from './snapshot.ts';

export interface NeighbourHost {
  /** The loaded fixture of `engine`, read back (cached per engine and fixture name). */
  snapshot(engine: Engine, fixture: string): Promise<Outcome<FixtureSnapshot>>;
  /** Load one neighbour (an SQL dump) into a scratch database and run `use` on it. */
  withNeighbour<T>(
    engine: EngineName,
    fixture: string,
    dump: string,
    use: (scratch: Engine) => Promise<T>,
  ): Promise<Outcome<T>>;
  close(): Promise<void>;
}

export interface NeighbourHostOptions {
  /** Opens a fresh engine of that kind (the scratch database). */
  open(engine: EngineName): Engine;
  /** The fixture's frozen clock, so clock functions answer on a neighbour as on the fixture. */
  asOf?(fixture: string): string | undefined;
}

export function createNeighbourHost(options: NeighbourHostOptions): NeighbourHost {
  const snapshots = new WeakMap<Engine, Map<string, Promise<Outcome<FixtureSnapshot>>>>();
  const scratch = new Map<EngineName, Engine>();
  let queue: Promise<unknown> = Promise.resolve();
  return {
    snapshot(engine, fixture) {
      let byName = snapshots.get(engine);
      if (!byName) snapshots.set(engine, (byName = new Map()));
      let cached = byName.get(fixture);
      if (!cached) byName.set(fixture, (cached = readSnapshot(engine)));
      return cached;
    },
    withNeighbour(engineName, fixture, dump, use) {
      const run = async () => {
        let engine = scratch.get(engineName);
        if (!engine) scratch.set(engineName, (engine = options.open(engineName)));
        const asOf = options.asOf?.(fixture);
        const loaded = await engine.load({
          name: `${fixture} (neighbour)`,
          files: [{ fileName: 'neighbour.sql', format: 'sql', bytes: utf8Encode(dump) }],
          ...(asOf ? { asOf } : {}),
        });
        if (!loaded.ok) return fail(loaded.error.code, `The neighbour database does not load: ${loaded.error.message}`);
        try {
          return ok(await use(engine));
        } catch (thrown) {
          return fail('execution.error', messageOf(thrown));
        }
      };
      const result = queue.then(run, run);
      queue = result.catch(() => undefined);
      return result;
    },
    async close() {
      await Promise.all([...scratch.values()].map((e) => e.close()));
      scratch.clear();
    },
  };
}
