/**
 * CPU time of the structural layer without parsing, on the 8,003 Spider dev
 * (gold, predicted) pairs in corpus order, dialect sqlite: compareStructure
 * and its parts (canonicalizeQuery, compareClauses, hardness level), clause
 * features, Spider hardness of the reference, planTransplants and the LIMIT-tie
 * probes, called as the grading worker calls them.
 *
 * Pairs go in chunks of 500: each chunk's texts are parsed first (untimed,
 * and they fit the parse cache), then each function runs over the chunk in a
 * loop timed with process.cpuUsage (one reading per loop: a reading costs
 * tens of microseconds, too much per call). Each function's outputs are
 * hashed (sha-256 of their JSON, in order): equal digests, identical outputs.
 *
 * Every text is parsed once before any timing, so that the parser's JIT
 * compilation (on background threads, which process.cpuUsage counts) is done:
 * the structure code itself starts cold, as in a grading worker.
 *
 * `--lib` times the compiled library (lib/, `npx tsc -p tsconfig.build.json`)
 * as the CLI runs it: tsx wraps every closure it creates in a naming call,
 * which inflates closure-heavy code.
 *
 *   node --import tsx bench/structure-speed.ts [--lib] [--warm] [--limit N] [--json]
 *   npm run bench -- --only structure
 */
import { createHash, type Hash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Lint from '../src/core/corpus/lint.ts';
import type * as Transplant from '../src/core/diagnose/transplant.ts';
import type * as Canonicalize from '../src/core/structure/canonicalize.ts';
import type * as Compare from '../src/core/structure/compare.ts';
import type * as Features from '../src/core/structure/features.ts';
import type * as Hardness from '../src/core/structure/hardness.ts';
import type * as Memo from '../src/core/structure/memo.ts';
import type * as Parse from '../src/core/structure/parse.ts';
import type * as Structure from '../src/core/structure/structure.ts';
import type { Query } from '../src/core/structure/ir.ts';
import type { Figure } from './harness.ts';

interface Pair {
  gold: string;
  pred: string;
}

export interface StructureBench {
  pairs: number;
  source: 'src' | 'lib';
  /** CPU milliseconds (user + system) per function, over all pairs. */
  cpuMs: Record<string, number>;
  /** sha-256 of every output of each function, in corpus order. */
  digests: Record<string, string>;
}

const DIALECT = 'sqlite';
/** config.max_counterfactuals' default. */
const MAX_COUNTERFACTUALS = 8;
const CHUNK = 500;
const here = path.dirname(fileURLToPath(import.meta.url));

async function load(source: 'src' | 'lib') {
  const ext = source === 'src' ? 'ts' : 'js';
  const mod = (p: string) => import(pathToFileURL(path.resolve(here, '..', source, `${p}.${ext}`)).href);
  return {
    ...((await mod('core/corpus/lint')) as typeof Lint),
    ...((await mod('core/diagnose/transplant')) as typeof Transplant),
    ...((await mod('core/structure/canonicalize')) as typeof Canonicalize),
    ...((await mod('core/structure/compare')) as typeof Compare),
    ...((await mod('core/structure/features')) as typeof Features),
    ...((await mod('core/structure/hardness')) as typeof Hardness),
    ...((await mod('core/structure/memo')) as typeof Memo),
    ...((await mod('core/structure/parse')) as typeof Parse),
    ...((await mod('core/structure/structure')) as typeof Structure),
  };
}
type Lib = Awaited<ReturnType<typeof load>>;

class Meter {
  readonly cpuMs: Record<string, number> = {};
  private readonly hashes = new Map<string, Hash>();

  /** `fn` over every item, timed in CPU under `name`; the outputs go into that name's digest afterwards. */
  each<T, R>(name: string, items: readonly T[], fn: (x: T) => R): R[] {
    const out = new Array<R>(items.length);
    const start = process.cpuUsage();
    for (let i = 0; i < items.length; i++) out[i] = fn(items[i]!);
    const used = process.cpuUsage(start);
    this.cpuMs[name] = (this.cpuMs[name] ?? 0) + (used.user + used.system) / 1000;
    let hash = this.hashes.get(name);
    if (!hash) this.hashes.set(name, (hash = createHash('sha256')));
    for (const v of out) if (v !== undefined) hash.update(`${JSON.stringify(v)}\n`);
    return out;
  }

  digests(): Record<string, string> {
    return Object.fromEntries([...this.hashes].map(([name, h]) => [name, h.digest('hex')]));
  }
}

export function readSpiderPairs(spider: string, limit = Infinity): Pair[] | null {
  const file = path.join(spider, 'pairs.jsonl');
  if (!existsSync(file)) return null;
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .slice(0, limit)
    .map((line) => {
      const p = JSON.parse(line) as { gold_sql: string; pred_sql: string };
      return { gold: p.gold_sql, pred: p.pred_sql };
    });
}

const query = (p: Parse.ParseOutcome) => (p.ok ? p.value.query : null);

interface Parsed extends Pair {
  qe: Query | null;
  qa: Query | null;
}

function parseChunk(lib: Lib, pairs: Pair[]): Parsed[] {
  return pairs.map((p) => ({
    ...p,
    qe: query(lib.parseSql(p.gold, DIALECT)),
    qa: query(lib.parseSql(p.pred, DIALECT)),
  }));
}

/** As the grading worker calls them: validate (structure, then features), the difficulty, diagnose, the oracle stage. */
function pipelinePass(lib: Lib, pairs: Pair[], m: Meter): void {
  for (let at = 0; at < pairs.length; at += CHUNK) {
    const chunk = parseChunk(lib, pairs.slice(at, at + CHUNK));
    m.each('compareStructure', chunk, (p) => lib.compareStructure(p.gold, p.pred, DIALECT));
    const features = m.each('clauseFeatures', chunk, (p) => [
      p.qe && lib.clauseFeatures(p.qe, DIALECT),
      p.qa && lib.clauseFeatures(p.qa, DIALECT),
    ]);
    m.each('hardness', chunk, (p) => lib.hardness(p.gold, DIALECT));
    m.each('planTransplants', chunk, (p) =>
      p.qe && p.qa ? lib.planTransplants(p.qe, p.qa, DIALECT, MAX_COUNTERFACTUALS) : undefined,
    );
    // The engine's output column names are not known here: the projections' texts stand in for them.
    const columns = features.map(([fe]) => (fe ? fe.projections.map((p) => p.alias ?? p.expr) : []));
    m.each(
      'limitTieProbes',
      chunk.map((p, i) => ({ sql: p.gold, columns: columns[i]! })),
      (x) => lib.limitTieProbes(x.sql, x.columns),
    );
  }
}

/** compareStructure's parts on their own (fresh caches): canonicalization, hardness levels, the clause diff. */
function partsPass(lib: Lib, pairs: Pair[], m: Meter): void {
  for (let at = 0; at < pairs.length; at += CHUNK) {
    const chunk = parseChunk(lib, pairs.slice(at, at + CHUNK));
    const canonical = m.each('canonicalizeQuery', chunk, (p) => [
      p.qe && lib.canonicalizeQuery(p.qe, DIALECT),
      p.qa && lib.canonicalizeQuery(p.qa, DIALECT),
    ]);
    m.each('level', chunk, (p) =>
      [p.qe, p.qa].map((q) => {
        if (!q) return null;
        const c = lib.hardnessCounts(q);
        return lib.hardnessLevel(c.component1, c.component2, c.others);
      }),
    );
    m.each('compareClauses', canonical, ([ce, ca]) =>
      ce && ca ? lib.compareClauses(ce.query, ca.query, DIALECT, { canonical: true }) : undefined,
    );
  }
}

/** `warm`: one untimed round first, so the figures leave out the JIT's warm-up (a worker grading 4,000 pairs pays it once). */
export async function runStructureBench(
  pairs: Pair[],
  source: 'src' | 'lib' = 'src',
  opts: { warm?: boolean } = {},
): Promise<StructureBench> {
  const lib = await load(source);
  // The parser first, untimed: its JIT compiles run on background threads, whose CPU process.cpuUsage counts too.
  for (const p of pairs) parseChunk(lib, [p]);
  await new Promise((resolve) => setTimeout(resolve, 500));
  if (opts.warm) {
    lib.clearParseCache();
    pipelinePass(lib, pairs, new Meter());
    lib.clearParseCache();
    partsPass(lib, pairs, new Meter());
  }
  const m = new Meter();
  lib.clearParseCache();
  pipelinePass(lib, pairs, m);
  lib.clearParseCache();
  partsPass(lib, pairs, m);
  return { pairs: pairs.length, source, cpuMs: m.cpuMs, digests: m.digests() };
}

export function structureFigures(b: StructureBench): Figure[] {
  return Object.entries(b.cpuMs).map(([name, ms]) => ({ name: `structure.${name}_cpu_ms`, value: ms, unit: 'ms' }));
}

export function formatStructureBench(b: StructureBench): string[] {
  const width = Math.max(...Object.keys(b.cpuMs).map((n) => n.length));
  return [
    `${b.pairs} pairs from ${b.source}/, dialect ${DIALECT}, parsing excluded: CPU ms (user + system) and output digest`,
    ...Object.entries(b.cpuMs).map(
      ([name, ms]) => `${name.padEnd(width)}  ${ms.toFixed(0).padStart(7)} ms  ${b.digests[name]!.slice(0, 16)}`,
    ),
  ];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const spider = process.env.SPIDER_DEV_DIR ?? path.resolve(here, '../../shared/data/spider-dev');
  const limitArg = process.argv.indexOf('--limit');
  const pairs = readSpiderPairs(spider, limitArg > 0 ? Number(process.argv[limitArg + 1]) : Infinity);
  if (!pairs) console.log(`(structure bench skipped: ${spider}/pairs.jsonl is absent)`);
  else {
    const b = await runStructureBench(pairs, process.argv.includes('--lib') ? 'lib' : 'src', {
      warm: process.argv.includes('--warm'),
    });
    console.log(process.argv.includes('--json') ? JSON.stringify(b, null, 2) : formatStructureBench(b).join('\n'));
  }
}
