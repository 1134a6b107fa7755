/**
 * The Monitor view's log analysis, in the app worker: the file is read as a stream and folded line by line into
 * core's LogMonitor (the CLI's `stef --log` fold), so the page never holds or parses the log. Every ~100 ms of
 * work it yields to the worker's event loop — a Cancel, or another view's call, gets through — and sends the
 * page a progress snapshot (lines read of the total, per agent version queries and evaluated so far).
 */
import { fail, ok, type Outcome } from '../core/errors.ts';
import {
  countLines,
  LineSplitter,
  LogMonitor,
  type AppRules,
  type LogError,
  type MonitorReport,
} from '../core/stef/index.ts';

export interface MonitorInput {
  /** Names this analysis for `cancelMonitor`. */
  monitorId: string;
  /** The file's name (the page names bad lines `name:line`). */
  file: string;
  /** The log itself (a picked File, or the sample as a Blob): read here, never on the page. */
  blob: Blob;
  bucket?: 'day' | 'week';
  worst?: number;
  rules?: AppRules;
}

export interface MonitorProgress {
  /** Lines read so far, of `totalLines` (every line, blank ones included, as the line numbers count them). */
  linesRead: number;
  totalLines: number;
  bytesRead: number;
  totalBytes: number;
  agents: { agent_version: string; queries: number; evaluated: number }[];
  errorCount: number;
  elapsedMs: number;
}

export interface MonitorListener {
  progress(event: MonitorProgress): void;
}

export interface MonitoredLog {
  /** The CLI's `stef --log --json` report over the good lines. */
  report: MonitorReport;
  /** The first bad lines (line and field), and how many there were. */
  errors: LogError[];
  errorCount: number;
  lines: number;
  /** Per agent version, each Φ value and its count (the Φ histogram). */
  distributions: Record<string, [number, number][]>;
  elapsedMs: number;
}

const SLICE_MS = 100;
const KEEP_ERRORS = 50;

/** A macrotask turn: messages queued for the worker (cancel, other calls) run before the next slice. */
const turn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

async function linesIn(blob: Blob): Promise<number> {
  const reader = blob.stream().getReader();
  let n = 0;
  let last = 0x0a;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!value.length) continue;
    n += countLines(value) - (value[value.length - 1] === 0x0a ? 0 : 1);
    last = value[value.length - 1]!;
  }
  return last === 0x0a ? n : n + 1;
}

export async function monitorLog(
  input: MonitorInput,
  listener: MonitorListener | undefined,
  signal: AbortSignal,
): Promise<Outcome<MonitoredLog>> {
  const started = performance.now();
  const totalBytes = input.blob.size;
  // One quick pass for the total (an LF count, chunk by chunk: memory stays bounded): progress says "line i of n".
  const totalLines = await linesIn(input.blob);
  const m = new LogMonitor({
    bucket: input.bucket ?? 'day',
    worst: input.worst ?? 5,
    keepErrors: KEEP_ERRORS,
    ...(input.rules ? { rules: input.rules } : {}),
  });
  const splitter = new LineSplitter();
  let linesRead = 0;
  let sliceStart = performance.now();
  const progress = () =>
    listener?.progress({
      linesRead,
      totalLines,
      bytesRead: splitter.bytes,
      totalBytes,
      agents: m.counts(),
      errorCount: m.errorCount,
      elapsedMs: performance.now() - started,
    });
  const cancelled = () => fail('run.cancelled', `The analysis of ${input.file} was cancelled at line ${linesRead}.`);
  progress();
  const fold = async (lines: Iterable<{ line: number; text: string } | { line: number; error: LogError }>) => {
    for (const l of lines) {
      linesRead = l.line;
      if ('error' in l) {
        m.errorCount++;
        if (m.errors.length < KEEP_ERRORS) m.errors.push(l.error);
      } else m.addLine(l.text, l.line);
      if (performance.now() - sliceStart > SLICE_MS) {
        progress();
        await turn();
        if (signal.aborted) return false;
        sliceStart = performance.now();
      }
    }
    return !signal.aborted;
  };
  const reader = input.blob.stream().getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!(await fold(splitter.push(value)))) return cancelled();
    }
    if (!(await fold(splitter.end()))) return cancelled();
  } finally {
    reader.releaseLock();
  }
  progress();
  const report = m.report();
  if (!report.queries && !m.errorCount)
    return fail('input.invalid', `${input.file}: the log holds no records.`, { location: input.file });
  return ok({
    report,
    errors: m.errors,
    errorCount: m.errorCount,
    lines: linesRead,
    distributions: m.distributions(),
    elapsedMs: performance.now() - started,
  });
}
