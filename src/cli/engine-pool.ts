/** Engines for a corpus run: one per fixture, started and loaded on first use, closed together. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Engine, EngineName } from '../core/engine.ts';
import { GradingPool, type GradingPoolOptions } from '../engines/grading-pool.ts';
import { fail, ok, type Outcome } from '../core/errors.ts';
import { openEngine } from '../engines/node.ts';
import type { SupervisedEngine } from '../engines/supervisor.ts';
import { CliError } from './cli-error.ts';
import { fixtureSourceFor } from './fixtures.ts';
import { takePrestarted } from './prestart.ts';
import { mark } from '../engines/timeline.ts';

export { fixtureSourceFor };

/** Parse repeated `--fixture NAME=PATH` flags. */
export function fixtureOverrides(values: string[] | undefined, cwd: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const spec of values ?? []) {
    const eq = spec.indexOf('=');
    if (eq <= 0) throw new CliError(`--fixture must be NAME=PATH, got "${spec}".`);
    const file = path.resolve(cwd, spec.slice(eq + 1));
    if (!existsSync(file)) throw new CliError(`--fixture ${spec}: no such file ${file}.`);
    out.set(spec.slice(0, eq), file);
  }
  return out;
}

/** The grading pool of a corpus run: worker threads sized to the cores, each with its own engines. */
export function gradingPoolFor(
  engineName: EngineName,
  overrides: Map<string, string>,
  cwd: string,
  options: GradingPoolOptions = {},
): GradingPool {
  return new GradingPool(engineName, (fixture) => fixtureSourceFor(engineName, overrides, cwd, fixture), options);
}

export class EnginePool {
  private readonly engines = new Map<string, Promise<Outcome<Engine>>>();
  private readonly opened: SupervisedEngine[] = [];

  constructor(
    private readonly engineName: EngineName,
    private readonly overrides: Map<string, string>,
    private readonly cwd: string,
    /**
     * warmSpare: false for callers whose queries are not expected to time out (tests of grading itself): the spare
     * is a second engine start and fixture load per fixture. 'after-restart' (native DuckDB, which interrupts a
     * query past its timeout without replacing its thread): a spare only once a thread was replaced.
     */
    private readonly options: { warmSpare?: boolean | 'after-restart' } = {},
  ) {}

  engineFor = (fixture: string): Promise<Outcome<Engine>> => {
    let pending = this.engines.get(fixture);
    if (!pending) {
      pending = this.open(fixture);
      this.engines.set(fixture, pending);
    }
    return pending;
  };

  private async open(fixture: string): Promise<Outcome<Engine>> {
    const source = fixtureSourceFor(this.engineName, this.overrides, this.cwd, fixture);
    if (!source.ok) return source;
    const warmSpare = this.options.warmSpare ?? true;
    // The engine `run` started for this fixture before it read the corpus (prestart.ts), when it is this one.
    const started = takePrestarted(this.engineName, fixture, this.cwd, this.overrides.has(fixture), { warmSpare });
    // One engine per fixture for the whole run: a warm spare makes a timeout or an
    // out-of-memory cost no engine start and fixture reload (see SupervisorOptions.warmSpare).
    const engine = started?.engine ?? openEngine(this.engineName, { warmSpare });
    this.opened.push(engine);
    const loaded = await (started?.loaded ?? engine.load(source.value));
    mark(`fixture ${fixture}: loaded (supervised)`);
    if (!loaded.ok)
      return fail(loaded.error.code, `Fixture ${fixture}: ${loaded.error.message}`, { location: fixture });
    return ok(engine);
  }

  async close(): Promise<void> {
    await Promise.all(this.opened.map((e) => e.close()));
  }
}

/** SQL_VERDICT_WORKERS=N: grading worker threads (default: the cores). */
export function workersFromEnv(env: Record<string, string | undefined>): GradingPoolOptions {
  const n = Number(env.SQL_VERDICT_WORKERS);
  return Number.isInteger(n) && n > 0 ? { workers: n } : {};
}
