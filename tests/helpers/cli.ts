import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './paths.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The command was still running at its time limit and was killed. */
  timedOut: boolean;
}

/** Long enough for any one command in the suite; short enough that a hang fails its test instead of stalling CI. */
const DEFAULT_TIMEOUT_MS = 300_000;

/** Run the real `sql-verdict` entry point, as a user or a CI job would. */
export function runCli(args: string[], options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'sql-verdict.mjs'), ...args], {
      cwd: options.cwd ?? repoRoot,
      env: { ...process.env, ...options.env, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const limit = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', (e) => {
      clearTimeout(limit);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(limit);
      resolve({ code: code ?? -1, stdout, stderr, timedOut });
    });
  });
}
