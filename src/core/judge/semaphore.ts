/** A small promise semaphore: at most `limit` holders at once, first come first served. */
import type { CancelSignal } from '../engine.ts';

export interface Semaphore {
  /** Resolves with a release function, or null if `signal` aborted while waiting. */
  acquire(signal?: CancelSignal): Promise<(() => void) | null>;
  readonly active: number;
  readonly waiting: number;
}

export function createSemaphore(limit: number): Semaphore {
  const max = Math.max(1, Math.floor(limit));
  let active = 0;
  const queue: Array<() => void> = [];

  function releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = queue.shift();
      if (next) next();
      else active -= 1;
    };
  }

  return {
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
    acquire(signal) {
      if (signal?.aborted) return Promise.resolve(null);
      if (active < max) {
        active += 1;
        return Promise.resolve(releaser());
      }
      return new Promise((resolve) => {
        // The slot is handed over directly: `active` stays the same.
        const grant = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(releaser());
        };
        const onAbort = () => {
          const at = queue.indexOf(grant);
          if (at >= 0) queue.splice(at, 1);
          resolve(null);
        };
        queue.push(grant);
        signal?.addEventListener('abort', onAbort);
      });
    },
  };
}
