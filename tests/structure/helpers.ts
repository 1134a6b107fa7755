import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { Dialect } from '../../src/core/structure/index.ts';
import { FULL_SPIDER_SKIP, fullSpiderDir, spiderSubsetDir } from '../helpers/paths.ts';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface SpiderPair {
  id: string;
  db_id: string;
  gold_sql: string;
  pred_sql: string | null;
  hardness: 'easy' | 'medium' | 'hard' | 'extra' | null;
  source: string;
}

/** Spider pairs of a data folder (the shipped subset, spiderSubsetDir, or the full data, fullSpiderDir). */
export function spiderPairs(dir: string): SpiderPair[] {
  return readFileSync(path.join(dir, 'pairs.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as SpiderPair);
}

/** The Spider data sets a test runs on: the shipped subset always, the full data when present. */
export function spiderDataSets(): { name: string; dir: string | null }[] {
  return [
    { name: 'Spider dev subset (tests/fixtures/spider)', dir: spiderSubsetDir },
    { name: 'full Spider dev data', dir: fullSpiderDir },
  ];
}

/** describe() for a Spider data set; an absent one shows as a single skipped test whose name is the reason. */
export function describeSpider(name: string, dir: string | null, body: (dir: string) => void): void {
  if (dir) describe(name, () => body(dir));
  else describe(name, () => it.skip(`skipped: ${FULL_SPIDER_SKIP}`, () => {}));
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
  if (existsSync(dir))
    for (const f of readdirSync(dir)) if (f.endsWith('.yaml') || f.endsWith('.yml')) files.push(path.join(dir, f));
  const out: { id: string; sql: string; dialect: Dialect; difficulty?: string }[] = [];
  for (const file of files) {
    const doc = parseYaml(readFileSync(file, 'utf8')) as {
      engine?: Dialect;
      cases?: { id: string; reference_sql?: string; difficulty?: string }[];
    };
    for (const c of doc?.cases ?? []) {
      if (c.reference_sql)
        out.push({
          id: `${path.basename(file)}#${c.id}`,
          sql: c.reference_sql,
          dialect: doc.engine ?? 'duckdb',
          difficulty: c.difficulty,
        });
    }
  }
  return out;
}
