import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The Spider dev subset shipped in the repository (tests/fixtures/spider: 6 databases, 400 pairs with
 * the official verdicts; scripts/spider-subset.ts made it). Always present, so tests that use it pass
 * on a fresh clone.
 */
export const spiderSubsetDir = path.join(repoRoot, 'tests/fixtures/spider');

/**
 * The full Spider dev data (19 SQLite databases and 8,003 pairs), shared beside the repo on our machines
 * and in CI: SPIDER_DEV_DIR, else ../shared/data/spider-dev. Null when absent: tests that need it say
 * "full Spider dev data" in their name and skip with FULL_SPIDER_SKIP as the reason.
 */
const fullCandidate = process.env.SPIDER_DEV_DIR ?? path.resolve(repoRoot, '../shared/data/spider-dev');
export const fullSpiderDir: string | null = existsSync(path.join(fullCandidate, 'pairs.jsonl')) ? fullCandidate : null;
export const FULL_SPIDER_SKIP = `full Spider dev data not found at ${fullCandidate} (set SPIDER_DEV_DIR to use it)`;

/** A Spider database file: from the shipped subset when it has it, else from the full data. */
export function spiderDatabase(dbId: string): string {
  const shipped = path.join(spiderSubsetDir, 'database', dbId, `${dbId}.sqlite`);
  if (existsSync(shipped) || !fullSpiderDir) return shipped;
  return path.join(fullSpiderDir, 'database', dbId, `${dbId}.sqlite`);
}
