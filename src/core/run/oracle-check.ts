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
 *
 * `byFixture`: one such chain per fixture, side by side (each fixture has its own engine), and a case waits for
 * every reference of its own fixture, not for the other fixtures'. A fixture's references go ahead of its cases on
 * its engine (a case's candidate that runs out its budget early in the corpus would hold up the rest of the check,
 * and every case's report with it), while one fixture's cases are graded beside another's check. The findings are
 * the same, told in corpus order.
 */
export class OracleCheck {
  checked = 0;
  readonly findings: SelfCheckFinding[] = [];
  /** Corpus index of each finding (the refusal names them in corpus order). */
  private readonly findingAt = new Map<SelfCheckFinding, number>();
  /** By corpus index: the case's reference is checked (or it has none), as are those it waits for. */
  private readonly passed: boolean[];
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
    readonly byFixture = false,
  ) {
    this.passed = new Array<boolean>(cases.length).fill(false);
    const chains = new Map<string, [number, CorpusCase][]>();
    for (const [index, c] of cases.entries()) {
      const key = byFixture ? c.fixture : '';
      const chain = chains.get(key) ?? [];
      chain.push([index, c]);
      chains.set(key, chain);
    }
    const check = async (chain: [number, CorpusCase][]) => {
      for (const [index, c] of chain) {
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
          if (finding) {
            this.findings.push(finding);
            this.findingAt.set(finding, index);
          }
        }
        if (!byFixture) this.pass(index);
      }
      if (byFixture) for (const [index] of chain) this.pass(index);
    };
    this.done = Promise.all([...chains.values()].map(check))
      .then(() => undefined)
      .finally(() => {
        this.passed.fill(true);
        this.wake();
        this.findings.sort((a, b) => this.findingAt.get(a)! - this.findingAt.get(b)!);
      });
    // Observed here so a throw waits for `finish` (which rethrows it) instead of being an unhandled rejection.
    this.done.catch(() => undefined);
  }

  /** Waits for the last check; `stop`: check no further reference (the run was cancelled or failed). */
  async finish(stop: boolean): Promise<void> {
    if (stop) this.stopped = true;
    await this.done;
  }

  private pass(index: number): void {
    this.passed[index] = true;
    this.wake();
  }

  private wake(): void {
    const ready = this.waiters.filter((w) => this.passed[w.index]);
    this.waiters = this.waiters.filter((w) => !this.passed[w.index]);
    for (const w of ready) w.resolve();
  }

  /**
   * Resolves once the reference of case `index` is checked (at once for a case without one); byFixture: once every
   * reference of its fixture is.
   */
  until(index: number): Promise<void> {
    if (this.passed[index] || index >= this.passed.length) return Promise.resolve();
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
