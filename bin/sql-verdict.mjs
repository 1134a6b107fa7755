#!/usr/bin/env node
// Runs the TypeScript CLI from source (tsx), so `npx sql-verdict` works right after `npm install`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
const code = await main(process.argv.slice(2));
process.exitCode = code;
