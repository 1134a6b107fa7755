/**
 * The "about … left" of a run in progress: from the cases graded in this session's elapsed time only. Cases kept
 * from before a reload took none of it.
 */
import { describe, expect, it } from 'vitest';
import { remainingMs } from '../../src/ui/state/run-progress.ts';

const live = (p: {
  done: number;
  kept: number;
  elapsedMs: number;
  total?: number;
  step?: 'execute' | 'selfcheck' | 'policy';
}) => ({
  index: p.done,
  total: p.total ?? 64,
  id: 'x',
  step: p.step ?? 'execute',
  ...p,
});

describe('remainingMs', () => {
  it('extrapolates from the cases graded in this session', () => {
    expect(remainingMs(live({ done: 10, kept: 0, elapsedMs: 1000 }))).toBe(5400);
  });

  it('no estimate before a case is graded in this session (before: a resumed run said "about 0.0 ms left")', () => {
    expect(remainingMs(live({ done: 9, kept: 9, elapsedMs: 0, step: 'selfcheck' }))).toBeNull();
    expect(remainingMs(live({ done: 9, kept: 9, elapsedMs: 4000 }))).toBeNull();
  });

  it('kept cases do not count as graded in this session (before: 5 s / 9 kept cases × 55 = "about 31 s left")', () => {
    expect(remainingMs(live({ done: 14, kept: 9, elapsedMs: 5000 }))).toBe(50_000);
  });

  it('none while the cases are judged again under a policy', () => {
    expect(remainingMs(live({ done: 64, kept: 0, elapsedMs: 5000, step: 'policy' }))).toBeNull();
  });
});
