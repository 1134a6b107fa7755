/** `run --shard K/N`: the flag, and the shard field of the report (the selection itself is core's). */
import type { LoadedCorpus } from '../core/corpus/types.ts';
import { parseShard, selectShard, shardOf, type ShardedRunReport, type ShardSpec } from '../core/report/merge.ts';
import type { RunReport } from '../core/run/grade-run.ts';
import { CliError } from './cli-error.ts';
import type { Thresholds } from './thresholds.ts';

export interface ShardOption {
  spec: ShardSpec;
  select(corpus: LoadedCorpus): LoadedCorpus;
}

export function shardOption(text: string | undefined, thresholds: Thresholds = {}): ShardOption | null {
  if (text === undefined) return null;
  const parsed = parseShard(text);
  if (!parsed.ok) throw new CliError(parsed.error.message);
  // A threshold on one shard would judge a slice; the merge judges the whole run.
  if (Object.keys(thresholds).length)
    throw new CliError(
      '--shard: thresholds (--min-accuracy, ...) go to "sql-verdict merge", which sees the whole run.',
    );
  const spec = parsed.value;
  return { spec, select: (corpus) => selectShard(corpus, spec) };
}

/** The report with its shard field last (the merged report, without it, keeps the single run's key order). */
export function withShard<R extends RunReport>(
  report: R,
  shard: ShardOption | null,
  corpus: LoadedCorpus,
): R & ShardedRunReport {
  return shard ? { ...report, shard: shardOf(shard.spec, corpus.corpus.cases.length) } : report;
}
