/**
 * `stef --log` at scale: a generated production log of N lines (default 10^6) built from the sample log's
 * queries (fixtures/stef/production-log.jsonl) over 90 days and 6 agent versions, with D distinct queries (default
 * 5,000: each sample query under numbered comments, so each is evaluated for real, not served from the cache).
 * Runs `sql-verdict stef --log FILE --json` as a child (wall time, CPU, peak RSS by /usr/bin/time), then checks
 * every agent's and period's mean Φ and P90 against exact values computed here from all N Φ values
 * (sorted arrays: the nearest rank, independently of the CLI's counting).
 *
 *   node --import tsx bench/stef-log.ts [--lines 1000000] [--distinct 5000] [--keep]
 */
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  evaluateStef,
  parseRules,
  percentile,
  weekOf,
  type LogRecord,
  type MonitorReport,
} from '../src/core/stef/index.ts';
import { describe, timed } from './shard-merge.ts';

export interface StefLogResult {
  lines: number;
  distinct: number;
  bytes: number;
  seconds: number;
  maxRssKiB: number | null;
  /** The largest |CLI − exact| over every agent's and period's P90 (and mean). */
  p90Error: number;
  meanError: number;
  report: string[];
}

/** A small deterministic generator (LCG): the same log for the same arguments. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

export async function benchStefLog(
  repo: string,
  options: { lines?: number; distinct?: number; bucket?: 'day' | 'week'; keep?: boolean } = {},
): Promise<StefLogResult> {
  const n = options.lines ?? 1_000_000;
  const bucket = options.bucket ?? 'week';
  const sample = readFileSync(path.join(repo, 'fixtures/stef/production-log.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as LogRecord);
  const distinct = Math.max(sample.length, options.distinct ?? 5000);
  const variants = Math.ceil(distinct / sample.length);
  const rulesFile = path.join(repo, 'fixtures/stef/r_app.json');
  const rules = parseRules(JSON.parse(readFileSync(rulesFile, 'utf8')));
  if (!rules.ok) throw new Error(rules.error.message);
  const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-stef-log-'));
  const file = path.join(dir, 'log.jsonl');
  const report: string[] = [];
  try {
    // Φ of every distinct query, evaluated once here (the CLI evaluates them on its own).
    const t0 = performance.now();
    const phiOf = new Map<string, number | null>();
    const sqlOf = (i: number, v: number) => (v ? `/* variant ${v} */ ${sample[i]!.sql}` : sample[i]!.sql);
    for (let i = 0; i < sample.length; i++)
      for (let v = 0; v < variants; v++) {
        const r = evaluateStef({ ...sample[i]!, sql: sqlOf(i, v), rules: rules.value });
        phiOf.set(`${i}/${v}`, r.ok ? r.value.phi : null);
      }
    const evalSeconds = (performance.now() - t0) / 1000;
    report.push(
      `${phiOf.size} distinct queries evaluated in-process in ${evalSeconds.toFixed(1)} s (${((evalSeconds * 1000) / phiOf.size).toFixed(2)} ms each)`,
    );

    // The log, written as a stream; every line's Φ is kept here for the exact figures.
    const rand = lcg(20261201);
    const agents = [...new Set(sample.map((r) => r.agent_version))].flatMap((a) => [a, `${a}-canary`]);
    const exact = new Map<string, number[]>();
    const push = (key: string, phi: number) => {
      let list = exact.get(key);
      if (!list) exact.set(key, (list = []));
      list.push(phi);
    };
    const out = createWriteStream(file);
    const start = Date.parse('2025-03-03T00:00:00Z');
    for (let k = 0; k < n; k++) {
      const i = Math.floor(rand() * sample.length);
      const v = Math.floor(rand() * variants);
      const agent = agents[Math.floor(rand() * agents.length)]!;
      const timestamp = new Date(start + Math.floor(rand() * 90 * 86_400) * 1000).toISOString();
      const line = JSON.stringify({ ...sample[i]!, timestamp, agent_version: agent, sql: sqlOf(i, v) }) + '\n';
      if (!out.write(line)) await once(out, 'drain');
      const phi = phiOf.get(`${i}/${v}`)!;
      if (phi !== null) {
        push(agent, phi);
        push(`${agent} ${bucket === 'week' ? weekOf(timestamp) : timestamp.slice(0, 10)}`, phi);
      }
    }
    out.end();
    await once(out, 'finish');
    const bytes = statSync(file).size;
    report.push(
      `log: ${n.toLocaleString('en')} lines, ${(bytes / 2 ** 20).toFixed(0)} MiB, ${agents.length} agent versions, 90 days`,
    );

    const run = await timed(
      process.execPath,
      [
        path.join(repo, 'bin', 'sql-verdict.mjs'),
        'stef',
        '--log',
        file,
        '--rules',
        rulesFile,
        '--bucket',
        bucket,
        '--json',
      ],
      repo,
    );
    if (run.code !== 0) throw new Error(`sql-verdict stef --log exited ${run.code}:\n${run.stderr.slice(-2000)}`);
    report.push(`sql-verdict stef --log: ${describe(run)}, ${((n / run.seconds) | 0).toLocaleString('en')} lines/s`);
    const json = run.stdout.indexOf('{');
    const monitored = JSON.parse(run.stdout.slice(json)) as MonitorReport;
    if (monitored.queries !== n) throw new Error(`the CLI counted ${monitored.queries} queries, the log has ${n}`);

    let p90Error = 0;
    let meanError = 0;
    let compared = 0;
    const exactMean = (xs: number[]) => Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 10) / 10;
    const check = (key: string, p90: number | null, mean: number | null) => {
      const xs = exact.get(key) ?? [];
      const wantP90 = percentile(xs, 90);
      const wantMean = xs.length ? exactMean(xs) : null;
      if ((wantP90 === null) !== (p90 === null)) throw new Error(`${key}: P90 ${p90}, exact ${wantP90}`);
      p90Error = Math.max(p90Error, Math.abs((p90 ?? 0) - (wantP90 ?? 0)));
      meanError = Math.max(meanError, Math.abs((mean ?? 0) - (wantMean ?? 0)));
      compared++;
    };
    for (const a of monitored.agents) {
      check(a.agent_version, a.p90_phi, a.mean_phi);
      for (const p of a.periods) check(`${a.agent_version} ${p.period}`, p.p90_phi, p.mean_phi);
    }
    report.push(
      `exact check over ${compared} agent and ${bucket} figures: largest P90 error ${p90Error}, largest mean Φ error ${meanError.toFixed(1)}`,
    );
    return {
      lines: n,
      distinct: phiOf.size,
      bytes,
      seconds: run.seconds,
      maxRssKiB: run.maxRssKiB,
      p90Error,
      meanError,
      report,
    };
  } finally {
    if (!options.keep) rmSync(dir, { recursive: true, force: true });
    else report.push(`log kept in ${file}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const result = await benchStefLog(repo, {
    lines: arg('--lines') ? Number(arg('--lines')) : undefined,
    distinct: arg('--distinct') ? Number(arg('--distinct')) : undefined,
    keep: process.argv.includes('--keep'),
  });
  console.log(result.report.join('\n'));
  process.exit(result.p90Error === 0 ? 0 : 1);
}
