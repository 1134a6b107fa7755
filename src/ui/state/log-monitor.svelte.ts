/**
 * The Monitor view's log analysis: the page hands the file to the app worker (never reads it itself), shows the
 * worker's progress (lines read of the total, per agent version counts) and can cancel; the report, the bad lines
 * and the Φ distributions come back at the end.
 */
import { proxy } from 'comlink';
import { messageOf, type VerdictError } from '../../core/errors.ts';
import type { AppRules, LogError, MonitorReport } from '../../core/stef/index.ts';
import type { MonitorProgress } from '../../worker/stef-monitor.ts';
import type { AppClient } from './app-client.ts';

export type LogMonitorBackend = Pick<AppClient, 'stefMonitor' | 'cancelMonitor'>;

/** The key under which main.ts hands the instance to the Monitor view (Svelte context). */
export const LOG_MONITOR_CONTEXT = 'sql-verdict.log-monitor';

export class LogMonitorRun {
  source = $state('');
  running = $state(false);
  progress = $state.raw<MonitorProgress | null>(null);
  report = $state.raw<MonitorReport | null>(null);
  errors = $state.raw<LogError[]>([]);
  errorCount = $state(0);
  distributions = $state.raw<Record<string, [number, number][]>>({});
  /** Why there is no report: a cancel, an unreadable file, a log without records. */
  failure = $state.raw<VerdictError | null>(null);
  /** Wall time of the last finished analysis, in the worker. */
  elapsedMs = $state<number | null>(null);

  /** The last log opened (kept while the page lives: a bucket change reads it again). */
  blob: Blob | null = null;
  /** R_app for the log (the CLI's --rules): its file name and the checked rules; null: none. */
  rules = $state.raw<{ name: string; rules: AppRules } | null>(null);

  private seq = 0;

  constructor(private readonly backend: LogMonitorBackend) {}

  /** Analyse a log; a newer call makes an older one's result stale (it is cancelled and dropped). */
  async analyse(source: string, blob: Blob, bucket: 'day' | 'week'): Promise<void> {
    const seq = ++this.seq;
    const monitorId = `monitor-${seq}`;
    if (this.running) void this.backend.cancelMonitor(`monitor-${seq - 1}`);
    this.source = source;
    this.blob = blob;
    this.running = true;
    this.progress = null;
    this.failure = null;
    // Nothing stale on screen while the new log is read.
    this.report = null;
    this.errors = [];
    this.errorCount = 0;
    this.distributions = {};
    this.elapsedMs = null;
    const listener = proxy({
      progress: (p: MonitorProgress) => {
        if (seq === this.seq) this.progress = p;
      },
    });
    try {
      const rules = this.rules?.rules;
      const outcome = await this.backend.stefMonitor(
        { monitorId, file: source, blob, bucket, worst: 5, ...(rules ? { rules } : {}) },
        listener,
      );
      if (seq !== this.seq) return;
      if (outcome.ok) {
        this.report = outcome.value.report.queries ? outcome.value.report : null;
        this.errors = outcome.value.errors;
        this.errorCount = outcome.value.errorCount;
        this.distributions = outcome.value.distributions;
        this.elapsedMs = outcome.value.elapsedMs;
      } else {
        this.report = null;
        this.errors = [];
        this.errorCount = 0;
        this.distributions = {};
        this.failure = outcome.error;
      }
    } catch (thrown) {
      if (seq === this.seq) {
        this.report = null;
        this.failure = { code: 'execution.error', message: messageOf(thrown) };
      }
    } finally {
      if (seq === this.seq) this.running = false;
    }
  }

  cancel(): void {
    if (this.running) void this.backend.cancelMonitor(`monitor-${this.seq}`);
  }
}
