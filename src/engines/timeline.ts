/**
 * SQL_VERDICT_TIMELINE=1: when each start-up step happens, in milliseconds since the process started, one line
 * per step on stderr (`timeline 1234 ms [thread 2] fixture retail loaded`), from every thread. For measuring
 * start-up (docs/benchmarks.md, "Start-up"); off by default, and then each mark costs one comparison.
 *
 * Worker threads write to file descriptor 2 directly: their own process.stderr is piped to the thread that
 * started them, which discards it. The origin is the main thread's `performance.timeOrigin` (the process start),
 * handed to the threads in SQL_VERDICT_TIMELINE_T0 (threads inherit the environment).
 */
import { writeSync } from 'node:fs';
import { isMainThread, threadId } from 'node:worker_threads';

const on = process.env.SQL_VERDICT_TIMELINE === '1';
if (on && isMainThread && !process.env.SQL_VERDICT_TIMELINE_T0)
  process.env.SQL_VERDICT_TIMELINE_T0 = String(performance.timeOrigin);
const origin = Number(process.env.SQL_VERDICT_TIMELINE_T0) || performance.timeOrigin;

/** Whether marks are written. */
export const timelineOn = on;

/** One step, stamped with the time since the process started and the thread it happened in. */
export function mark(step: string): void {
  if (!on) return;
  const ms = performance.timeOrigin + performance.now() - origin;
  try {
    writeSync(2, `timeline ${ms.toFixed(0).padStart(6)} ms [thread ${threadId}] ${step}\n`);
  } catch {
    // stderr closed: nothing to say it on.
  }
}
