/**
 * Sharded runs on the shared Spider pairs: the whole `sql-verdict run` in one
 * process, then the same run as N shards (`run --shard K/N`, one after the
 * other here; side by side in CI), `sql-verdict merge` of the N reports, and
 * the check that the merged report equals the single one after the documented
 * normalisation (normalizeRunReport: timings dropped). Prints wall time, CPU
 * and peak RSS of every process. It takes minutes on all 8,003 pairs.
 *
 *   node --max-old-space-size=8192 --import tsx bench/shard-merge.ts [--shards 4] [--every N] [--limit N] [--keep]
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { prettyJson } from '../src/cli/json.ts';
import { normalizeRunReport } from '../src/core/report/merge.ts';
import { readPairs, writeInputs } from './spider-run.ts';

export interface Timed {
  seconds: number;
  maxRssKiB: number | null;
  cpuSeconds: number | null;
  code: number;
  stdout: string;
  stderr: string;
}

export function timed(command: string, args: string[], cwd: string): Promise<Timed> {
  const gnuTime = existsSync('/usr/bin/time');
  const [cmd, argv] = gnuTime ? ['/usr/bin/time', ['-v', command, ...args]] : [command, args];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd, argv, { cwd, env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
      const system = /System time \(seconds\): ([\d.]+)/.exec(stderr);
      resolve({
        seconds: (performance.now() - started) / 1000,
        maxRssKiB: rss ? Number(rss[1]) : null,
        cpuSeconds: user && system ? Number(user[1]) + Number(system[1]) : null,
        code: code ?? -1,
        stdout,
        stderr,
      });
    });
  });
}

export const describe = (t: Timed) =>
  `${t.seconds.toFixed(1)} s wall, ${t.cpuSeconds === null ? '?' : t.cpuSeconds.toFixed(1)} s CPU, peak RSS ${t.maxRssKiB === null ? '?' : `${(t.maxRssKiB / 1024).toFixed(0)} MiB`}`;

/** Per-case digests of a report after the normalisation, and one of everything else: one parsed report in memory at a time. */
function normalizedDigests(file: string): { ids: string[]; cases: string[]; rest: string } {
  const report = normalizeRunReport(JSON.parse(readFileSync(file, 'utf8')) as { cases: { id: string }[] });
  const hash = (v: unknown) => createHash('sha256').update(prettyJson(v)).digest('hex');
  return { ids: report.cases.map((k) => k.id), cases: report.cases.map(hash), rest: hash({ ...report, cases: [] }) };
}

export interface ShardMergeResult {
  pairs: number;
  shards: number;
  equal: boolean;
  /** The first difference when not equal (a case id, or "outside the cases"). */
  difference: string | null;
  lines: string[];
}

export async function benchShardMerge(
  spider: string,
  repo: string,
  options: { shards?: number; every?: number; limit?: number; keep?: boolean } = {},
): Promise<ShardMergeResult> {
  const n = options.shards ?? 4;
  const pairs = readPairs(spider, options.limit ?? Infinity, options.every ?? 1);
  const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-shard-bench-'));
  const lines: string[] = [];
  try {
    const inputs = writeInputs(dir, pairs);
    const fixtures = [...new Set(pairs.map((p) => p.db_id))]
      .sort()
      .flatMap((db) => ['--fixture', `${db}=${path.join(spider, 'database', db, `${db}.sqlite`)}`]);
    const cli = (args: string[]) => timed(process.execPath, [path.join(repo, 'bin', 'sql-verdict.mjs'), ...args], repo);
    const base = ['run', '--corpus', inputs.corpus, '--run', inputs.run, ...fixtures, '--timeout-ms', '10000'];
    const single = path.join(dir, 'single.json');
    const one = await cli([...base, '--out', single]);
    if (one.code !== 0 && one.code !== 1)
      throw new Error(`sql-verdict run exited ${one.code}:\n${one.stderr.slice(-2000)}`);
    lines.push(
      `single run: ${pairs.length} pairs, ${describe(one)}, report ${(statSync(single).size / 1e6).toFixed(1)} MB`,
    );
    const shardFiles: string[] = [];
    let slowest = 0;
    let cpu = 0;
    for (let k = 1; k <= n; k++) {
      const file = path.join(dir, `shard-${k}.json`);
      const t = await cli([...base, '--shard', `${k}/${n}`, '--out', file]);
      if (t.code !== 0)
        throw new Error(`sql-verdict run --shard ${k}/${n} exited ${t.code}:\n${t.stderr.slice(-2000)}`);
      slowest = Math.max(slowest, t.seconds);
      cpu += t.cpuSeconds ?? 0;
      shardFiles.push(file);
      lines.push(`  shard ${k}/${n}: ${describe(t)}`);
    }
    lines.push(
      `shards: slowest ${slowest.toFixed(1)} s (the wall time of an N-job CI matrix, before the merge), ${cpu.toFixed(1)} s CPU in all`,
    );
    const mergedFile = path.join(dir, 'merged.json');
    // The shards in reverse order: the merge must not care.
    const merge = await cli(['merge', ...[...shardFiles].reverse(), '--out', mergedFile]);
    if (merge.code !== 0 && merge.code !== 1)
      throw new Error(`sql-verdict merge exited ${merge.code}:\n${merge.stderr.slice(-2000)}`);
    lines.push(`merge: ${describe(merge)}`);
    const a = normalizedDigests(single);
    const b = normalizedDigests(mergedFile);
    let difference: string | null = null;
    if (a.ids.join('\n') !== b.ids.join('\n')) difference = 'case order';
    else {
      const i = a.cases.findIndex((h, j) => h !== b.cases[j]);
      if (i >= 0) difference = `case ${a.ids[i]}`;
      else if (a.rest !== b.rest) difference = 'outside the cases (summary, fixtures, metadata)';
    }
    const equal = difference === null && statSync(single).size > 0;
    lines.push(
      equal
        ? `merged report = single report after normalisation (${a.cases.length} cases, every case and the rest compared)`
        : `merged report DIFFERS from the single report: first at ${difference}`,
    );
    return { pairs: pairs.length, shards: n, equal, difference, lines };
  } finally {
    if (!options.keep) rmSync(dir, { recursive: true, force: true });
    else lines.push(`inputs and reports kept in ${dir}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const spider = process.env.SPIDER_DEV_DIR ?? path.resolve(repo, '../shared/data/spider-dev');
  if (!existsSync(path.join(spider, 'pairs.jsonl'))) {
    console.log(`shard-merge bench skipped: ${spider} is absent (set SPIDER_DEV_DIR)`);
    process.exit(0);
  }
  const result = await benchShardMerge(spider, repo, {
    shards: Number(arg('--shards') ?? 4),
    every: Number(arg('--every') ?? 1),
    limit: arg('--limit') ? Number(arg('--limit')) : Infinity,
    keep: process.argv.includes('--keep'),
  });
  console.log(result.lines.join('\n'));
  process.exit(result.equal ? 0 : 1);
}
