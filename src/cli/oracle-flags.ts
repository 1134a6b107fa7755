/**
 * The oracle's command-line settings shared by `compare` and `run`:
 * neighbour databases (SPEC 4.1) and cross-engine agreement. Off by default
 * (see docs/neighbours.md for why); each turns into a config key, so a run
 * records it and its config_hash tells runs with and without it apart.
 */
import { crossEngineNames, sameDialect, type Engine, type EngineName } from '../core/engine.ts';
import type { CorpusCase, LoadedCorpus } from '../core/corpus/types.ts';
import { createNeighbourHost, type NeighbourHost } from '../core/neighbours/host.ts';
import { openEngine } from '../engines/node.ts';
import { CliError } from './cli-error.ts';
import { EnginePool } from './engine-pool.ts';
import { fixtureSpecAsOf, resolveCorpusFixture, type FixtureOverrides } from './fixtures.ts';

export const ORACLE_FLAGS = {
  neighbours: { type: 'string' },
  'neighbour-seed': { type: 'string' },
  'neighbour-budget-ms': { type: 'string' },
  'cross-engine': { type: 'boolean' },
} as const;

export const ORACLE_HELP = `  --neighbours K         also run both queries on K generated neighbour databases (same
                         schema and keys, other data); a pass there and a fail on a
                         neighbour is a coincidental_match (default 0: off)
  --neighbour-seed N     base seed of the neighbours (default 1); a report's seed regenerates them
  --neighbour-budget-ms N  time for one case's neighbours at most (default 10000)
  --cross-engine         run both queries on the other engines too (DuckDB, SQLite and
                         PostgreSQL on PGlite; with --ports the ported reference there): the
                         verdict per engine, engine_dependent when two decide differently, a
                         dialect error (not its SQL) kept apart (SQL dumps: all three)`;

function whole(flag: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new CliError(`${flag} must be a whole number ≥ ${min}, got "${value}".`);
  return n;
}

/** Config keys from the flags (only those given). */
export function oracleConfig(values: {
  neighbours?: string;
  'neighbour-seed'?: string;
  'neighbour-budget-ms'?: string;
  'cross-engine'?: boolean;
}): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  const k = whole('--neighbours', values.neighbours, 0);
  if (k !== undefined) config.neighbours = k;
  const seed = whole('--neighbour-seed', values['neighbour-seed'], 0);
  if (seed !== undefined) config.neighbour_seed = seed;
  const budget = whole('--neighbour-budget-ms', values['neighbour-budget-ms'], 1);
  if (budget !== undefined) config.neighbour_budget_ms = budget;
  if (values['cross-engine']) config.cross_engine = true;
  return config;
}

/** Scratch engines for neighbours, opened on first use (worker threads, closed with the host). */
export function nodeNeighbourHost(asOf: (fixture: string) => string | undefined = () => undefined): NeighbourHost {
  return createNeighbourHost({ open: (name: EngineName) => openEngine(name), asOf });
}

/**
 * The frozen clock a corpus's fixture is loaded with, as resolveCorpusFixture loads it: `--as-of` for a --fixture
 * (or --db-dir) file, else the built-in's own instant (a file without --as-of reads the real clock: none).
 */
export function corpusFixtureAsOf(overrides: FixtureOverrides, name: string, cwd: string): string | undefined {
  const file = overrides.get(name);
  return file === undefined ? fixtureSpecAsOf(name, cwd) : fixtureSpecAsOf(file, cwd, overrides.asOf);
}

/**
 * run --cross-engine: per fixture, the engines of the other dialects that load it (DuckDB, SQLite, PGlite),
 * each started and loaded on first use and kept for the run. With --ports the graded corpus is the port; an
 * engine of another dialect gets the corpus's own references (`read`), the ports' engine its port.
 */
export function nodeCrossEngines(
  graded: LoadedCorpus,
  read: LoadedCorpus,
  overrides: FixtureOverrides,
  cwd: string,
): {
  enginesFor(fixture: string): Promise<Engine[]>;
  referencesOn(c: CorpusCase, engine: EngineName): readonly string[] | undefined;
  unavailable: { fixture: string; engine: string; message: string }[];
  close(): Promise<void>;
} {
  const gradedEngine = graded.corpus.engine;
  const pools = new Map<EngineName, EnginePool>();
  const unavailable: { fixture: string; engine: string; message: string }[] = [];
  const perFixture = new Map<string, Promise<Engine[]>>();
  const open = async (fixture: string): Promise<Engine[]> => {
    let loadable: EngineName[];
    try {
      loadable = resolveCorpusFixture(overrides, fixture, cwd).engines;
    } catch {
      return [];
    }
    const names = crossEngineNames(gradedEngine, loadable);
    for (const n of names) if (!pools.has(n)) pools.set(n, new EnginePool(n, overrides, cwd, { warmSpare: false }));
    const opened = await Promise.all(names.map((n) => pools.get(n)!.engineFor(fixture)));
    const engines: Engine[] = [];
    opened.forEach((o, i) => {
      if (o.ok) engines.push(o.value);
      else unavailable.push({ fixture, engine: names[i]!, message: o.error.message });
    });
    return engines;
  };
  const ported = graded !== read;
  const original = new Map(read.corpus.cases.map((c) => [c.id, c]));
  return {
    enginesFor: (fixture) => {
      let pending = perFixture.get(fixture);
      if (!pending) perFixture.set(fixture, (pending = open(fixture)));
      return pending;
    },
    referencesOn: (c, engine) => {
      if (!ported || sameDialect(engine, gradedEngine)) return undefined;
      const own = original.get(c.id);
      return own?.referenceSql === undefined ? undefined : [own.referenceSql, ...(own.alternativeSql ?? [])];
    },
    unavailable,
    close: async () => {
      await Promise.all([...pools.values()].map((p) => p.close()));
    },
  };
}
