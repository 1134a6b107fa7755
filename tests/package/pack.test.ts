/**
 * The package as a user gets it: `npm pack`, installed from the tarball with --omit=dev into a
 * folder whose path has a space, then `npx sql-verdict` runs the compiled CLI (no tsx) and the
 * library imports with its types. Uses the npm registry (or its cache) for the runtime dependencies.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  copyFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_VERSION } from '../../src/core/report/report.ts';
import { runProcess } from '../helpers/cli.ts';
import { repoRoot } from '../helpers/paths.ts';

/** execFile's contract (rejects on a non-zero exit with code/stdout/stderr), with runProcess's deadline and group kill. */
async function run(command: string, args: string[], options: { cwd: string; timeoutMs?: number }) {
  const r = await runProcess(command, args, { cwd: options.cwd, timeoutMs: options.timeoutMs });
  if (r.code !== 0) throw Object.assign(new Error(`${command} ${args.join(' ')} exited ${r.code}: ${r.stderr}`), r);
  return r;
}
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { name: string; version: string };
const scratch = mkdtempSync(path.join(tmpdir(), 'sql-verdict-pack-'));
const home = path.join(scratch, 'a project with spaces');
let packed: { files: { path: string }[]; filename: string }[];

/** The same test bin/sql-verdict.mjs makes: lib/ is older than some file under src/ (or absent). */
function libStale(): boolean {
  const built = existsSync(path.join(repoRoot, 'lib/cli/bin.js'))
    ? statSync(path.join(repoRoot, 'lib/cli/bin.js')).mtimeMs
    : 0;
  const newest = (dir: string): number =>
    Math.max(
      0,
      ...readdirSync(dir, { withFileTypes: true }).map((e) =>
        e.isDirectory() ? newest(path.join(dir, e.name)) : statSync(path.join(dir, e.name)).mtimeMs,
      ),
    );
  return !built || newest(path.join(repoRoot, 'src')) > built;
}

beforeAll(async () => {
  // `npm pack` would run `prepare` (tsc, lib/ rewritten while other test files run the CLI from
  // it). `npm test` has just built lib/; when run alone on a stale lib/, build it first, once.
  if (libStale()) await run(npm, ['run', 'build:lib'], { cwd: repoRoot, timeoutMs: 400_000 });
  const { stdout } = await run(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', scratch], {
    cwd: repoRoot,
    timeoutMs: 400_000,
  });
  packed = JSON.parse(stdout.slice(stdout.indexOf('['))) as typeof packed;
  mkdirSync(home, { recursive: true });
  writeFileSync(path.join(home, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await run(
    npm,
    ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', path.join(scratch, packed[0]!.filename)],
    { cwd: home, timeoutMs: 400_000 },
  );
}, 600_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the packed package', () => {
  it('holds the compiled CLI, types, fixtures and the licence, and no tests or sources', () => {
    const files = packed[0]!.files.map((f) => f.path);
    for (const f of [
      'bin/sql-verdict.mjs',
      'lib/cli/bin.js',
      'lib/index.js',
      'lib/index.d.ts',
      'lib/core/index.d.ts',
      'lib/worker/engine-host.thread.js',
      'lib/worker/engine-host.process.js',
      'fixtures/fixtures.json',
      'fixtures/corpora/refusal_battery.yaml',
      'LICENSE',
      'README.md',
      'package.json',
    ])
      expect(files).toContain(f);
    expect(
      files.filter((f) => f.startsWith('tests/') || f.startsWith('src/') || f.startsWith('node_modules/')),
    ).toEqual([]);
    // A guard against packing whole folders by mistake (about 560 files today: the library with its .d.ts, the CLI bundle and its ~90 chunks, fixtures).
    expect(files.length).toBeLessThan(800);
  });

  it('installs with --omit=dev (no tsx) under a path with a space', () => {
    expect(existsSync(path.join(home, 'node_modules', pkg.name, 'lib/cli/bin.js'))).toBe(true);
    expect(existsSync(path.join(home, 'node_modules/tsx'))).toBe(false);
  });

  it('npx sql-verdict --version prints the package version; help run prints the run options', async () => {
    const version = await run('npx', ['--no-install', 'sql-verdict', '--version'], { cwd: home });
    expect(version.stdout.trim()).toBe(`sql-verdict ${pkg.version}`);
    expect(TOOL_VERSION).toBe(`sql-verdict ${pkg.version}`);
    const help = await run('npx', ['--no-install', 'sql-verdict', 'help', 'run'], { cwd: home });
    expect(help.stdout).toMatch(/^Usage: sql-verdict run/);
  });

  it('npx sql-verdict run grades a built-in corpus', { timeout: 300_000 }, async () => {
    copyFileSync(path.join(repoRoot, 'fixtures/runs/refusal_battery.strong.json'), path.join(home, 'my run.json'));
    // Exit 1: the strong sample run has one missed refusal; the report is what matters here.
    const graded = await run(
      'npx',
      [
        '--no-install',
        'sql-verdict',
        'run',
        '--corpus',
        'refusal_battery',
        '--run',
        'my run.json',
        '--out',
        'out dir/report.json',
      ],
      { cwd: home },
    ).catch((e: { code: number; stdout: string; stderr: string }) => e);
    expect(graded.stderr).not.toMatch(/Internal error|ERR_MODULE_NOT_FOUND|tsx/);
    const report = JSON.parse(readFileSync(path.join(home, 'out dir/report.json'), 'utf8')) as {
      cases: unknown[];
      tool_version?: string;
    };
    expect(report.cases.length).toBeGreaterThan(10);
  });

  it('imports as a library with types: evaluate a query on a Node engine', { timeout: 120_000 }, async () => {
    const types = readFileSync(path.join(home, 'node_modules', pkg.name, 'lib/index.d.ts'), 'utf8');
    expect(types).toMatch(/openEngine/);
    writeFileSync(
      path.join(home, 'use.mjs'),
      `import { evaluate, evaluationRequest, openEngine } from 'sql-verdict';
import { REPORT_SCHEMA } from 'sql-verdict/core';
const engine = openEngine('sqlite');
const loaded = await engine.load({ name: 't', files: [{ fileName: 't.sql', format: 'sql', bytes: new TextEncoder().encode('CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2);') }] });
if (!loaded.ok) throw new Error(loaded.error.message);
const report = await evaluate(evaluationRequest({ expected_sql: 'SELECT sum(x) FROM t', actual_sql: 'SELECT 3' }), engine);
console.log(JSON.stringify({ verdict: report.deterministic_verdict, schema: typeof REPORT_SCHEMA }));
await engine.close();
`,
    );
    const out = await run(process.execPath, ['use.mjs'], { cwd: home });
    expect(JSON.parse(out.stdout)).toEqual({ verdict: 'pass', schema: 'object' });
  });
});
