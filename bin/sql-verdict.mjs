#!/usr/bin/env node
// Runs the TypeScript CLI from source (tsx), so `npx sql-verdict` works right after `npm install`.
import { register } from 'tsx/esm/api';

register();
const { main, internalError } = await import('../src/cli/main.ts');
// A failure outside a command (a worker event, a stray rejection) is a bug too: one line, exit 2.
const guard = (thrown) => {
  process.stderr.write(`${internalError(thrown, process.env)}\n`);
  process.exit(2);
};
process.on('uncaughtException', guard);
process.on('unhandledRejection', guard);
const code = await main(process.argv.slice(2));
process.exitCode = code;
