/**
 * Neighbour databases on real predictions (docs/neighbours.md): every
 * (gold, predicted) pair of `../shared/data/spider-dev/pairs.jsonl` graded on
 * its Spider database with `neighbours: K`, then counted against the human
 * labels (Spider-Pair rows) and the official evaluator's verdicts.
 *
 *   node --import tsx scripts/spider-neighbours.ts [--labelled | --unlabelled] [--k 8] [--limit N] [--db NAME] [--ids ID,ID…] [--shard I/N] [--details FILE.jsonl]
 *   node --import tsx scripts/spider-neighbours.ts --from-details FILE.jsonl [--k 8]
 *
 * Prints the figures as Markdown; --details writes one JSON line per graded
 * pair as it goes (its counterexample, if any) for reading the flips, and
 * --from-details prints the figures of such a file (a run cut short included).
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { evaluationRequest } from '../src/core/evaluation/request.ts';
import { createNeighbourHost } from '../src/core/neighbours/host.ts';
import { evaluate } from '../src/core/pipeline.ts';
import { openEngine } from '../src/engines/node.ts';

interface Pair {
  id: string;
  db_id: string;
  gold_sql: string;
  pred_sql: string | null;
  verdict_exec: boolean;
  label_spider_pair: boolean | null;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const spider = process.env.SPIDER_DEV_DIR ?? path.resolve(here, '../../shared/data/spider-dev');
const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const k = Number(opt('--k') ?? 8);
const limit = Number(opt('--limit') ?? Infinity);
const onlyDb = opt('--db');
// --ids: only these pairs (ids as in pairs.jsonl, or their suffix after '#': row0277), to read a few cases again.
const onlyIds = opt('--ids')
  ?.split(',')
  .map((id) => id.trim());
const details = opt('--details');
const labelled = args.includes('--labelled');
const unlabelled = args.includes('--unlabelled');
const fromDetails = opt('--from-details');
// --shard I/N: only the databases at positions I, I+N, ... (sorted by name), to run N processes side by side.
const [shardI = 1, shardN = 1] = (opt('--shard') ?? '1/1').split('/').map(Number);

const pairs = readFileSync(path.join(spider, 'pairs.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as Pair)
  .filter(
    (p) =>
      (!labelled || p.label_spider_pair !== null) &&
      (!unlabelled || p.label_spider_pair === null) &&
      (!onlyDb || p.db_id === onlyDb) &&
      (!onlyIds || onlyIds.some((id) => p.id === id || p.id.endsWith(`#${id}`))),
  )
  .slice(0, fromDetails ? 0 : limit);

interface Row {
  id: string;
  db: string;
  label: boolean | null;
  official: boolean;
  fixture_pass: boolean;
  neighbour_fail: boolean;
  checked: number;
  discarded: number;
  skipped: string | null;
  counterexample: unknown;
  gold: string;
  pred: string | null;
  ms: number;
}

const rows: Row[] = fromDetails
  ? readFileSync(fromDetails, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Row)
  : [];
if (details) writeFileSync(details, '');
const byDb = new Map<string, Pair[]>();
for (const p of pairs) byDb.set(p.db_id, [...(byDb.get(p.db_id) ?? []), p]);
const engine = openEngine('sqlite');
if (fromDetails) byDb.clear();
const host = createNeighbourHost({ open: (name) => openEngine(name) });
const started = performance.now();
let done = 0;
for (const [db, list] of [...byDb].sort().filter((_, i) => i % shardN === shardI - 1)) {
  const bytes = new Uint8Array(readFileSync(path.join(spider, 'database', db, `${db}.sqlite`)));
  const loaded = await engine.load({ name: db, files: [{ fileName: `${db}.sqlite`, format: 'sqlite', bytes }] });
  if (!loaded.ok) throw new Error(loaded.error.message);
  for (const p of list) {
    const t = performance.now();
    const report = await evaluate(
      evaluationRequest({
        expected_sql: p.gold_sql,
        actual_sql: p.pred_sql,
        context: { order_matters: /\border\s+by\b/i.test(p.gold_sql), fixture: db },
        // The budget is large so that a loaded machine does not change the figures (every neighbour runs).
        config: {
          enable_counterfactuals: false,
          query_timeout_ms: 10_000,
          neighbours: k,
          neighbour_budget_ms: 600_000,
        },
      }),
      engine,
      { neighbourHost: host },
    );
    const n = report.evidence.neighbours;
    const neighbourFail = !!n?.counterexample;
    rows.push({
      id: p.id,
      db,
      label: p.label_spider_pair,
      official: p.verdict_exec,
      fixture_pass: report.deterministic_verdict === 'pass' || neighbourFail,
      neighbour_fail: neighbourFail,
      checked: n?.checked ?? 0,
      discarded: n?.discarded.length ?? 0,
      skipped: n?.skipped ?? null,
      counterexample: n?.counterexample ?? null,
      gold: p.gold_sql,
      pred: p.pred_sql,
      ms: performance.now() - t,
    });
    if (details) appendFileSync(details, JSON.stringify(rows[rows.length - 1]) + '\n');
    if (++done % 200 === 0)
      console.error(`${done}/${pairs.length} ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
}
await engine.close();
await host.close();
const seconds = (performance.now() - started) / 1000;

const count = (f: (r: Row) => boolean) => rows.filter(f).length;
const lines: string[] = [];
lines.push(
  `${rows.length.toLocaleString('en-US')} pairs${labelled ? ' (human-labelled)' : unlabelled ? ' (not labelled)' : ''} on ${new Set(rows.map((r) => r.db)).size} databases, K = ${k}${fromDetails ? '' : `, ${seconds.toFixed(0)} s`}.`,
  '',
);
const passes = rows.filter((r) => r.fixture_pass);
lines.push(
  `- pass on the fixture: ${passes.length}; of them failed on a neighbour (coincidental_match): ${count((r) => r.fixture_pass && r.neighbour_fail)}`,
);
lines.push(
  `- neighbours compared per fixture pass: ${(passes.reduce((s, r) => s + r.checked, 0) / Math.max(1, passes.length)).toFixed(2)} (discarded: ${passes.reduce((s, r) => s + r.discarded, 0)}; skipped cases: ${count((r) => r.fixture_pass && r.skipped !== null)})`,
);
if (rows.some((r) => r.label !== null)) {
  const falsePass = rows.filter((r) => r.label === false && r.fixture_pass);
  const truePass = rows.filter((r) => r.label === true && r.fixture_pass);
  lines.push(
    `- human-labelled: false passes (pass on the fixture, humans say wrong): ${falsePass.length}; caught by neighbours: **${falsePass.filter((r) => r.neighbour_fail).length}**`,
  );
  lines.push(
    `- human-labelled correct and passing on the fixture: ${truePass.length}; wrongly failed by neighbours: **${truePass.filter((r) => r.neighbour_fail).length}**`,
  );
}
const officialPass = rows.filter((r) => r.official && r.fixture_pass);
lines.push(
  `- official passes that also pass on the fixture here: ${officialPass.length}; flipped by neighbours: **${officialPass.filter((r) => r.neighbour_fail).length}**`,
);
lines.push(
  `- mean time per pair: ${((seconds * 1000) / rows.length).toFixed(1)} ms; per fixture pass with neighbours: ${(passes.reduce((s, r) => s + r.ms, 0) / Math.max(1, passes.length)).toFixed(1)} ms`,
);
console.log(lines.join('\n'));
process.exit(0);
