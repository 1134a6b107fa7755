/**
 * The "Show full results" action of a comparison: both whole results,
 * re-executed in the app worker, with the comparison's row alignment
 * (`RowDiff`) that says which rows and cells to mark.
 */
import { ENGINE_NAMES, type EngineName, type FixtureSource } from '../../core/engine.ts';
import { messageOf, type Outcome, type VerdictError } from '../../core/errors.ts';
import type { EvaluationReport } from '../../core/report/report.ts';
import type { CaseResults, CaseResultsInput } from '../../worker/app.worker.ts';

export interface FullResultsBackend {
  caseResults(input: CaseResultsInput): Promise<Outcome<CaseResults>>;
}

/** Rows materialized per side at most (the DOM holds only the visible ones). */
export const FULL_RESULTS_MAX_ROWS = 100_000;

export class FullResults {
  status = $state<'idle' | 'loading' | 'ready' | 'failed'>('idle');
  answer = $state.raw<CaseResults | null>(null);
  error = $state.raw<VerdictError | null>(null);
  private seq = 0;

  constructor(private readonly backend: FullResultsBackend) {}

  /** Re-execute both queries of `report` on its fixture (a user fixture when given, else the built-in). */
  async load(report: EvaluationReport, fixtures: Record<string, FixtureSource> = {}): Promise<void> {
    const seq = ++this.seq;
    const meta = report.run_metadata;
    const engine = meta.engine as EngineName;
    if (!(ENGINE_NAMES as readonly string[]).includes(engine) || !meta.fixture) {
      this.fail({
        code: 'input.invalid',
        message: `This report names no fixture and engine to run on (${meta.engine}, ${meta.fixture ?? 'no fixture'}).`,
      });
      return;
    }
    this.status = 'loading';
    this.answer = null;
    this.error = null;
    const result = report.evidence.result;
    const timeout = Number(meta.config['query_timeout_ms']);
    try {
      const outcome = await this.backend.caseResults({
        engine,
        fixture: fixtures[meta.fixture] ?? meta.fixture,
        expectedSql: report.evidence.expected_sql,
        actualSql: report.evidence.actual_sql ?? '',
        maxRows: FULL_RESULTS_MAX_ROWS,
        ...(Number.isFinite(timeout) && timeout > 0 ? { timeoutMs: timeout } : {}),
        // The report's own policy, so the marks agree with its verdict.
        ...(result ? { config: result.config, orderKeys: result.order_check.order_keys } : {}),
      });
      if (seq !== this.seq) return;
      if (outcome.ok) {
        this.answer = outcome.value;
        this.status = 'ready';
      } else this.fail(outcome.error);
    } catch (thrown) {
      if (seq === this.seq) this.fail({ code: 'execution.error', message: messageOf(thrown) });
    }
  }

  hide(): void {
    this.seq++;
    this.status = 'idle';
    this.answer = null;
    this.error = null;
  }

  private fail(error: VerdictError): void {
    this.error = error;
    this.status = 'failed';
  }
}
