/**
 * Start-up of the CLI (issue #14): `sql-verdict --help`, and how long after the process starts the first graded
 * case of `run --corpus execution_goldens` arrives on stderr (`graded 1/64`). With --timeline, each run also
 * prints the steps before it (SQL_VERDICT_TIMELINE=1, src/engines/timeline.ts) and the figures are per step.
 *
 *   node --import tsx bench/startup.ts [--runs N] [--engine duckdb-native|duckdb-wasm] [--timeline] [--repo DIR]
 *
 * --repo DIR: measure another checkout's CLI (e.g. a build of an earlier commit), from the same script.
 * bin/sql-verdict.mjs runs the compiled lib/ when it is newer than src/, else the sources through tsx (slower
 * to start): build it first (`npm run build:lib`) to measure what a package user gets; the first line says which.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Figure } from './harness.ts';

interface Observed {
  /** Milliseconds from spawn to the marker (or to the exit without one). */
  ms: number;
  /** Timeline steps (thread numbers dropped), first time each, in ms since the process started. */
  steps: Map<string, number>;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function untilOutput(
  args: string[],
  repo: string,
  marker: RegExp | null,
  env: NodeJS.ProcessEnv = {},
): Promise<Observed> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [path.join(repo, 'bin', 'sql-verdict.mjs'), ...args], {
      cwd: repo,
      env: { ...process.env, NO_COLOR: '1', ...env },
    });
    let seen = '';
    let done = false;
    const steps = new Map<string, number>();
    const finish = () => {
      if (done) return;
      done = true;
      for (const m of seen.matchAll(/^timeline +(\d+) ms \[thread \d+\] (.*)$/gm))
        if (!steps.has(m[2]!)) steps.set(m[2]!, Number(m[1]));
      resolve({ ms: performance.now() - started, steps });
    };
    child.stdout.resume();
    child.stderr.on('data', (d) => {
      seen += d;
      if (marker && marker.test(seen)) {
        finish();
        child.kill();
      }
    });
    child.on('error', reject);
    child.on('close', finish);
  });
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** Whether bin/sql-verdict.mjs will run the compiled lib/ (else tsx from src/). */
export function runsCompiled(repo: string): boolean {
  const lib = path.join(repo, 'lib/cli/bin.js');
  return existsSync(lib) && statSync(lib).mtimeMs >= newestMtime(path.join(repo, 'src'));
}

export interface StartupOptions {
  runs?: number;
  /** `--engine` of the run (default: the CLI's own choice). */
  engine?: string;
  timeline?: boolean;
}

/** Start-up: `sql-verdict --help`, and the first graded case of a run on a built-in corpus (medians). */
export async function benchStartup(
  repo: string,
  options: StartupOptions = {},
): Promise<{ figures: Figure[]; lines: string[] }> {
  const runs = options.runs ?? 3;
  const help: number[] = [];
  const first: Observed[] = [];
  for (let i = 0; i < runs; i++) help.push((await untilOutput(['--help'], repo, null)).ms);
  const run = [
    'run',
    '--corpus',
    'execution_goldens',
    '--run',
    path.join(repo, 'fixtures/runs/execution_goldens.strong.json'),
    ...(options.engine ? ['--engine', options.engine] : []),
  ];
  const env = options.timeline ? { SQL_VERDICT_TIMELINE: '1' } : {};
  for (let i = 0; i < runs; i++) first.push(await untilOutput(run, repo, /graded 1\//, env));
  const firstMs = first.map((o) => o.ms);
  const lines = [
    `start-up (${runsCompiled(repo) ? 'compiled lib/' : 'sources through tsx: lib/ is absent or older than src/'}${options.engine ? `, --engine ${options.engine}` : ''}): ` +
      `sql-verdict --help ${median(help).toFixed(0)} ms; first graded case of run --corpus execution_goldens ` +
      `${median(firstMs).toFixed(0)} ms after start (median of ${runs}; min ${Math.min(...firstMs).toFixed(0)}, max ${Math.max(...firstMs).toFixed(0)})`,
  ];
  if (options.timeline) {
    const order = new Map<string, number>();
    for (const o of first) for (const [step, ms] of o.steps) order.set(step, Math.min(order.get(step) ?? Infinity, ms));
    lines.push('  step (ms since the process started: median, min)');
    for (const step of [...order.keys()].sort((a, b) => order.get(a)! - order.get(b)!)) {
      const times = first.map((o) => o.steps.get(step)).filter((t): t is number => t !== undefined);
      lines.push(
        `  ${median(times).toFixed(0).padStart(6)} ${Math.min(...times)
          .toFixed(0)
          .padStart(6)}  ${step}`,
      );
    }
  }
  return {
    figures: [
      { name: 'startup.help_ms', value: median(help), unit: 'ms' },
      { name: 'startup.first_case_ms', value: median(firstMs), unit: 'ms' },
    ],
    lines,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const args = process.argv.slice(2);
  const value = (flag: string) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(`load average: ${load()}`);
  const result = await benchStartup(path.resolve(value('--repo') ?? path.resolve(here, '..')), {
    runs: Number(value('--runs') ?? 5),
    ...(value('--engine') ? { engine: value('--engine') } : {}),
    timeline: args.includes('--timeline'),
  });
  console.log(result.lines.join('\n'));
  console.log(`load average: ${load()}`);
}
