/** Process entry of the sql-verdict command (bin/sql-verdict.mjs loads the compiled form, or this source). */
import { setFlagsFromString } from 'node:v8';
import { mark } from '../engines/timeline.ts';
import { internalError, main } from './main.ts';

mark('cli modules loaded');

// V8 lets each heap grow to up to 4× what the last full collection kept before collecting again. A corpus run's
// grading workers keep caches of 60-130 MB and make garbage fast, so the run's peak RSS followed the corpus:
// 650 MiB at 8,003 Spider pairs, 1.2-1.4 GiB at 24,009. A fixed 2× keeps the same run at 510 and 810 MiB, with
// no measurable change in time (docs/benchmarks.md). The flag is process-wide: the worker threads follow it.
// A value given to node itself (`node --heap-growing-percent=N …/sql-verdict.mjs`) is the user's and stays.
if (!process.execArgv.some((a) => /^--heap[-_]growing[-_]percent/.test(a)))
  setFlagsFromString('--heap-growing-percent=100');

// A failure outside a command (a worker event, a stray rejection) is a bug too: one line, exit 2.
const guard = (thrown: unknown) => {
  process.stderr.write(`${internalError(thrown, process.env)}\n`);
  process.exit(2);
};
// A reader that went away (`sql-verdict ... | head`) is not a bug: end quietly, as a process that SIGPIPE
// stops does (status 141), so `set -o pipefail` still sees that the output was cut.
process.stdout.on('error', (error: NodeJS.ErrnoException) =>
  error.code === 'EPIPE' ? process.exit(141) : guard(error),
);
process.on('uncaughtException', guard);
process.on('unhandledRejection', guard);
const code = await main(process.argv.slice(2));
process.exitCode = code;
// The answer is out once both streams drain; a thread or port something left open must not keep a CI job waiting.
await Promise.all(
  [process.stdout, process.stderr].map((stream) => new Promise<void>((resolve) => stream.write('', () => resolve()))),
);
process.exit(code);
