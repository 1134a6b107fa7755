/**
 * The whole `sql-verdict run` process on the shared Spider pairs, back to back
 * with the official Spider evaluator's execution match on the same pairs
 * (../shared/peers/spider_exec_peer.py, when python3 has sqlparse and tqdm).
 * Absolute times drift on a shared machine; the ratios measured in one script
 * are the figures to compare.
 *
 *   npm run bench -- --only spider [--limit N]     (or BENCH_ONLY=spider)
 *   node --import tsx bench/spider-run.ts [--limit N] [--every N] [--repeat N] [--keep] [--no-startup]
 *     --every 10: every 10th pair; --repeat 3: the pairs three times over under new ids (24,009 cases, near
 *     the 8 MiB corpus limit), for peak memory against corpus size (the official evaluator is not run then)
 *   (start-up alone, with a timeline of its steps: bench/startup.ts)
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Figure } from './harness.ts';
import { benchStartup } from './startup.ts';

export { benchStartup };

interface Pair {
  id: string;
  db_id: string;
  question: string | null;
  gold_sql: string;
  pred_sql: string | null;
  verdict_exec: boolean;
  verdict_exec_keep_distinct: boolean;
}

export interface SpiderRunFigures {
  pairs: number;
  figures: Figure[];
  lines: string[];
}

/** Corpus ids allow [A-Za-z0-9_.:-]: Spider's "source#nnnn" ids are mapped one to one. */
export function caseId(pairId: string): string {
  return pairId.replace(/[^A-Za-z0-9_.:-]/g, '.');
}

/** Every pair, the first `limit`, or every n-th (`sample`: a spread over all databases for profiling). */
export function readPairs(spider: string, limit: number, every = 1): Pair[] {
  return readFileSync(path.join(spider, 'pairs.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Pair)
    .filter((_, i) => i % every === 0)
    .slice(0, limit);
}

/** The pairs `times` times over, each copy after the first under new ids (`…:r2`): a larger corpus of the same kind. */
export function repeatPairs(pairs: Pair[], times: number): Pair[] {
  return Array.from({ length: times }, (_, k) =>
    k === 0 ? pairs : pairs.map((p) => ({ ...p, id: `${p.id}:r${k + 1}` })),
  ).flat();
}

/** The pairs as a corpus (gold = reference) and a run (predicted = the system's SQL), as the agreement script grades them. */
export function writeInputs(dir: string, pairs: Pair[]): { corpus: string; run: string } {
  const corpus = {
    corpus: 'spider_dev_pairs',
    version: 1,
    engine: 'sqlite',
    cases: pairs.map((p) => ({
      id: caseId(p.id),
      fixture: p.db_id,
      question: p.question ?? `(no question: ${p.id})`,
      reference_sql: p.gold_sql,
      shape: 'rows',
      // Spider's policy: row order counts only when the gold has ORDER BY.
      order_matters: /\border\s+by\b/i.test(p.gold_sql),
    })),
  };
  const files = { corpus: path.join(dir, 'corpus.json'), run: path.join(dir, 'run.jsonl') };
  writeFileSync(files.corpus, JSON.stringify(corpus));
  const records = [
    {
      run: {
        agent: 'spider-pairs',
        model: 'published-spider-dev-predictions',
        path: 'spider_dev',
        created_at: '2026-12-01T00:00:00Z',
      },
    },
    ...pairs.map((p) => ({ id: caseId(p.id), sql: p.pred_sql, declined: false })),
  ];
  writeFileSync(files.run, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return files;
}

interface Timed {
  seconds: number;
  maxRssKiB: number | null;
  /** User + system CPU seconds of the process and its threads (less sensitive than wall time to a loaded machine). */
  cpuSeconds: number | null;
  code: number;
  stdout: string;
  stderr: string;
}

/** A child process under /usr/bin/time -v (peak RSS) when present. */
function timed(command: string, args: string[], cwd: string): Promise<Timed> {
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
      const seconds = (performance.now() - started) / 1000;
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
      const system = /System time \(seconds\): ([\d.]+)/.exec(stderr);
      const cpuSeconds = user && system ? Number(user[1]) + Number(system[1]) : null;
      resolve({ seconds, maxRssKiB: rss ? Number(rss[1]) : null, cpuSeconds, code: code ?? -1, stdout, stderr });
    });
  });
}

/** The first python3 that has the official evaluator's imports (a pyenv shim may shadow Debian's). */
function peerPython(): string | null {
  for (const python of [process.env.PYTHON ?? 'python3', '/usr/bin/python3']) {
    const probe = spawnSync(python, ['-c', 'import sqlparse, tqdm'], { stdio: 'ignore' });
    if (probe.status === 0) return python;
  }
  return null;
}

interface RunReportLike {
  cases: { id: string; report: { deterministic_verdict: string } | null }[];
}

/** V8 cannot hold a string much past 512 MiB: a larger report is read line by line. */
const ONE_STRING_BYTES = 400 * 1024 * 1024;

/** Each case's id and deterministic verdict from the run report (JSON, as `run --out` writes it). */
function readCases(file: string): RunReportLike['cases'] {
  if (statSync(file).size < ONE_STRING_BYTES) return (JSON.parse(readFileSync(file, 'utf8')) as RunReportLike).cases;
  // The layout `run --out` prints (src/core/report/pretty-json.ts): the cases list at two spaces, a case's "id"
  // at six, its report's verdict at eight.
  const cases: RunReportLike['cases'] = [];
  let inCases = false;
  for (const line of linesOf(file)) {
    if (!inCases) {
      inCases = line === '  "cases": [';
      continue;
    }
    if (/^ {2}\]/.test(line)) break;
    const id = /^ {6}"id": (".*"),?$/.exec(line);
    if (id) cases.push({ id: JSON.parse(id[1]!) as string, report: null });
    const verdict = /^ {8}"deterministic_verdict": (".*"),?$/.exec(line);
    if (verdict && cases.length)
      cases[cases.length - 1]!.report = { deterministic_verdict: JSON.parse(verdict[1]!) as string };
  }
  return cases;
}

/** The non-blank lines of a file, read in chunks. */
function* linesOf(file: string): Generator<string> {
  const fd = openSync(file, 'r');
  const chunk = Buffer.alloc(1 << 20);
  const decoder = new TextDecoder();
  let rest = '';
  try {
    for (let n = readSync(fd, chunk); n > 0; n = readSync(fd, chunk)) {
      const lines = (rest + decoder.decode(chunk.subarray(0, n), { stream: true })).split('\n');
      rest = lines.pop()!;
      yield* lines.filter((l) => l.trim());
    }
    if (rest.trim()) yield rest;
  } finally {
    closeSync(fd);
  }
}

/** Milliseconds from spawning the CLI until its stderr shows `marker` (then it is stopped), or it exits. */
export async function benchSpiderRun(
  spider: string,
  repo: string,
  options: { limit?: number; every?: number; repeat?: number; keep?: boolean } = {},
): Promise<SpiderRunFigures | null> {
  if (!existsSync(path.join(spider, 'pairs.jsonl'))) {
    console.log(`\n(spider run bench skipped: ${spider} is absent)`);
    return null;
  }
  const pairs = repeatPairs(readPairs(spider, options.limit ?? Infinity, options.every ?? 1), options.repeat ?? 1);
  const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-spider-bench-'));
  const lines: string[] = [];
  const figures: Figure[] = [];
  try {
    const inputs = writeInputs(dir, pairs);
    const out = path.join(dir, 'report.json');
    const fixtures = [...new Set(pairs.map((p) => p.db_id))]
      .sort()
      .flatMap((db) => ['--fixture', `${db}=${path.join(spider, 'database', db, `${db}.sqlite`)}`]);
    const cli = await timed(
      process.execPath,
      [
        path.join(repo, 'bin', 'sql-verdict.mjs'),
        'run',
        '--corpus',
        inputs.corpus,
        '--run',
        inputs.run,
        ...fixtures,
        '--timeout-ms',
        '10000',
        '--out',
        out,
      ],
      repo,
    );
    if (cli.code !== 0 && cli.code !== 1)
      throw new Error(`sql-verdict run exited ${cli.code}:\n${cli.stderr.slice(-2000)}`);
    const cases = readCases(out);
    const byId = new Map(pairs.map((p) => [caseId(p.id), p]));
    let agree = 0;
    for (const c of cases)
      if ((c.report?.deterministic_verdict === 'pass') === byId.get(c.id)?.verdict_exec_keep_distinct) agree++;
    const rate = pairs.length / cli.seconds;
    const reportBytes = statSync(out).size;
    lines.push(
      `sql-verdict run: ${pairs.length} pairs in ${cli.seconds.toFixed(1)} s = ${rate.toFixed(1)} pairs/s (whole process), peak RSS ${cli.maxRssKiB === null ? '?' : `${(cli.maxRssKiB / 1024).toFixed(0)} MiB`}, report ${(reportBytes / 1e6).toFixed(1)} MB`,
      `  agreement with verdict_exec_keep_distinct: ${agree}/${pairs.length}`,
      `  CPU ${cli.cpuSeconds === null ? '?' : `${cli.cpuSeconds.toFixed(1)} s = ${(pairs.length / cli.cpuSeconds).toFixed(1)} pairs per CPU-second`}`,
    );
    if (cli.cpuSeconds !== null)
      figures.push({
        name: 'spider_run.pairs_per_cpu_s',
        value: pairs.length / cli.cpuSeconds,
        unit: 'pairs/CPU-s',
        lowerIsBetter: false,
      });
    figures.push(
      { name: 'spider_run.pairs_per_s', value: rate, unit: 'pairs/s', lowerIsBetter: false },
      { name: 'spider_run.wall_s', value: cli.seconds, unit: 's' },
      { name: 'spider_run.report_mb', value: reportBytes / 1e6, unit: 'MB' },
      { name: 'spider_run.agree_keep_distinct', value: agree, unit: 'pairs', lowerIsBetter: false },
    );
    if (cli.maxRssKiB !== null)
      figures.push({ name: 'spider_run.peak_rss_mib', value: cli.maxRssKiB / 1024, unit: 'MiB' });

    const peer = path.resolve(spider, '..', '..', 'peers', 'spider_exec_peer.py');
    const python = existsSync(peer) ? peerPython() : null;
    if ((options.repeat ?? 1) > 1) {
      lines.push(
        `official evaluator not run: --repeat ${options.repeat} measures sql-verdict's memory against corpus size`,
      );
    } else if (!python) {
      lines.push(
        'official evaluator skipped: needs ../shared/peers/spider_exec_peer.py and python3 with sqlparse and tqdm (apt-get install -y python3-sqlparse python3-tqdm)',
      );
    } else {
      // The peer reads the same pairs: the full file, or the subset written for this run.
      const subset =
        pairs.length === readPairs(spider, Infinity).length
          ? path.join(spider, 'pairs.jsonl')
          : path.join(dir, 'pairs.jsonl');
      if (subset !== path.join(spider, 'pairs.jsonl'))
        writeFileSync(subset, pairs.map((p) => JSON.stringify(p)).join('\n') + '\n');
      const peerArgs = [peer, '--pairs', subset, '--db-dir', path.join(spider, 'database')];
      for (const [mode, extra] of [
        ['default', []],
        ['keep_distinct', ['--keep-distinct']],
      ] as const) {
        const run = await timed(python, [...peerArgs, ...extra], repo);
        const m = /peer: (\d+) pairs in ([\d.]+) s/.exec(run.stdout);
        if (run.code !== 0 || !m)
          throw new Error(`spider_exec_peer.py exited ${run.code}:\n${run.stderr.slice(-2000)}`);
        // The whole python process (import and start-up included), as for sql-verdict.
        const peerRate = Number(m[1]) / run.seconds;
        lines.push(
          `official execution match (${mode}): ${peerRate.toFixed(1)} pairs/s (whole process; ${(Number(m[1]) / Number(m[2])).toFixed(1)} pairs/s in its loop), peak RSS ${run.maxRssKiB === null ? '?' : `${(run.maxRssKiB / 1024).toFixed(0)} MiB`} → ratio sql-verdict / official = ${(rate / peerRate).toFixed(2)}×`,
        );
        if (run.cpuSeconds !== null && cli.cpuSeconds !== null) {
          const peerPerCpu = Number(m[1]) / run.cpuSeconds;
          lines.push(
            `  CPU ${run.cpuSeconds.toFixed(1)} s = ${peerPerCpu.toFixed(1)} pairs per CPU-second → CPU ratio ${(pairs.length / cli.cpuSeconds / peerPerCpu).toFixed(2)}×`,
          );
          figures.push({
            name: `spider_run.cpu_ratio_vs_official_${mode}`,
            value: pairs.length / cli.cpuSeconds / peerPerCpu,
            unit: '×',
            lowerIsBetter: false,
          });
        }
        figures.push(
          { name: `spider_run.official_${mode}_pairs_per_s`, value: peerRate, unit: 'pairs/s', lowerIsBetter: false },
          { name: `spider_run.ratio_vs_official_${mode}`, value: rate / peerRate, unit: '×', lowerIsBetter: false },
        );
      }
    }
  } finally {
    if (!options.keep) rmSync(dir, { recursive: true, force: true });
    else lines.push(`inputs and report kept in ${dir}`);
  }
  return { pairs: pairs.length, figures, lines };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const args = process.argv.slice(2);
  const limit = args.includes('--limit') ? Number(args[args.indexOf('--limit') + 1]) : undefined;
  const every = args.includes('--every') ? Number(args[args.indexOf('--every') + 1]) : undefined;
  const repeat = args.includes('--repeat') ? Number(args[args.indexOf('--repeat') + 1]) : undefined;
  const spider = process.env.SPIDER_DEV_DIR ?? path.resolve(here, '../../shared/data/spider-dev');
  console.log(
    `load average: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  if (!args.includes('--no-startup')) console.log((await benchStartup(path.resolve(here, '..'))).lines.join('\n'));
  const result = await benchSpiderRun(spider, path.resolve(here, '..'), {
    ...(limit ? { limit } : {}),
    ...(every ? { every } : {}),
    ...(repeat ? { repeat } : {}),
    keep: args.includes('--keep'),
  });
  if (result) console.log(result.lines.join('\n'));
  console.log(
    `load average: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}
