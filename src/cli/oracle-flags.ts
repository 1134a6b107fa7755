/**
 * The oracle's command-line settings shared by `compare` and `run`:
 * neighbour databases (SPEC 4.1) and cross-engine agreement. Off by default
 * (see docs/neighbours.md for why); each turns into a config key, so a run
 * records it and its config_hash tells runs with and without it apart.
 */
import type { EngineName } from '../core/engine.ts';
import { createNeighbourHost, type NeighbourHost } from '../core/neighbours/host.ts';
import { openEngine } from '../engines/node.ts';
import { CliError } from './cli-error.ts';
import { resolveFixture } from './fixtures.ts';

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
  --cross-engine         run both queries on the other engine too (DuckDB and SQLite) and flag
                         an engine-dependent verdict (SQL dumps only)`;

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

const asOfCache = new Map<string, string | undefined>();
/** A fixture's frozen clock, for its neighbours (read once per fixture). */
export function fixtureAsOf(spec: string, cwd: string): string | undefined {
  if (!asOfCache.has(spec)) {
    try {
      asOfCache.set(spec, resolveFixture(spec, cwd).source.asOf);
    } catch {
      asOfCache.set(spec, undefined);
    }
  }
  return asOfCache.get(spec);
}
