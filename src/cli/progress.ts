/**
 * Progress of a long command on stderr: a one-line bar redrawn in place when stderr is a terminal,
 * plain lines at most once a second otherwise (CI logs, --json, in-process callers).
 */
import { processIo, type Io } from './io.ts';

export interface Progress {
  update(done: number, total: number, label: string): void;
  end(): void;
}

export function progressReporter(io: Io, options: { json?: boolean; tty?: boolean; width?: number } = {}): Progress {
  const tty = options.tty ?? (io === processIo && Boolean(process.stderr.isTTY) && !options.json);
  if (!tty) {
    let last = 0;
    return {
      update(done, total, label) {
        const now = Date.now();
        if (now - last > 1000 || done === total) {
          last = now;
          io.err(`graded ${done}/${total} (${label})`);
        }
      },
      end() {},
    };
  }
  const columns = options.width ?? (process.stderr.columns || 80);
  let drawn = false;
  let last = 0;
  return {
    update(done, total, label) {
      const now = Date.now();
      if (now - last < 80 && done !== total) return;
      last = now;
      const barWidth = Math.max(10, Math.min(30, columns - 40));
      const filled = total ? Math.round((barWidth * done) / total) : 0;
      const line = `[${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}] ${done}/${total} ${label}`;
      process.stderr.write(`\r${line.slice(0, columns - 1).padEnd(columns - 1)}`);
      drawn = true;
    },
    end() {
      if (drawn) process.stderr.write('\n');
      drawn = false;
    },
  };
}
