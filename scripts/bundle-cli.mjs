/**
 * The second half of `npm run build:lib`: after tsc has compiled the library to lib/ (with its types), the CLI
 * and the worker entries are bundled beside it, so a run loads a few files instead of ~270 modules.
 * Measured on `run --corpus execution_goldens` (docs/benchmarks.md, "Start-up"): loading the grading code
 * took 260 ms as modules and 110 ms bundled, most of the difference being node-sql-parser's CommonJS grammars,
 * which Node's loader wraps and scans one by one; every grading thread of a pool loads the same code again.
 *
 * Layout: the entries keep their paths (lib/cli/bin.js, lib/worker/*.js) and the code they share goes to
 * lib/chunks/, one folder below lib/ like every source folder, so the relative URLs the code resolves at run
 * time (`new URL('../worker/grade.thread.js', import.meta.url)`, the repository root at '../..') still land
 * where they did. Dynamic imports stay lazy chunks: `--help` does not load the grading code.
 *
 * Packages with native or wasm files beside their code stay external (Node resolves them from node_modules at
 * run time), as do the runtime dependencies the library also imports.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lib = path.join(root, 'lib');
/** The process and thread entries, by their path under src/ (and lib/). */
const ENTRIES = ['cli/bin', 'worker/grade.thread', 'worker/engine-host.thread', 'worker/engine-host.process'];

// Bundled CommonJS (yaml's Node build) calls require() for Node's own modules: an ES module has none.
const banner =
  "import { createRequire as __sqlVerdictCreateRequire } from 'node:module'; const require = __sqlVerdictCreateRequire(import.meta.url);";

// These folders are the bundle's alone (tsc compiles only the library): nothing of an earlier build stays.
for (const dir of ['cli', 'worker', 'chunks']) rmSync(path.join(lib, dir), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: ENTRIES.map((entry) => `src/${entry}.ts`),
  outbase: 'src',
  outdir: 'lib',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  banner: { js: banner },
  external: ['sql.js', '@duckdb/*', '@electric-sql/*', 'pg', 'apache-arrow', 'hyparquet', 'comlink', 'comlink/*'],
  logLevel: 'warning',
});

// The banner is text esbuild does not see: a bundled module's own top-level `require` must have been renamed.
const chunks = path.join(lib, 'chunks');
for (const file of [
  ...readdirSync(chunks).map((f) => path.join(chunks, f)),
  ...ENTRIES.map((entry) => path.join(lib, `${entry}.js`)),
]) {
  if (/^\s*(?:const|let|var) require\b/m.test(readFileSync(file, 'utf8').slice(banner.length)))
    throw new Error(`${path.relative(root, file)} declares require beside the bundle banner`);
}
