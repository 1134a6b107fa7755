/**
 * Regenerates the built-in fixtures (SQL dumps, schema descriptions and the
 * fixtures manifest) deterministically from their seeds, then the sample runs
 * and their expected outcomes (which depend on the corpora's bytes).
 *
 *   npm run fixtures:generate            write the files
 *   npm run fixtures:generate -- --check  exit 1 when a committed file differs
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateFixtureFiles } from './fixtures/files.ts';
import { generateRunFiles } from './fixtures/runs/files.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');

const files = [
  ...(await generateFixtureFiles()),
  ...(await generateRunFiles(async (p) => new Uint8Array(await readFile(join(root, p))))),
];
let stale = 0;
for (const file of files) {
  const target = join(root, file.path);
  const current = await readFile(target, 'utf8').catch(() => null);
  if (current === file.content) continue;
  if (check) {
    stale++;
    console.error(`stale: ${file.path}`);
    continue;
  }
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, file.content);
  console.log(`wrote ${file.path} (${Buffer.byteLength(file.content)} bytes)`);
}
if (check && stale > 0) {
  console.error(`${stale} generated file(s) differ from a fresh generation: run npm run fixtures:generate`);
  process.exit(1);
}
if (check) console.log(`all ${files.length} generated files are up to date`);
