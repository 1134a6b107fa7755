/**
 * `npm run bench`: prints figures and their ratio to the baseline in
 * bench/baseline.json (recorded on this project's `node` machine: 2 cores).
 * `npm run bench -- --record` rewrites the baseline — only on purpose.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { appFigures, benchApp, formatAppBench } from './app.ts';
import { benchBrowserEngines } from './browser-engines.ts';
import { benchNodeEngines } from './engines-node.ts';
import { benchPipeline } from './pipeline.ts';
import { resultCompareFigures, runResultCompareBench } from './result-compare.ts';
import { oracleFigures, runOracleBench } from './result-oracle.ts';
import { loadBaseline, printFigures, recordBaseline, type Figure } from './harness.ts';
import { benchSpiderRun, benchStartup } from './spider-run.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const baselineFile = path.join(here, 'baseline.json');
const spider = process.env.SPIDER_DEV_DIR ?? path.resolve(here, '../../shared/data/spider-dev');
const baseline = loadBaseline(baselineFile);

console.log(
  `SQL Verdict benchmarks — baseline: ${baseline ? `${path.relative(process.cwd(), baselineFile)} (recorded ${baseline.recorded}, ${baseline.machine})` : 'none recorded'}`,
);
const all: Figure[] = [];
// `--only spider` (or BENCH_ONLY=spider): just the whole-run Spider bench against the official evaluator.
const onlyArg = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const only = onlyArg ?? process.env.BENCH_ONLY;
const limitArg = process.argv.includes('--limit')
  ? Number(process.argv[process.argv.indexOf('--limit') + 1])
  : undefined;

// `--only large-fixture [--lines N]`: the retail schema at N order lines (default 10^6) on DuckDB-WASM and native DuckDB.
if (only === 'large-fixture') {
  const { benchLargeFixture } = await import('./large-fixture.ts');
  const linesArg = process.argv.includes('--lines')
    ? Number(process.argv[process.argv.indexOf('--lines') + 1])
    : undefined;
  const report = await benchLargeFixture(linesArg ? { lines: linesArg } : {});
  console.log(`\n## A larger fixture: load and the 64 goldens' reference SQL\n${report.join('\n')}`);
  process.exit(0);
}

// `--only structure [--lib] [--warm]`: the structural layer without parsing on the Spider dev pairs (CPU per function, digests).
if (only === 'structure') {
  const { formatStructureBench, readSpiderPairs, runStructureBench, structureFigures } =
    await import('./structure-speed.ts');
  const pairs = readSpiderPairs(spider, limitArg ?? Infinity);
  if (!pairs) console.log(`\n(structure bench skipped: ${spider}/pairs.jsonl is absent)`);
  else {
    const b = await runStructureBench(pairs, process.argv.includes('--lib') ? 'lib' : 'src', {
      warm: process.argv.includes('--warm'),
    });
    console.log(`\n## The structural layer, parsing excluded\n${formatStructureBench(b).join('\n')}`);
    printFigures('Structure figures', structureFigures(b), baseline);
  }
  process.exit(0);
}

if (only === 'faults') {
  const { benchFaults } = await import('./faults.ts');
  const faults = await benchFaults();
  console.log(
    `\n## Faults: a 1M x 8 KB candidate at the default byte budget, and recovery after a timeout kill\n${faults.lines.join('\n')}`,
  );
  printFigures('Fault figures', faults.figures, baseline);
  process.exit(0);
}

const startup = await benchStartup(path.resolve(here, '..'));
console.log(`\n## Start-up\n${startup.lines.join('\n')}`);
printFigures('Start-up figures', startup.figures, baseline);
all.push(...startup.figures);

const spiderRun = await benchSpiderRun(spider, path.resolve(here, '..'), limitArg ? { limit: limitArg } : {});
if (spiderRun) {
  console.log(
    `\n## sql-verdict run on ${spiderRun.pairs} Spider pairs vs the official evaluator (back to back, whole processes)`,
  );
  console.log(spiderRun.lines.join('\n'));
  printFigures('Spider run figures', spiderRun.figures, baseline);
  all.push(...spiderRun.figures);
}
if (only === 'spider') {
  if (process.argv.includes('--record')) {
    recordBaseline(baselineFile, all, 'node kind, 2 cores, Node 20');
    console.log(`\nBaseline written to ${baselineFile}`);
  }
  process.exit(0);
}

const nodeEngines = await benchNodeEngines(spider);
printFigures('Engines in Node (worker thread, sandboxed) vs the raw engine call', nodeEngines, baseline);
all.push(...nodeEngines);

const compare = resultCompareFigures(await runResultCompareBench());
printFigures(
  'Result comparison in Node (bag mode, 5 columns): time, peak memory, ratio to producing both results in DuckDB',
  compare,
  baseline,
);
all.push(...compare);

console.log('\n## Result matching against the brute-force oracle (generated pairs), and large adversarial shapes');
const oracle = oracleFigures(runOracleBench({ pairs: 20_000 }));
printFigures(
  'Result matching vs the oracle: disagreements must be 0; adversarial verdicts wrong_verdict 0',
  oracle,
  baseline,
);
all.push(...oracle);

const pipeline = await benchPipeline(path.resolve(here, '..'));
printFigures(
  'The deterministic pipeline in Node (64 goldens, flawed sample run, self-check excluded)',
  pipeline,
  baseline,
);
all.push(...pipeline);

const browser = await benchBrowserEngines({ runs: 30 });
const browserFigures: Figure[] = browser.engines.flatMap((e) => [
  { name: `chromium.${e.engine}.startup_cold_ms`, value: e.coldStartMs, unit: 'ms' },
  { name: `chromium.${e.engine}.startup_warm_ms`, value: e.warmStartMs, unit: 'ms' },
  ...e.fixtures.map((f) => ({
    name: `chromium.${e.engine}.fixture_load_ms.${f.fixture}`,
    value: f.loadWallMs,
    unit: 'ms',
  })),
  { name: `chromium.${e.engine}.query_engine_ms_median`, value: e.query.engineMs.median, unit: 'ms' },
  { name: `chromium.${e.engine}.overhead_ms_median`, value: e.query.overheadMs.median, unit: 'ms' },
  { name: `chromium.${e.engine}.page_ready_ms`, value: e.ui.pageReadyMs, unit: 'ms' },
]);
printFigures(
  `Engines in Chromium (${browser.chromium}; page → app worker → engine host → engine)`,
  browserFigures,
  baseline,
);
all.push(...browserFigures);

const app = await benchApp({ runs: 3, warm: true });
console.log(`\n${formatAppBench(app)}`);
const appFigs = appFigures(app);
printFigures('The app in Chromium (demo corpus, cold first visit; JS gzip -9, wasm excluded)', appFigs, baseline);
all.push(...appFigs);

if (process.argv.includes('--record')) {
  recordBaseline(baselineFile, all, 'node kind, 2 cores, Node 20');
  console.log(`\nBaseline written to ${baselineFile}`);
}
process.exit(0);
