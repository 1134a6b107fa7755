/**
 * Freeze the `expected` result of every reference query in the built-in
 * corpora (or the corpus files given), by running it on its fixture.
 *
 *   node --import tsx scripts/freeze-expected.ts [--check] [--print] [--only id,id] [corpus.yaml ...]
 *
 * --check  change nothing; exit 1 when a frozen result differs from a fresh run
 * --print  print every result
 * Goldens are never frozen on CI: with CI set, only --check runs.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatProblem, loadCorpus, parseFixtureManifest } from '../src/core/corpus/index.ts';
import type { ResultTable } from '../src/core/value/kind.ts';
import { formatCell } from '../src/core/value/format.ts';
import { resolveFixture } from '../src/cli/fixtures.ts';
import { openEngine } from '../src/engines/node.ts';
import { resultKey, writeExpectedBlocks } from './fixtures/freeze.ts';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const check = args.includes('--check');
const print = args.includes('--print');
const onlyIndex = args.indexOf('--only');
const only = onlyIndex >= 0 ? new Set(args[onlyIndex + 1]!.split(',')) : null;
const files = args.filter((a, i) => !a.startsWith('--') && i !== onlyIndex + 1);
const targets = files.length
  ? files
  : ['fixtures/corpora/execution_goldens.yaml', 'fixtures/corpora/refusal_battery.yaml'];

if (process.env.CI && !check) {
  console.error('Refusing to freeze expected results on CI: goldens change only by a reviewed commit. Use --check.');
  process.exit(2);
}

const manifest = parseFixtureManifest(await readFile(path.join(root, 'fixtures/fixtures.json'), 'utf8'));
if (!manifest.ok) throw new Error(manifest.problems.map(formatProblem).join('\n'));
const knownFixtures = manifest.entries.map((e) => e.name);

function show(table: ResultTable): string {
  const lines = [table.columns.map((c) => `${c.name}:${c.engineType}`).join(' | ')];
  for (const row of table.rows.slice(0, 30))
    lines.push(row.map((cell, i) => formatCell(table.columns[i]!, cell)).join(' | '));
  if (table.rows.length > 30) lines.push(`… ${table.rows.length} rows`);
  return lines.join('\n');
}

let changed = 0;
let failed = 0;
for (const target of targets) {
  const file = path.resolve(root, target);
  const bytes = new Uint8Array(await readFile(file).catch(() => Buffer.alloc(0)));
  if (bytes.length === 0) {
    console.log(`skip ${target} (missing)`);
    continue;
  }
  const loaded = await loadCorpus(bytes, { file: target, knownFixtures });
  for (const p of loaded.problems) console.error(formatProblem(p));
  if (!loaded.ok) process.exit(2);
  const { corpus } = loaded.loaded;
  const engine = openEngine(corpus.engine);
  const results = new Map<string, ResultTable>();
  try {
    const fixtures = [...new Set(corpus.cases.map((c) => c.fixture))];
    for (const fixture of fixtures) {
      const info = await engine.load(resolveFixture(fixture, root).source);
      if (!info.ok) throw new Error(`${fixture}: ${info.error.message}`);
      for (const c of corpus.cases) {
        if (c.fixture !== fixture || !c.referenceSql || (only && !only.has(c.id))) continue;
        const outcome = await engine.execute(c.referenceSql, { timeoutMs: 10_000 });
        if (!outcome.ok) {
          failed++;
          console.error(`✗ ${c.id}: ${outcome.error.message}${outcome.error.raw ? `\n  ${outcome.error.raw}` : ''}`);
          continue;
        }
        const table: ResultTable = { columns: outcome.value.columns, rows: outcome.value.rows };
        const isNew = !c.expected;
        const differs = isNew || resultKey(c.expected!) !== resultKey(table);
        if (differs) {
          changed++;
          console.log(
            `${isNew ? '+' : '~'} ${c.id} (${table.rows.length} row(s), ${outcome.value.elapsedMs.toFixed(0)} ms)`,
          );
        }
        if (print) console.log(`\n## ${c.id}\n${show(table)}\n`);
        results.set(c.id, table);
      }
    }
  } finally {
    await engine.close();
  }
  if (!check && failed === 0) {
    const text = new TextDecoder().decode(bytes);
    const next = writeExpectedBlocks(text, results);
    if (next !== text) {
      await writeFile(file, next);
      console.log(`wrote ${target}`);
    }
  }
}
if (failed > 0) {
  console.error(`${failed} reference(s) failed to run; nothing written.`);
  process.exit(1);
}
if (check && changed > 0) {
  console.error(`${changed} expected result(s) are stale or missing: run node --import tsx scripts/freeze-expected.ts`);
  process.exit(1);
}
console.log(check ? 'all frozen results match a fresh run' : `${changed} expected result(s) frozen`);
