/**
 * The self-check of a run, alongside its grading: each reference reproduces its frozen result before its cases
 * are graded (the same check as `sql-verdict selfcheck`, corpus/selfcheck.ts `expectedMismatch`).
 */
import { expectedMismatch, hasOracle, type OracleCase, type SelfCheckFinding } from '../corpus/selfcheck.ts';
import type { CorpusCase } from '../corpus/types.ts';
import { fail, type Outcome } from '../errors.ts';
import type { GradeRunInput } from './run-report.ts';

/**
 * One reference before its cases are graded: its fixture loads, it runs, and it reproduces its frozen result
 * (the self-check's oracle check, `expectedMismatch`). The finding, or null.
 */
async function checkReference(c: OracleCase, engineFor: GradeRunInput['engineFor']): Promise<SelfCheckFinding | null> {
  const at = { case_id: c.id, fixture: c.fixture, severity: 'error' as const };
  const engine = await engineFor(c.fixture);
  if (!engine.ok)
    return {
      ...at,
      code: 'fixture_unavailable',
      message: `Fixture "${c.fixture}" did not load: ${engine.error.message}`,
    };
  const run = await engine.value.execute(c.referenceSql);
  if (!run.ok) return { ...at, code: 'reference_failed', message: `The reference does not run: ${run.error.message}` };
  const mismatch = expectedMismatch(c, run.value);
  return mismatch && { ...mismatch, message: `${mismatch.message} ${mismatch.evidence?.[0] ?? ''}`.trim() };
}

/**
 * The self-check of a run, alongside the grading: every reference, in corpus
 * order, one at a time (`checkReference`), while the cases are
 * graded. A case starts only once its own reference is checked (`until`),
 * so the first case waits for one reference instead of all of them; after a
 * finding no further case starts, the other references are still checked and
 * the run is refused naming the same references as checking them all first.
 */
export class OracleCheck {
  checked = 0;
  readonly findings: SelfCheckFinding[] = [];
  /** Cases before this index have had their reference checked. */
  private through = 0;
  private waiters: { index: number; resolve: () => void }[] = [];
  readonly done: Promise<void>;

  private stopped = false;

  constructor(
    cases: readonly CorpusCase[],
    engineFor: GradeRunInput['engineFor'],
    onProgress: (index: number, id: string) => void,
    /** Waits for the fixture's digest before (false: it failed, nothing more is checked). */
    digestTaken: (fixture: string) => Promise<boolean>,
    /** After the first reference, further ones wait for this (the first case then has the engine to itself). */
    afterFirst: Promise<void> | null = null,
  ) {
    this.done = (async () => {
      for (const [index, c] of cases.entries()) {
        if (this.stopped) break;
        if (hasOracle(c)) {
          if (this.checked > 0 && afterFirst) await afterFirst;
          if (this.stopped) break;
          if (!(await digestTaken(c.fixture))) {
            this.stopped = true;
            break;
          }
          onProgress(index, c.id);
          this.checked++;
          const finding = await checkReference(c, engineFor);
          if (finding) this.findings.push(finding);
        }
        this.advance(index + 1);
      }
    })().finally(() => this.advance(Infinity));
    // Observed here so a throw waits for `finish` (which rethrows it) instead of being an unhandled rejection.
    this.done.catch(() => undefined);
  }

  /** Waits for the last check; `stop`: check no further reference (the run was cancelled or failed). */
  async finish(stop: boolean): Promise<void> {
    if (stop) this.stopped = true;
    await this.done;
  }

  private advance(through: number): void {
    this.through = through;
    const ready = this.waiters.filter((w) => w.index < through);
    this.waiters = this.waiters.filter((w) => w.index >= through);
    for (const w of ready) w.resolve();
  }

  /** Resolves once the reference of case `index` is checked (at once for a case without one). */
  until(index: number): Promise<void> {
    if (index < this.through) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ index, resolve }));
  }

  refusal(): Outcome<never> {
    return fail(
      'input.invalid',
      `The oracle self-check failed, grading refused: ${this.findings.map((f) => `${f.case_id} (${f.message})`).join('; ')}`,
      {
        location: this.findings.map((f) => f.case_id).join(', '),
      },
    );
  }
}
