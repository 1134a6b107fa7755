/**
 * The official Spider dev layout, built in a temp folder from
 * ../shared/data/spider-dev/official (see its README): dev.json, dev_gold.sql,
 * the nine systems' prediction files and database/ — restricted to the
 * questions whose database is present (wta_1 is not), optionally to a
 * sample of them. The official evaluator's verdict of every line comes from
 * pairs.jsonl (distinct (gold, prediction) pairs, so looked up by that pair).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Engine } from '../../src/core/engine.ts';
import type { Outcome } from '../../src/core/errors.ts';
import { importSpider } from '../../src/core/import/spider.ts';
import { presetJudge } from '../../src/core/run/preset-grade.ts';
import { fullSpiderDir } from './paths.ts';

/** The full Spider dev data (null when absent: the callers skip). */
const spiderDir = fullSpiderDir ?? '';

export const SPIDER_SYSTEMS = [
  'c3sql_gpt35',
  'dailsql_gpt4',
  'dailsql_gpt4_sc',
  'graphix_t5',
  'dinsql_gpt4',
  'gpt4_fewshot',
  'gpt4_zeroshot',
  'dinsql_codex',
  'codex_fewshot',
];

export interface SpiderLayout {
  dir: string;
  gold: string;
  questions: string;
  dbDir: string;
  pred(system: string): string;
  /** Original dev index of each line kept. */
  kept: number[];
  /** The official verdicts of each system's kept lines (default flags, and --keep_distinct). */
  official(system: string): { exec: boolean[]; keepDistinct: boolean[] };
}

export function spiderAvailable(): boolean {
  return fullSpiderDir !== null && existsSync(path.join(spiderDir, 'official', 'dev_gold.sql'));
}

interface Pair {
  gold_sql: string;
  pred_sql: string;
  verdict_exec: boolean;
  verdict_exec_keep_distinct: boolean;
}

/** `keep(index)` picks dev lines (among those with a database); all of them by default. */
export function buildSpiderLayout(
  keep: (index: number, kept: number) => boolean = () => true,
  systems = SPIDER_SYSTEMS,
): SpiderLayout {
  const official = path.join(spiderDir, 'official');
  const dir = mkdtempSync(path.join(tmpdir(), 'spider-layout-'));
  const goldLines = readFileSync(path.join(official, 'dev_gold.sql'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  const dev = JSON.parse(readFileSync(path.join(official, 'dev.json'), 'utf8')) as { db_id: string }[];
  const present = new Set(
    readdirSync(path.join(spiderDir, 'database')).filter((db) =>
      existsSync(path.join(spiderDir, 'database', db, `${db}.sqlite`)),
    ),
  );
  const kept: number[] = [];
  let withDb = 0;
  goldLines.forEach((line, i) => {
    const db = line.split('\t')[1]!.trim();
    if (!present.has(db)) return;
    if (keep(i, withDb++)) kept.push(i);
  });
  writeFileSync(path.join(dir, 'dev_gold.sql'), `${kept.map((i) => goldLines[i]).join('\n')}\n`);
  writeFileSync(
    path.join(dir, 'dev.json'),
    JSON.stringify(
      kept.map((i) => dev[i]),
      null,
      2,
    ),
  );
  mkdirSync(path.join(dir, 'predictions'));
  const predLines = new Map<string, string[]>();
  for (const system of systems) {
    const lines = readFileSync(path.join(official, 'predictions', `${system}.txt`), 'utf8').split('\n');
    predLines.set(system, lines);
    writeFileSync(path.join(dir, 'predictions', `${system}.txt`), `${kept.map((i) => lines[i]).join('\n')}\n`);
  }
  symlinkSync(path.join(spiderDir, 'database'), path.join(dir, 'database'));

  const pairs = new Map<string, Pair>();
  for (const line of readFileSync(path.join(spiderDir, 'pairs.jsonl'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const p = JSON.parse(line) as Pair;
    const key = `${p.gold_sql}\u0000${p.pred_sql}`;
    if (!pairs.has(key)) pairs.set(key, p);
  }
  return {
    dir,
    gold: path.join(dir, 'dev_gold.sql'),
    questions: path.join(dir, 'dev.json'),
    dbDir: path.join(dir, 'database'),
    pred: (system) => path.join(dir, 'predictions', `${system}.txt`),
    kept,
    official: (system) => {
      const lines = predLines.get(system)!;
      const exec: boolean[] = [];
      const keepDistinct: boolean[] = [];
      for (const i of kept) {
        const key = `${goldLines[i]!.split('\t')[0]}\u0000${lines[i]!.trim().split('\t')[0]}`;
        const p = pairs.get(key);
        if (!p) throw new Error(`No official verdict for ${system} line ${i + 1}.`);
        exec.push(p.verdict_exec);
        keepDistinct.push(p.verdict_exec_keep_distinct);
      }
      return { exec, keepDistinct };
    },
  };
}

/**
 * The spider preset's verdict on every line of a system, through the
 * importer and the preset alone (no SQL Verdict pipeline): quick enough for
 * all 972 lines of nine systems.
 */
export async function presetVerdicts(
  layout: SpiderLayout,
  system: string,
  keepDistinct: boolean,
  pool: { engineFor(db: string): Promise<Outcome<Engine>> },
): Promise<boolean[]> {
  const bytes = (f: string) => ({ file: path.basename(f), bytes: new Uint8Array(readFileSync(f)) });
  const imported = importSpider({ gold: bytes(layout.gold), pred: bytes(layout.pred(system)) });
  if (!imported.ok) throw new Error(imported.problems.map((p) => p.message).join('; '));
  const out: boolean[] = [];
  for (const [i, c] of imported.imported.corpus.cases.entries()) {
    const engine = await pool.engineFor(c.fixture);
    if (!engine.ok) throw new Error(engine.error.message);
    const v = await presetJudge(
      { name: 'spider', keepDistinct },
      {
        gold: c.reference_sql as string,
        pred: imported.imported.records[i]!.sql!,
        engine: engine.value,
        timeoutMs: 30_000,
        maxRows: 1_000_000,
      },
    );
    out.push(v.verdict === 'pass');
  }
  return out;
}
