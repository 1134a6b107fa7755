/** Engines for a corpus run: one per fixture, started and loaded on first use, closed together. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { EngineName } from '../core/engine.ts';
import { GradingPool, type GradingPoolOptions } from '../engines/grading-pool.ts';
import { openEngine } from '../engines/node.ts';
import { EnginePool as SharedEnginePool } from '../engines/engine-pool.ts';
import { closest } from '../core/corpus/source.ts';
import { CliError } from './cli-error.ts';
import { FixtureOverrides, fixtureSourceFor } from './fixtures.ts';
import { takePrestarted } from './prestart.ts';
import { mark } from '../engines/timeline.ts';

export { fixtureSourceFor };

/** Parse repeated `--fixture NAME=PATH` flags. */
export function fixtureOverrides(values: string[] | undefined, cwd: string, asOf?: string): FixtureOverrides {
  const out = new FixtureOverrides(asOf);
  for (const spec of values ?? []) {
    const eq = spec.indexOf('=');
    if (eq <= 0) throw new CliError(`--fixture must be NAME=PATH, got "${spec}".`);
    const file = path.resolve(cwd, spec.slice(eq + 1));
    if (!existsSync(file)) throw new CliError(`--fixture ${spec}: no such file ${file}.`);
    out.set(spec.slice(0, eq), file);
  }
  return out;
}

/**
 * Every `--fixture NAME` must name a fixture the corpus uses: a misspelt name was ignored, so the cases graded on
 * the built-in of the right name instead of the database given, and nothing said so.
 */
export function checkFixturesUsed(specs: string[] | undefined, used: string[]): void {
  const names = [...new Set(used)];
  for (const spec of specs ?? []) {
    const name = spec.slice(0, spec.indexOf('='));
    if (names.includes(name)) continue;
    const hint = closest(name, names);
    throw new CliError(
      `--fixture ${spec}: the corpus uses no fixture ${name} (it uses ${names.join(', ') || 'none'}${hint ? `; did you mean ${hint}?` : ''}); nothing was graded.`,
    );
  }
}

/** The grading pool of a corpus run: worker threads sized to the cores, each with its own engines. */
export function gradingPoolFor(
  engineName: EngineName,
  overrides: FixtureOverrides,
  cwd: string,
  options: GradingPoolOptions = {},
): GradingPool {
  return new GradingPool(engineName, (fixture) => fixtureSourceFor(engineName, overrides, cwd, fixture), options);
}

/**
 * The CLI's engines of a corpus run (engines/engine-pool.ts): fixtures by name, built in or given with
 * `--fixture NAME=PATH`, on engine threads; the engine `run` started before it read the corpus (prestart.ts) is
 * taken for its fixture.
 */
export class EnginePool extends SharedEnginePool {
  constructor(
    engineName: EngineName,
    overrides: FixtureOverrides,
    cwd: string,
    /**
     * warmSpare: false for callers whose queries are not expected to time out (tests of grading itself): the spare
     * is a second engine start and fixture load per fixture. 'after-restart' (native DuckDB, which interrupts a
     * query past its timeout without replacing its thread): a spare only once a thread was replaced.
     */
    options: { warmSpare?: boolean | 'after-restart' } = {},
  ) {
    // One engine per fixture for the whole run: a warm spare makes a timeout or an
    // out-of-memory cost no engine start and fixture reload (see SupervisorOptions.warmSpare).
    const warmSpare = options.warmSpare ?? true;
    super({
      open: () => openEngine(engineName, { warmSpare }),
      source: (fixture) => fixtureSourceFor(engineName, overrides, cwd, fixture),
      started: (fixture) => takePrestarted(engineName, fixture, cwd, overrides.has(fixture), { warmSpare }),
      onLoaded: (fixture) => mark(`fixture ${fixture}: loaded (supervised)`),
    });
  }
}

/** SQL_VERDICT_WORKERS=N: grading worker threads (default: the cores). */
export function workersFromEnv(env: Record<string, string | undefined>): GradingPoolOptions {
  const n = Number(env.SQL_VERDICT_WORKERS);
  return Number.isInteger(n) && n > 0 ? { workers: n } : {};
}
