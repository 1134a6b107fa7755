/** The live progress of a run being graded, and what the run view derives from it. */
import type { GradeProgress } from '../../core/run/grade-run.ts';

export interface LiveProgress extends GradeProgress {
  elapsedMs: number;
  /** Cases finished. */
  done: number;
  /** Of them, the cases kept from before a reload: finished, but not in this session's elapsed time. */
  kept: number;
}

/**
 * About how long the rest of the cases take, from the cases graded in this session's elapsed time; null before one
 * is. Counting the kept cases too, a resumed run said "about 0.0 ms left" and then a fraction of the real time.
 */
export function remainingMs(live: LiveProgress): number | null {
  const graded = live.done - live.kept;
  if (graded <= 0 || live.step === 'policy') return null;
  return (live.elapsedMs / graded) * (live.total - live.done);
}
