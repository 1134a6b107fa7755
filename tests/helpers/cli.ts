import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './paths.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** False: a command still running at its time limit is killed and the promise rejects, naming it. */
  timedOut: boolean;
}

export interface RunOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Kill the child (and its process group) after this long and fail naming the command. */
  timeoutMs?: number;
}

/**
 * A child that hangs must end the test, not the CI run: every process a test starts is killed
 * after this long (a spawnSync without a timeout blocks the vitest worker, so no test timeout can
 * fire). Long enough for any one command in the suite, even under load.
 */
export const CHILD_TIMEOUT_MS = Number(process.env.SQL_VERDICT_TEST_CHILD_TIMEOUT_MS) || 300_000;

const cliEntry = path.join(repoRoot, 'bin', 'sql-verdict.mjs');
const MAX_BUFFER = 64 * 1024 * 1024;

function describeCommand(command: string, args: string[]): string {
  const shown = command === process.execPath ? 'node' : command;
  return [
    shown,
    ...args.map((a) => (a === cliEntry ? 'bin/sql-verdict.mjs' : /[\s'"]/.test(a) ? JSON.stringify(a) : a)),
  ].join(' ');
}

function timedOut(command: string, args: string[], ms: number): Error {
  return new Error(`child process killed after ${ms} ms (hung?): ${describeCommand(command, args)}`);
}

/**
 * Run any command with a deadline: on time-out the whole process group is SIGKILLed (npm and npx
 * start grandchildren) and the promise rejects with a message naming the command.
 */
export function runProcess(command: string, args: string[], options: RunOptions = {}): Promise<CliRun> {
  const ms = options.timeoutMs ?? CHILD_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? repoRoot,
      env: { ...process.env, ...options.env, NO_COLOR: '1' },
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, ms);
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (killed) reject(timedOut(command, args, ms));
      else resolve({ code: code ?? -1, stdout, stderr, timedOut: false });
    });
  });
}

/** Run the real `sql-verdict` entry point, as a user or a CI job would. */
export function runCli(args: string[], options: RunOptions = {}): Promise<CliRun> {
  return runProcess(process.execPath, [cliEntry, ...args], options);
}

/**
 * The same, synchronously (for tests that run the CLI at collection time). spawnSync's own
 * timeout kills the child, so the worker is never blocked for longer than the deadline.
 */
export function runCliSync(args: string[], options: RunOptions = {}): CliRun {
  const ms = options.timeoutMs ?? CHILD_TIMEOUT_MS;
  const argv = [cliEntry, ...args];
  const r = spawnSync(process.execPath, argv, {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, ...options.env, NO_COLOR: '1' },
    encoding: 'utf8',
    maxBuffer: MAX_BUFFER,
    timeout: ms,
    killSignal: 'SIGKILL',
  });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') throw timedOut(process.execPath, argv, ms);
  if (r.error) throw new Error(`${describeCommand(process.execPath, argv)}: ${r.error.message}`);
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, timedOut: false };
}
