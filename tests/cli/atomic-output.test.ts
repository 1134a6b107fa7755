/**
 * Every file the CLI writes is written whole or not at all: a CLI process
 * SIGKILLed in the middle of writing its report leaves the previous report
 * intact, and an --out that cannot be a file is refused before grading starts.
 * A preload (tests/helpers/slow-writes.mjs) holds each write to the test folder
 * for 20 s, so the kill lands mid-write deterministically.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { repoRoot } from '../helpers/paths.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-atomic-'));
const at = (f: string) => path.join(dir, f);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CORPUS = `corpus: atomic
version: 1
engine: sqlite
cases:
  - id: customer-count
    fixture: retail
    question: How many customers are there?
    reference_sql: SELECT count(*) AS n FROM customers
    shape: scalar
`;
const RUN = (sql: string) =>
  JSON.stringify({
    run: { agent: 'a', model: 'm', path: 'p' },
    records: [{ id: 'customer-count', sql, declined: false }],
  });

writeFileSync(at('corpus.yaml'), CORPUS);
writeFileSync(at('run-a.json'), RUN('SELECT count(*) AS n FROM customers'));
writeFileSync(at('run-b.json'), RUN('SELECT count(*) + 1 AS n FROM customers'));

describe('atomic outputs', () => {
  it('a CLI killed (SIGKILL) while writing --out leaves the previous report whole', async () => {
    const first = await runCli([
      'run',
      '--corpus',
      at('corpus.yaml'),
      '--run',
      at('run-a.json'),
      '--out',
      at('report.json'),
    ]);
    expect(first.stderr).not.toMatch(/Internal error/);
    const before = readFileSync(at('report.json'), 'utf8');
    expect(JSON.parse(before).kind).toBe('run');

    const child = spawn(
      process.execPath,
      [
        '--import',
        pathToFileURL(path.join(repoRoot, 'tests/helpers/slow-writes.mjs')).href,
        path.join(repoRoot, 'bin/sql-verdict.mjs'),
        'run',
        '--corpus',
        at('corpus.yaml'),
        '--run',
        at('run-b.json'),
        '--out',
        at('report.json'),
      ],
      { cwd: repoRoot, env: { ...process.env, NO_COLOR: '1', SLOW_WRITES_DIR: dir } },
    );
    let stderr = '';
    // A child that never reaches its write must not outlive the test: killed, and the test fails naming it.
    const guard = setTimeout(() => child.kill('SIGKILL'), 100_000);
    child.on('exit', () => clearTimeout(guard));
    const writing = new Promise<string>((resolve, reject) => {
      child.on('exit', (code, signal) =>
        reject(new Error(`slow-writes CLI run ended (${signal ?? code}) before writing --out: ${stderr}`)),
      );
      child.stderr.on('data', (d) => {
        stderr += d;
        const m = /SLOW_WRITE (.*)\n/.exec(stderr);
        if (m) resolve(m[1]!);
      });
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    const writingTo = await writing;
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    // The write was under way, into a temporary file beside the report, not into the report.
    expect(path.dirname(writingTo)).toBe(dir);
    expect(path.basename(writingTo)).toMatch(/^\.report\.json\..*\.tmp$/);
    expect(readFileSync(at('report.json'), 'utf8')).toBe(before);
  }, 120_000);

  it('refuses an --out that is a directory before grading (exit 2, nothing graded)', async () => {
    mkdirSync(at('a-folder'), { recursive: true });
    const result = await runCli([
      'run',
      '--corpus',
      at('corpus.yaml'),
      '--run',
      at('run-a.json'),
      '--out',
      at('a-folder'),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--out .*a-folder is a directory: give a file path\./);
    expect(result.stderr).not.toMatch(/graded|Internal error|\n\s+at /);
  });

  it('refuses an --out under a file, and baseline record --out on a directory, with one line each', async () => {
    writeFileSync(at('plain-file'), 'x');
    const under = await runCli([
      'run',
      '--corpus',
      at('corpus.yaml'),
      '--run',
      at('run-a.json'),
      '--markdown',
      at('plain-file/summary.md'),
    ]);
    expect(under.code).toBe(2);
    expect(under.stderr).toMatch(/--markdown .*plain-file\/summary\.md: .*plain-file is not a directory\./);
    const baseline = await runCli(['baseline', 'record', '--report', at('report.json'), '--out', at('a-folder')]);
    expect(baseline.code).toBe(2);
    expect(baseline.stderr.trim()).toMatch(/^--out .*a-folder is a directory: give a file path\.$/);
  });

  it('writes through a temporary file that does not stay behind', async () => {
    const ok = await runCli(['baseline', 'record', '--report', at('report.json'), '--out', at('out/baseline.json')]);
    expect(ok.code, ok.stderr).toBe(0);
    // The boundary sweep is written beside the baseline (seed 003).
    expect(readdirSync(at('out')).sort()).toEqual(['baseline.json', 'baseline.sweep.json']);
  });
});
