#!/usr/bin/env node
// The package runs the compiled CLI (lib/, built by `npm run build:lib`, which `prepare` runs):
// no tsx at run time. In a checkout, src/ is the truth: when any source file is newer than the
// build (or there is none), the CLI runs from source through tsx, a devDependency. Only what lib/ is
// compiled from counts: the app's own files (src/ui, .svelte) never make the CLI run from source.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const lib = new URL('../lib/cli/bin.js', import.meta.url);
const src = fileURLToPath(new URL('../src/', import.meta.url));

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!(dir === src && entry.name === 'ui')) newest = Math.max(newest, newestMtime(full));
    } else if (/\.m?[jt]s$/.test(entry.name)) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

const built = existsSync(lib) ? statSync(lib).mtimeMs : 0;
const stale = existsSync(src) && (!built || process.env.SQL_VERDICT_FROM_SOURCE === '1' || newestMtime(src) > built);
if (stale) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/bin.ts', import.meta.url).href);
} else {
  await import(lib.href);
}
