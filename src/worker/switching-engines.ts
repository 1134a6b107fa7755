/**
 * The app's `--db-dir`: a benchmark folder names dozens of databases, and an
 * engine host worker per database would cost a worker (and its wasm) each.
 * One engine is kept and reloaded with the database the next case needs, as
 * the CLI's DbDirPool does with `engineSwitching` (cases come grouped by
 * database, so reloading is rare).
 */
import type { Engine, EngineName, FixtureSource } from '../core/engine.ts';
import { fail, ok, type Outcome } from '../core/errors.ts';
import { openEngine } from '../engines/browser.ts';
import type { SupervisedEngine } from '../engines/supervisor.ts';

export class SwitchingEngines {
  private engine: SupervisedEngine | null = null;
  private fixture: string | null = null;
  private ready: Promise<Outcome<Engine>> = Promise.resolve(fail('fixture.not_loaded', 'Not loaded.'));

  constructor(
    private readonly kind: EngineName,
    private readonly sources: Record<string, FixtureSource>,
  ) {}

  engineFor = async (name: string): Promise<Outcome<Engine>> => {
    if (this.fixture === name) return this.ready;
    const source = this.sources[name];
    if (!source)
      return fail(
        'input.not_found',
        `No database file for ${name}: add ${name}.sqlite (or its folder) to the dropped files.`,
        { location: name },
      );
    await this.ready.catch(() => undefined);
    this.engine ??= openEngine(this.kind);
    this.fixture = name;
    const engine = this.engine;
    this.ready = engine
      .load({ ...source, name })
      .then((loaded) =>
        loaded.ok
          ? ok(engine as Engine)
          : fail(loaded.error.code, `Fixture ${name}: ${loaded.error.message}`, { location: name }),
      );
    return this.ready;
  };

  async close(): Promise<void> {
    await this.engine?.close();
    this.engine = null;
    this.fixture = null;
  }
}
