/**
 * The engines of corpus runs, one per fixture: started and loaded on first use, kept while they serve, closed
 * together. The CLI's runs (cli/engine-pool.ts), its benchmark folders (cli/db-dir.ts) and the app worker's runs
 * all use this one pool; they differ only in how an engine starts (a thread or a Web Worker) and where a fixture
 * comes from.
 *
 * With a capacity, the least recently used engine is reloaded with the next fixture asked for: a benchmark's
 * database folder names dozens of databases, and an engine start costs seconds where a load costs milliseconds.
 * An engine handed out then serves its fixture until the next call for another one (grade-run's
 * `engineSwitching`: the cases ask right before each use, one fixture at a time).
 */
import type { Engine, FixtureInfo, FixtureSource } from '../core/engine.ts';
import { fail, ok, type Outcome } from '../core/errors.ts';
import type { SupervisedEngine } from './supervisor.ts';

export interface EnginePoolOptions {
  /** Start an engine (it loads nothing yet). */
  open(): SupervisedEngine;
  /** The fixture called `fixture` (a name the run's cases use). */
  source(fixture: string): Outcome<FixtureSource> | Promise<Outcome<FixtureSource>>;
  /** Engines kept at once; past it the least recently used one is reloaded. Default: one per fixture. */
  capacity?: number;
  /** An engine already started and loading this fixture (the CLI's prestart), taken instead of starting one. */
  started?(fixture: string): { engine: SupervisedEngine; loaded: Promise<Outcome<FixtureInfo>> } | null;
  /** How a load error names the fixture (default: its name). */
  label?(fixture: string): string;
  /** Called once a fixture is loaded (start-up timeline). */
  onLoaded?(fixture: string): void;
}

/** A fixture given with the request (an upload) instead of found by name: `key` tells its versions apart. */
export interface GivenFixture {
  key: string;
  source: FixtureSource;
}

interface Slot {
  engine: SupervisedEngine;
  /** Which fixture the engine holds (or is loading); null: free, its last load failed. */
  key: string | null;
  ready: Promise<Outcome<Engine>>;
  /** Taken from `options.started`: the engine is already loading its fixture. */
  prestarted?: Promise<Outcome<FixtureInfo>>;
}

export class EnginePool {
  /** Least recently used first. */
  private readonly slots: Slot[] = [];
  private readonly capacity: number;

  constructor(private readonly options: EnginePoolOptions) {
    this.capacity = Math.max(1, options.capacity ?? Infinity);
  }

  /** The engine holding `fixture`, loaded (a load failure names the fixture). */
  engineFor = (fixture: string, given?: GivenFixture): Promise<Outcome<Engine>> => {
    const key = given?.key ?? fixture;
    const index = this.slots.findIndex((s) => s.key === key);
    if (index >= 0) {
      const [slot] = this.slots.splice(index, 1);
      this.slots.push(slot!);
      return slot!.ready;
    }
    const slot = this.slotFor(fixture);
    const previous = slot.ready;
    slot.key = key;
    // A reused engine loads once what it was loading has settled (cases of the previous fixture have finished).
    const load = () => this.load(slot, key, fixture, given);
    slot.ready = previous.then(load, load);
    this.slots.push(slot);
    return slot.ready;
  };

  /** Every engine the pool started. */
  engines(): SupervisedEngine[] {
    return this.slots.map((s) => s.engine);
  }

  async close(): Promise<void> {
    const all = this.engines();
    this.slots.length = 0;
    await Promise.all(all.map((e) => e.close()));
  }

  /** A free engine, a new one while under capacity, else the least recently used one (taken out of the list). */
  private slotFor(fixture: string): Slot {
    const free = this.slots.findIndex((s) => s.key === null);
    if (free >= 0) return this.slots.splice(free, 1)[0]!;
    if (this.slots.length >= this.capacity) return this.slots.shift()!;
    const started = this.options.started?.(fixture);
    const ready = Promise.resolve(fail('fixture.not_loaded', 'Not loaded.'));
    if (started) return { engine: started.engine, key: null, ready, prestarted: started.loaded };
    return { engine: this.options.open(), key: null, ready };
  }

  private async load(
    slot: Slot,
    key: string,
    fixture: string,
    given: GivenFixture | undefined,
  ): Promise<Outcome<Engine>> {
    const prestarted = slot.prestarted;
    delete slot.prestarted;
    let loaded: Outcome<FixtureInfo>;
    if (prestarted) loaded = await prestarted;
    else {
      const pending = given ? ok(given.source) : this.options.source(fixture);
      // A fixture still being fetched: the engine starts meanwhile (in a browser, seconds of wasm compiling). A
      // fixture at hand goes to the engine with its start instead (the supervisor's preload: no round trip).
      if (pending instanceof Promise) slot.engine.start();
      const source = await pending;
      if (!source.ok) return this.failed(slot, key, source);
      loaded = await slot.engine.load({ ...source.value, name: fixture });
    }
    if (!loaded.ok) {
      const label = this.options.label?.(fixture) ?? fixture;
      return this.failed(
        slot,
        key,
        fail(loaded.error.code, `Fixture ${label}: ${loaded.error.message}`, { location: fixture }),
      );
    }
    this.options.onLoaded?.(fixture);
    return ok(slot.engine);
  }

  /** The engine is free again: a later call for the same fixture loads it again instead of repeating the error. */
  private failed(slot: Slot, key: string, failure: Outcome<never>): Outcome<never> {
    // Unless the engine was meanwhile handed to another fixture (it loads that one next).
    if (slot.key === key) slot.key = null;
    return failure;
  }
}
