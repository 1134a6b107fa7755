/**
 * `npm run bench`: prints figures and their ratio to the baseline in
 * bench/baseline.json (recorded on this project's `node` machine: 2 cores).
 * `npm run bench -- --record` rewrites the baseline — only on purpose.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchNodeEngines } from './engines-node.ts';
import { loadBaseline, printFigures, recordBaseline, type Figure } from './harness.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const baselineFile = path.join(here, 'baseline.json');
const spider = process.env.SPIDER_DEV_DIR ?? path.resolve(here, '../../shared/data/spider-dev');
const baseline = loadBaseline(baselineFile);

console.log(`SQL Verdict benchmarks — baseline: ${baseline ? `${path.relative(process.cwd(), baselineFile)} (recorded ${baseline.recorded}, ${baseline.machine})` : 'none recorded'}`);
const all: Figure[] = [];

const nodeEngines = await benchNodeEngines(spider);
printFigures('Engines in Node (worker thread, sandboxed) vs the raw engine call', nodeEngines, baseline);
all.push(...nodeEngines);

if (process.argv.includes('--record')) {
  recordBaseline(baselineFile, all, 'node kind, 2 cores, Node 20');
  console.log(`\nBaseline written to ${baselineFile}`);
}
process.exit(0);
