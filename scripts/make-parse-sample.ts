/**
 * Writes tests/structure/data/spider-parse-sample.json: 1,500 distinct SQL
 * texts (gold and predicted) drawn with a fixed seed from the full Spider dev
 * pairs, so the fast reader's differential test (tests/structure/reader-diff)
 * meets real model output on a fresh clone. Deterministic: the same input
 * gives the same file. Input: SPIDER_DEV_DIR, else ../shared/data/spider-dev.
 *
 *   node --import tsx scripts/make-parse-sample.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rngFrom } from '../src/core/neighbours/prng.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = process.env.SPIDER_DEV_DIR ?? path.resolve(root, '../shared/data/spider-dev');
const target = path.join(root, 'tests/structure/data/spider-parse-sample.json');
const SIZE = 1500;
const SEED = 20261203;

const texts = new Set<string>();
for (const line of readFileSync(path.join(source, 'pairs.jsonl'), 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const pair = JSON.parse(line) as { gold_sql?: unknown; pred_sql?: unknown };
  for (const sql of [pair.gold_sql, pair.pred_sql]) if (typeof sql === 'string') texts.add(sql);
}
const all = [...texts].sort();
const next = rngFrom(SEED).next;
for (let i = all.length - 1; i > 0; i--) {
  const j = Math.floor(next() * (i + 1));
  [all[i], all[j]] = [all[j]!, all[i]!];
}
const sample = all.slice(0, SIZE);
writeFileSync(target, `${JSON.stringify(sample, null, 0).replace(/","/g, '",\n"')}\n`);
console.log(`wrote ${sample.length} of ${all.length} distinct texts to ${path.relative(root, target)}`);
