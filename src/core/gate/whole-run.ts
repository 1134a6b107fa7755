/**
 * Is a run report of the whole run, or of some shards only (`run --shard K/N`, not all merged)?
 * The gate and a baseline are on the whole corpus: a shard gated against a baseline read as
 * "corpus shrank, cases deleted", a wiring fault reported as a regression, and recorded it made a
 * baseline of part of the corpus. A leaf module (no YAML reader): the CLI's report reader and the
 * app's gate panel refuse a shard with this one message.
 */
import type { VerdictError } from '../errors.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Why a report is not of the whole run, or null. */
export function partialShardProblem(report: unknown): string | null {
  const shard = isObject(report) ? report.shard : undefined;
  if (!isObject(shard) || !Array.isArray(shard.shards) || typeof shard.count !== 'number') return null;
  if (shard.shards.length >= shard.count) return null;
  const summary = isObject(report) && isObject(report.summary) ? report.summary : {};
  const held = Array.isArray(summary.cases) ? summary.cases.length : '?';
  const of = typeof shard.corpus_size === 'number' ? shard.corpus_size : '?';
  const which = shard.shards.length === 1 ? `shard ${String(shard.shards[0])}` : `shards ${shard.shards.join(', ')}`;
  return `this is ${which} of ${shard.count} (${held} of the corpus's ${of} cases), not the whole run: merge the shard reports first (sql-verdict merge).`;
}

/** The error `sql-verdict gate` and `baseline record` give a report of some shards only (`file: this is shard …`), or null. */
export function notWholeRun(file: string, report: unknown): VerdictError | null {
  const problem = partialShardProblem(report);
  return problem ? { code: 'input.invalid', message: `${file}: ${problem}`, location: file } : null;
}
