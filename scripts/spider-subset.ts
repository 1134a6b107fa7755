/**
 * Writes tests/fixtures/spider: the small Spider dev subset that ships with the
 * repository, so the tests that need real Spider databases and real model
 * predictions pass on a fresh clone. Deterministic: the same input gives the
 * same files. Input: SPIDER_DEV_DIR, else ../shared/data/spider-dev.
 *
 *   node --import tsx scripts/spider-subset.ts
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = process.env.SPIDER_DEV_DIR ?? path.resolve(root, '../shared/data/spider-dev');
const target = path.join(root, 'tests/fixtures/spider');

/** Six of the smaller Spider dev databases (20–40 KB each). */
export const SUBSET_DATABASES = ['battle_death', 'concert_singer', 'course_teach', 'pets_1', 'poker_player', 'singer'];
const PAIRS = 400;

interface Pair {
  id: string;
  db_id: string;
  gold_sql: string;
  verdict_exec: boolean | null;
}

const hash = (s: string) => createHash('sha256').update(s).digest('hex');
const lines = readFileSync(path.join(source, 'pairs.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim());
const pairs = lines
  .map((line) => ({ line, pair: JSON.parse(line) as Pair }))
  .filter((p) => SUBSET_DATABASES.includes(p.pair.db_id));
pairs.sort((a, b) => (hash(a.pair.id) < hash(b.pair.id) ? -1 : 1));

// Every distinct gold query once (the hardness and canonicalization tests cover them all), then a hash-ordered fill.
const chosen = new Set<string>();
const seenGold = new Set<string>();
for (const p of pairs) {
  if (seenGold.has(p.pair.gold_sql)) continue;
  seenGold.add(p.pair.gold_sql);
  chosen.add(p.pair.id);
}
for (const p of pairs) if (chosen.size < PAIRS) chosen.add(p.pair.id);
// Original file order, so the subset reads like the source.
const kept = lines.filter((l) => chosen.has((JSON.parse(l) as Pair).id));

rmSync(target, { recursive: true, force: true });
for (const db of SUBSET_DATABASES) {
  mkdirSync(path.join(target, 'database', db), { recursive: true });
  copyFileSync(path.join(source, 'database', db, `${db}.sqlite`), path.join(target, 'database', db, `${db}.sqlite`));
}
writeFileSync(path.join(target, 'pairs.jsonl'), kept.join('\n') + '\n');
const falseCount = kept.filter((l) => (JSON.parse(l) as Pair).verdict_exec === false).length;
writeFileSync(
  path.join(target, 'README.md'),
  `# A small Spider dev subset (shipped for the tests)

Made by \`node --import tsx scripts/spider-subset.ts\` from the full Spider dev data
(\`../shared/data/spider-dev\`, or \`SPIDER_DEV_DIR\`); do not edit by hand.

- \`database/<db_id>/<db_id>.sqlite\`: ${SUBSET_DATABASES.length} Spider dev SQLite databases, unchanged:
  ${SUBSET_DATABASES.map((d) => `\`${d}\``).join(', ')}.
- \`pairs.jsonl\`: ${kept.length} (gold SQL, predicted SQL) pairs on those databases (${falseCount} judged wrong
  by the official evaluator), same fields as the full file: \`id\`, \`db_id\`, \`question\`,
  \`gold_sql\`, \`pred_sql\`, \`hardness\`, \`source\`, \`verdict_exec\` (Spider's official test-suite
  evaluator, default flags), \`verdict_exec_keep_distinct\`, \`label_spider_pair\`. Every distinct
  gold query of these databases appears at least once; the rest is a fixed hash-ordered sample.

## Licences

- Databases, questions and gold SQL: Spider (Yu et al., 2018, "Spider: A Large-Scale
  Human-Labeled Dataset for Complex and Cross-Domain Semantic Parsing and Text-to-SQL Task"),
  licensed CC BY-SA 4.0 (https://creativecommons.org/licenses/by-sa/4.0/). This subset is
  shared under the same licence.
- Predicted SQL, by \`source\`: C3SQL (MIT); DAIL-SQL and Graphix via DAIL-SQL (Apache-2.0);
  DIN-SQL and GPT-4/Codex few/zero-shot (MIT); the test-suite evaluator's own
  evaluation_examples (Apache-2.0); Spider-Pair / FuncEvalGMN (Apache-2.0).

Tests that need all 19 databases and 8,003 pairs say "full Spider dev data" in their name and
are skipped, with the reason, when that data is absent.
`,
);
console.log(
  `${target}: ${SUBSET_DATABASES.length} databases, ${kept.length} pairs (${falseCount} wrong by the official evaluator)`,
);
