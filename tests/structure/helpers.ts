import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import type { Dialect } from '../../src/core/structure/index.ts';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Spider dev data (never copied into the repo): SPIDER_DEV_DIR, else ../shared/data/spider-dev beside the repo. */
export function spiderDir(): string {
  const dir = process.env.SPIDER_DEV_DIR ?? path.resolve(repoRoot, '../shared/data/spider-dev');
  if (!existsSync(path.join(dir, 'pairs.jsonl'))) throw new Error(`Spider dev data not found at ${dir}: set SPIDER_DEV_DIR to its folder.`);
  return dir;
}

export interface SpiderPair {
  id: string;
  db_id: string;
  gold_sql: string;
  pred_sql: string | null;
  hardness: 'easy' | 'medium' | 'hard' | 'extra' | null;
  source: string;
}

export function spiderPairs(): SpiderPair[] {
  const dir = spiderDir();
  return readFileSync(path.join(dir, 'pairs.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as SpiderPair);
}

export interface RulePair {
  in: string;
  out: string;
  dialects?: Dialect[];
}

export interface RuleFixture {
  rule: string;
  pairs: RulePair[];
}

export const rulesFixtureDir = path.join(repoRoot, 'tests/structure/rules');

export function ruleFixtures(): RuleFixture[] {
  return readdirSync(rulesFixtureDir)
    .filter((f) => f.endsWith('.pairs.yaml'))
    .sort()
    .map((f) => parseYaml(readFileSync(path.join(rulesFixtureDir, f), 'utf8')) as RuleFixture);
}

export function readYaml<T>(rel: string): T {
  return parseYaml(readFileSync(path.join(repoRoot, rel), 'utf8')) as T;
}

/**
 * Reference SQL of a corpus for the corpus-wide invariants. Built-in goldens
 * (fixtures/corpora/*.yaml, `reference_sql` of each case) when present, else
 * nothing; STRUCTURE_CORPUS=path.yaml points at any corpus file.
 */
export function corpusReferenceSql(): { id: string; sql: string; dialect: Dialect; difficulty?: string }[] {
  const files: string[] = [];
  if (process.env.STRUCTURE_CORPUS) files.push(path.resolve(process.env.STRUCTURE_CORPUS));
  const dir = path.join(repoRoot, 'fixtures/corpora');
  if (existsSync(dir)) for (const f of readdirSync(dir)) if (f.endsWith('.yaml') || f.endsWith('.yml')) files.push(path.join(dir, f));
  const out: { id: string; sql: string; dialect: Dialect; difficulty?: string }[] = [];
  for (const file of files) {
    const doc = parseYaml(readFileSync(file, 'utf8')) as { engine?: Dialect; cases?: { id: string; reference_sql?: string; difficulty?: string }[] };
    for (const c of doc?.cases ?? []) {
      if (c.reference_sql) out.push({ id: `${path.basename(file)}#${c.id}`, sql: c.reference_sql, dialect: doc.engine ?? 'duckdb', difficulty: c.difficulty });
    }
  }
  return out;
}
