/** Process entry of the sql-verdict command (bin/sql-verdict.mjs loads the compiled form, or this source). */
import { mark } from '../engines/timeline.ts';
import { internalError, main } from './main.ts';

mark('cli modules loaded');

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
