import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './paths.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the real `sql-verdict` entry point, as a user or a CI job would. */
export function runCli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'sql-verdict.mjs'), ...args], {
      cwd: options.cwd ?? repoRoot,
      env: { ...process.env, ...options.env, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
