/**
 * The results page's release gate: a baseline chosen as another finished
 * run of the same corpus (recorded from its report with the core's
 * `recordBaseline`, as `sql-verdict baseline record` does) or loaded from a
 * baseline file, and the core's `applyGate` verdict for this run. Nothing
 * here computes a figure; the arithmetic lines are the core's, as the CLI
 * prints them.
 */
import { recordBaseline, type Baseline } from '../../core/gate/baseline.ts';
import { applyGate, type GateCheckName, type GateResult } from '../../core/gate/gate.ts';
import type { RunSummary } from '../../core/gate/summary.ts';
import { notWholeRun } from '../../core/gate/whole-run.ts';
import { messageOf, type VerdictError } from '../../core/errors.ts';
import type { StoredRun } from './store.ts';

export interface BaselineSource {
  /** What the user chose, as shown: a file name or the stored run. */
  label: string;
  kind: 'run' | 'file';
  baseline: Baseline;
}

/** Which cases a check's ids are about, for the failing-arm line. */
export const CHECK_SCOPE: Partial<Record<GateCheckName, string>> = {
  answer_accuracy: 'answer set (unarmed and must_answer cases) — not correct',
  refusal_recall: 'must_refuse arm — not declined',
  over_refusal: 'must_answer arm — declined',
  case_ids: 'baseline cases missing from this corpus',
  corpus_digest: 'cases added or moved since the baseline',
};

/** Finished runs of the same corpus (by name, as the gate's suite check) other than `current`. */
export function baselineCandidates(runs: readonly StoredRun[], current: StoredRun): StoredRun[] {
  const name = current.report?.corpus.name;
  return runs.filter(
    (r) => r.id !== current.id && r.status === 'done' && r.report !== null && r.report.corpus.name === name,
  );
}

/** The file a stored run's report is named by: the report file it was opened from, else its run file. */
function reportFile(run: StoredRun): string {
  return run.openedFrom?.file ?? run.run.file;
}

export class GateState {
  source = $state.raw<BaselineSource | null>(null);
  error = $state.raw<VerdictError | null>(null);
  /** The stored run chosen as baseline ('' when none, or when a file was loaded). */
  runId = $state('');

  /**
   * `summary` is read on every evaluation, so a new report re-applies the gate. `run` is the run gated:
   * a report of some shards only (`run --shard K/N`, opened from a file) is refused, as `sql-verdict gate` refuses it.
   */
  constructor(
    private readonly summary: () => RunSummary,
    private readonly run: () => StoredRun | null = () => null,
  ) {}

  /** Why this run cannot be gated at all (the core's `notWholeRun`: the CLI's message), or null. */
  refused: VerdictError | null = $derived.by(() => {
    const run = this.run();
    return run?.report ? notWholeRun(reportFile(run), run.report) : null;
  });

  result: GateResult | null = $derived.by(() =>
    this.source && !this.refused ? applyGate(this.summary(), this.source.baseline) : null,
  );

  /** A baseline recorded from another stored run's report, dated by that run. */
  useRun(run: StoredRun | undefined): void {
    this.runId = run?.id ?? '';
    if (!run?.report) {
      this.clear();
      return;
    }
    // `sql-verdict baseline record` refuses a report of some shards only: so does a stored one.
    const partial = notWholeRun(reportFile(run), run.report);
    if (partial) {
      this.fail(partial);
      return;
    }
    const recorded = recordBaseline(run.report.summary, { date: run.createdAt.slice(0, 10) });
    if (!recorded.ok) {
      this.fail({
        ...recorded.error,
        message: `Run ${run.run.file} (${run.createdAt}) cannot be a baseline: ${recorded.error.message}`,
      });
      return;
    }
    this.source = {
      label: `${run.run.file} · ${run.report.run.model ?? 'no model'} · graded ${run.createdAt.slice(0, 16).replace('T', ' ')}`,
      kind: 'run',
      baseline: recorded.value,
    };
    this.error = null;
  }

  /** A baseline file from the picker (what `sql-verdict baseline record --out` writes). */
  async useFile(file: File): Promise<void> {
    this.runId = '';
    let text: string;
    try {
      text = await file.text();
    } catch (thrown) {
      this.fail({
        code: 'input.invalid',
        message: `${file.name}: the file could not be read (${messageOf(thrown)}).`,
        location: file.name,
      });
      return;
    }
    await this.useText(file.name, text);
  }

  async useText(name: string, text: string): Promise<void> {
    // Loaded when a file is picked: the reader names lines through the YAML parser, which the page need not carry.
    const { readBaselineFile } = await import('../../core/gate/baseline-file.ts');
    const read = readBaselineFile(name, text);
    if (!read.ok) {
      this.fail(read.error);
      return;
    }
    this.source = { label: name, kind: 'file', baseline: read.value };
    this.error = null;
  }

  clear(): void {
    this.source = null;
    this.error = null;
  }

  private fail(error: VerdictError): void {
    // A bad choice replaces the previous verdict: a stale PASS next to an error would mislead.
    this.source = null;
    this.error = error;
  }
}
