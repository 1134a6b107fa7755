/**
 * Each fixture's content digest before any SQL runs on it, and after the run: a fixture whose content changed
 * during the run fails it (its results are not trustworthy). A fixture's reference and cases wait for its digest
 * before (`taken`).
 */
import type { CorpusCase } from '../corpus/types.ts';
import { fail, ok, type Outcome } from '../errors.ts';
import type { GradeRunInput, RunReport, RunReportFixture } from './run-report.ts';

/**
 * When the digests before are taken. `together`: all of them first (something needs them all at the start: a
 * resume, onStart). `one-by-one`: all first, one after the other (one engine is reloaded per fixture).
 * `chained`: the first case's fixture first, alone, and each further one after the one before it; a fixture
 * loading beside the first one would slow it down on a machine with few cores, and the first case needs only
 * its own.
 */
export type DigestOrder = 'together' | 'one-by-one' | 'chained';

export class FixtureDigests {
  /** The fixtures in the order the corpus first uses them. */
  readonly names: string[];
  readonly before = new Map<string, string>();
  /** The first fixture (in corpus order) that failed to load, once it is known. */
  failure: Outcome<never> | null = null;
  private readonly pending = new Map<string, Promise<Outcome<void>>>();

  constructor(
    cases: readonly CorpusCase[],
    private readonly engineFor: GradeRunInput['engineFor'],
    private readonly asOfFor: (fixture: string) => string | undefined = () => undefined,
  ) {
    this.names = [...new Set(cases.map((c) => c.fixture))];
  }

  /**
   * Starts taking the digests before. In the orders that take them all first, it waits for them, and a fixture
   * that fails to load fails the run (with the same message as in the chained order).
   */
  async start(order: DigestOrder): Promise<Outcome<void>> {
    if (order === 'chained') {
      let previous: Promise<unknown> = Promise.resolve();
      for (const name of this.names) {
        const next = previous.then(() => this.take(name));
        // Awaited when a case or reference of the fixture comes up; a throw is rethrown there, not unhandled now.
        next.catch(() => undefined);
        this.pending.set(name, next);
        previous = next;
      }
      return ok(undefined);
    }
    const outcomes = [];
    if (order === 'one-by-one') for (const name of this.names) outcomes.push(await this.take(name));
    else outcomes.push(...(await Promise.all(this.names.map((n) => this.take(n)))));
    return outcomes.find((o) => !o.ok) ?? ok(undefined);
  }

  /** Whether the fixture's digest before is taken (false: it failed, and `failure` says which fixture failed first). */
  async taken(name: string): Promise<boolean> {
    const outcome = await this.pending.get(name);
    if (!outcome || outcome.ok) return true;
    for (const n of this.names) {
      const o = await this.pending.get(n);
      if (o && !o.ok) {
        this.failure ??= o;
        break;
      }
    }
    return false;
  }

  /** The digests after the run, next to those before; a fixture whose content changed fails the run. */
  async after(): Promise<Outcome<RunReport['fixtures']>> {
    // Every fixture was used by a case, so its digest is taken (or the run failed before).
    for (const name of this.names) if (!(await this.taken(name)) && this.failure) return this.failure;
    const fixtures: RunReportFixture[] = [];
    for (const name of this.names) {
      const engine = await this.engineFor(name);
      const after = engine.ok ? await engine.value.contentDigest() : null;
      const digest = after?.ok ? after.value : 'unavailable';
      const asOf = this.asOfFor(name);
      fixtures.push({
        name,
        content_digest_before: this.before.get(name)!,
        content_digest_after: digest,
        unchanged: digest === this.before.get(name),
        ...(asOf ? { as_of: asOf } : {}),
      });
    }
    const changed = fixtures.filter((f) => !f.unchanged);
    if (changed.length)
      return fail(
        'sandbox.digest_changed',
        `The content of fixture ${changed.map((f) => f.name).join(', ')} changed during the run: results are not trustworthy.`,
      );
    return ok(fixtures);
  }

  private async take(name: string): Promise<Outcome<void>> {
    const engine = await this.engineFor(name);
    if (!engine.ok) {
      // The engine pool's message already names the fixture: "Fixture retail: Fixture retail: …" otherwise.
      const named = engine.error.message.startsWith(`Fixture ${name}`);
      const message = named ? engine.error.message : `Fixture ${name}: ${engine.error.message}`;
      return fail(engine.error.code, message, { location: name });
    }
    const digest = await engine.value.contentDigest();
    if (!digest.ok)
      return fail(
        'sandbox.digest_changed',
        `Fixture ${name}: cannot compute its content digest (${digest.error.message}).`,
      );
    this.before.set(name, digest.value);
    return ok(undefined);
  }
}
