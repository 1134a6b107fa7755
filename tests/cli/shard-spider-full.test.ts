/**
 * The shared Spider pairs in 4 shards, merged, equal the single run's report
 * after the normalisation — on a sample (every 800th pair), through the real
 * CLI, as bench/shard-merge.ts does for all 8,003 (minutes; see docs/benchmarks.md).
 */
import { describe, expect, it } from 'vitest';
import { benchShardMerge } from '../../bench/shard-merge.ts';
import { FULL_SPIDER_SKIP, fullSpiderDir, repoRoot } from '../helpers/paths.ts';

if (!fullSpiderDir) console.warn(`skipped: ${FULL_SPIDER_SKIP}`);

describe.skipIf(!fullSpiderDir)('Spider pairs (full Spider dev data) in 4 shards, merged', () => {
  it('every 800th pair: run, 4 × run --shard, merge = the single report (normalised)', async () => {
    const result = await benchShardMerge(fullSpiderDir!, repoRoot, { shards: 4, every: 800 });
    expect(result.pairs).toBe(11);
    expect(result.difference).toBeNull();
    expect(result.equal).toBe(true);
  }, 900_000);
});
