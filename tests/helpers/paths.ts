import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Spider dev data (19 SQLite databases and 8,003 gold/predicted pairs), shared beside the repo. */
export const spiderDir = process.env.SPIDER_DEV_DIR ?? path.resolve(repoRoot, '../shared/data/spider-dev');

export function spiderDatabase(dbId: string): string {
  return path.join(spiderDir, 'database', dbId, `${dbId}.sqlite`);
}
