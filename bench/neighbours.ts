/**
 * Neighbour databases for a Spider database in Node: per neighbour, the time
 * to generate its data (pure core), write the SQL dump, load it into the
 * scratch engine (sql.js in a worker thread) and run one query, and the
 * memory it takes (dump size; process RSS after the load, workers included).
 *
 * Then the same in headless Chromium (skip with --node-only): a production build of the
 * bench page (bench/browser/) generates each neighbour in the page's main thread and
 * the app worker runs `compare` with neighbours K, its scratch sql.js engine in an
 * engine host Web Worker, as the app does; memory is the resident size of Chromium's
 * renderer processes (page, app worker, engine workers and their wasm heaps), sampled
 * every 50 ms from /proc.
 *
 *   node --import tsx bench/neighbours.ts [--db world_1] [--k 8] [--node-only]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateNeighbour, neighbourDump, neighbourSeed } from '../src/core/neighbours/generate.ts';
import { createNeighbourHost } from '../src/core/neighbours/host.ts';
import { planNeighbours } from '../src/core/neighbours/plan.ts';
import { readSnapshot } from '../src/core/neighbours/snapshot.ts';
import { openEngine } from '../src/engines/node.ts';
import { benchBrowserNeighbours } from './browser-neighbours.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const spider = process.env.SPIDER_DEV_DIR ?? path.resolve(here, '../../shared/data/spider-dev');
const args = process.argv.slice(2);
const opt = (name: string, fallback: string) => (args.includes(name) ? args[args.indexOf(name) + 1]! : fallback);
const k = Number(opt('--k', '8'));
const dbs = args.includes('--db') ? [opt('--db', 'world_1')] : ['concert_singer', 'car_1', 'world_1'];
const mb = (n: number) => (n / 1024 / 1024).toFixed(1);

const engine = openEngine('sqlite');
const host = createNeighbourHost({ open: (name) => openEngine(name) });
console.log('| database | rows | neighbour rows | generate ms | dump KB | load + query ms | RSS after (MB) |');
console.log('|---|--:|--:|--:|--:|--:|--:|');
for (const db of dbs) {
  const file = path.join(spider, 'database', db, `${db}.sqlite`);
  const loaded = await engine.load({
    name: db,
    files: [{ fileName: `${db}.sqlite`, format: 'sqlite', bytes: new Uint8Array(readFileSync(file)) }],
  });
  if (!loaded.ok) throw new Error(loaded.error.message);
  const t0 = performance.now();
  const snap = await readSnapshot(engine);
  if (!snap.ok) throw new Error(snap.error.message);
  const snapMs = performance.now() - t0;
  const plan = planNeighbours(
    [`SELECT count(*) FROM ${snap.value.tables[0]!.name}`],
    snap.value.tables.flatMap((t) => t.columns.map((c) => c.name)),
  );
  let gen = 0;
  let dumpBytes = 0;
  let loadQuery = 0;
  let rows = 0;
  let rss = 0;
  for (let i = 0; i < k; i++) {
    let t = performance.now();
    const data = generateNeighbour(snap.value, plan, neighbourSeed(1, i));
    const dump = neighbourDump(snap.value, data);
    gen += performance.now() - t;
    if ('unsupported' in dump) throw new Error(dump.unsupported);
    dumpBytes += dump.sql.length;
    rows += data.tables.reduce((s, x) => s + x.rows.length, 0);
    t = performance.now();
    const ran = await host.withNeighbour('sqlite', db, dump.sql, (scratch) =>
      scratch.execute(`SELECT count(*) FROM "${snap.value.tables[0]!.name}"`),
    );
    loadQuery += performance.now() - t;
    if (!ran.ok) throw new Error(ran.error.message);
    rss = Math.max(rss, process.memoryUsage().rss);
  }
  console.log(
    `| ${db} | ${snap.value.totalRows} (snapshot ${snapMs.toFixed(0)} ms) | ${(rows / k).toFixed(0)} | ${(gen / k).toFixed(1)} | ${(dumpBytes / k / 1024).toFixed(0)} | ${(loadQuery / k).toFixed(1)} | ${mb(rss)} |`,
  );
}
await engine.close();
await host.close();
if (!args.includes('--node-only')) {
  const tables = new Map<string, string>();
  for (const db of dbs) {
    const snapEngine = openEngine('sqlite');
    const file = path.join(spider, 'database', db, `${db}.sqlite`);
    await snapEngine.load({
      name: db,
      files: [{ fileName: `${db}.sqlite`, format: 'sqlite', bytes: new Uint8Array(readFileSync(file)) }],
    });
    const snap = await readSnapshot(snapEngine);
    await snapEngine.close();
    if (snap.ok) tables.set(db, snap.value.tables[0]!.name);
  }
  console.log(`\nChromium (K = ${k}):\n`);
  console.log((await benchBrowserNeighbours(spider, [...tables], k)).join('\n'));
}
process.exit(0);
