/**
 * Native DuckDB (`--engine duckdb-native`) gives the verdicts DuckDB-WASM gives on the built-in corpora: the flawed
 * goldens run graded by `sql-verdict run --engine duckdb-native` matches every committed golden report
 * (tests/golden/flawed-run, written by the DuckDB-WASM grading of tests/pipeline/sample-runs.test.ts; engine build
 * and timings normalised) and exits 1, as on DuckDB-WASM; the refusal battery's flawed run ends as its side file
 * expects. The CLI flag reaches the engine: the fixtures' content digests are the same on both. Native engine
 * threads ended with node-api calls in flight do not abort the process (native-teardown.child.ts). Without the
 * native binding the flag is a clear error and DuckDB-WASM still grades.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadCorpus } from '../../src/core/corpus/load-corpus.ts';
import { loadRun } from '../../src/core/corpus/load-run.ts';
import type { EvaluationReport } from '../../src/core/report/report.ts';
import { gradeRun, type RunReport } from '../../src/core/run/grade-run.ts';
import { EnginePool } from '../../src/cli/engine-pool.ts';
import { nativeDuckDbProblem } from '../../src/engines/duckdb/native-available.ts';
import { runCli, runProcess } from '../helpers/cli.ts';
import { repoRoot } from '../helpers/paths.ts';

// Every DuckDB engine this file's threads open is native (the variable --engine duckdb-native sets).
process.env.SQL_VERDICT_DUCKDB = 'native';
const problem = nativeDuckDbProblem();

const pools: EnginePool[] = [];
afterAll(async () => Promise.all(pools.map((p) => p.close())));
const bytes = (p: string) => new Uint8Array(readFileSync(path.join(repoRoot, p)));

async function grade(corpusFile: string, runFile: string): Promise<RunReport> {
  const corpus = await loadCorpus(bytes(corpusFile), { file: corpusFile });
  if (!corpus.ok) throw new Error(JSON.stringify(corpus.problems));
  const run = await loadRun(bytes(runFile), { file: runFile, caseIds: corpus.loaded.corpus.cases.map((c) => c.id) });
  if (!run.ok) throw new Error(JSON.stringify(run.problems));
  const pool = new EnginePool(corpus.loaded.corpus.engine, new Map(), repoRoot, { warmSpare: false });
  pools.push(pool);
  const graded = await gradeRun({ corpus: corpus.loaded, run: run.run, engineFor: pool.engineFor });
  if (!graded.ok) throw new Error(graded.error.message);
  return graded.value;
}

/** As sample-runs.test.ts normalises a report for its golden: timings and the engine build out. */
function stable(report: EvaluationReport): unknown {
  return JSON.parse(
    JSON.stringify(report, (key, value) => {
      if (key === 'run_metadata') return { ...value, timings_ms: '<timing>', engine_version: '<engine>' };
      if (
        /(^|_)(ms|time_ms|elapsed_ms)$/.test(key) ||
        key === 'execution_time_actual_ms' ||
        key === 'execution_time_expected_ms'
      )
        return typeof value === 'number' ? '<ms>' : value;
      if (key === 'elapsedMs') return '<ms>';
      return value;
    }),
  );
}

describe.skipIf(problem)(
  `native DuckDB: the same verdicts as DuckDB-WASM${problem ? ` (skipped: ${problem})` : ''}`,
  () => {
    it(
      'run --engine duckdb-native on the flawed goldens: exit 1, every case report equals its DuckDB-WASM golden',
      { timeout: 600_000 },
      async () => {
        const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-native-flawed-'));
        const out = path.join(dir, 'report.json');
        let report: RunReport;
        try {
          const run = await runCli([
            'run',
            '--corpus',
            'execution_goldens',
            '--run',
            'fixtures/runs/execution_goldens.flawed.jsonl',
            '--engine',
            'duckdb-native',
            '--out',
            out,
          ]);
          // 1: the run has wrong cases. It was 134 (an abort as the engine threads ended) before native hosts drained.
          expect(run.stderr).not.toMatch(/Napi::Error|terminate called/);
          expect(run.code).toBe(1);
          report = JSON.parse(readFileSync(out, 'utf8')) as RunReport;
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
        expect(report.fixtures.length).toBeGreaterThan(0);
        expect(report.fixtures.every((f) => f.unchanged)).toBe(true);
        const differ: string[] = [];
        for (const c of report.cases) {
          expect(c.report?.run_metadata.engine_version ?? 'native').toMatch(/native/);
          const golden = readFileSync(path.join(repoRoot, 'tests/golden/flawed-run', `${c.id}.json`), 'utf8');
          const actual = `${JSON.stringify(stable(c.report ?? ({ outcome: c.outcome, reason: c.reason } as unknown as EvaluationReport)), null, 2)}\n`;
          if (actual === golden) continue;
          // Beside the other temporary files, for `diff tests/golden/flawed-run/<id>.json <that file>`.
          const file = path.join(tmpdir(), `sql-verdict-native-${c.id}.json`);
          writeFileSync(file, actual);
          differ.push(`${c.id}: see ${file}`);
        }
        expect(differ).toEqual([]);
        expect(report.cases.length).toBe(64);
      },
    );

    it('the refusal battery flawed run ends as its side file expects', { timeout: 600_000 }, async () => {
      const runFile = 'fixtures/runs/refusal_battery.flawed.jsonl';
      const report = await grade('fixtures/corpora/refusal_battery.yaml', runFile);
      const expected = parse(
        readFileSync(path.join(repoRoot, runFile.replace(/\.jsonl$/, '.expected-outcomes.yaml')), 'utf8'),
      ) as { outcomes: Record<string, { outcome: string }> };
      expect(report.cases.map((c) => [c.id, c.outcome])).toEqual(
        report.cases.map((c) => [c.id, expected.outcomes[c.id]?.outcome]),
      );
    });

    it('run --engine duckdb-native: a runaway candidate times out and the run goes on (no worker is terminated mid-query)', async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-native-run-'));
      try {
        const corpus = path.join(dir, 'corpus.yaml');
        writeFileSync(
          corpus,
          ['customers', 'orders']
            .map(
              (t) =>
                `  - id: ${t}\n    fixture: retail\n    question: How many ${t} are there?\n    reference_sql: SELECT count(*) AS n FROM ${t}\n    shape: scalar\n`,
            )
            .reduce((all, c) => all + c, 'corpus: tiny\nversion: 1\nengine: duckdb\ncases:\n'),
        );
        const runFile = path.join(dir, 'run.json');
        writeFileSync(
          runFile,
          JSON.stringify({
            run: { agent: 'a', model: 'm', path: 'p' },
            records: [
              { id: 'customers', sql: 'SELECT sum(a.range * b.range) FROM range(1000000) a, range(1000000) b' },
              { id: 'orders', sql: 'SELECT count(*) AS n FROM orders' },
            ],
          }),
        );
        const run = await runCli([
          'run',
          '--corpus',
          corpus,
          '--run',
          runFile,
          '--engine',
          'duckdb-native',
          '--timeout-ms',
          '1500',
          '--json',
        ]);
        expect(run.code).toBe(1);
        const report = JSON.parse(run.stdout) as RunReport;
        expect(report.cases.map((c) => [c.id, c.outcome])).toEqual([
          ['customers', 'wrong'],
          ['orders', 'correct'],
        ]);
        expect(report.cases[0]!.reason).toMatch(/timeout/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('run grades on native DuckDB by default, on DuckDB-WASM with --engine duckdb-wasm or without the binding (saying so for a fixture over the threshold)', async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-native-choice-'));
      try {
        const corpus = path.join(dir, 'corpus.yaml');
        writeFileSync(
          corpus,
          'corpus: tiny\nversion: 1\nengine: duckdb\ncases:\n  - id: customers\n    fixture: retail\n    question: How many customers are there?\n    reference_sql: SELECT count(*) AS n FROM customers\n    shape: scalar\n',
        );
        const runFile = path.join(dir, 'run.json');
        writeFileSync(
          runFile,
          JSON.stringify({
            run: { agent: 'a', model: 'm', path: 'p' },
            records: [{ id: 'customers', sql: 'SELECT count(*) FROM customers' }],
          }),
        );
        // The retail dump (about 200 KiB) against a 64 KiB threshold; SQL_VERDICT_DUCKDB unset: nothing told run.
        const args = ['run', '--corpus', corpus, '--run', runFile, '--fixture', 'retail=fixtures/retail.sql', '--json'];
        const env = { SQL_VERDICT_NATIVE_ABOVE: '64KiB', SQL_VERDICT_DUCKDB: '' };
        const engineOf = (stdout: string) =>
          (JSON.parse(stdout) as RunReport).cases[0]!.report!.run_metadata.engine_version;
        const [auto, builtIn, wasm, absent, below] = await Promise.all([
          runCli(args, { env }),
          // A built-in corpus and fixture: the engine `run` starts before reading the corpus (prestart.ts).
          runCli(
            ['run', '--corpus', 'execution_goldens', '--run', 'fixtures/runs/execution_goldens.strong.json', '--json'],
            { env },
          ),
          runCli([...args, '--engine', 'duckdb-wasm'], { env }),
          runCli(args, { env: { ...env, SQL_VERDICT_NATIVE_BINDING: 'absent' } }),
          runCli(args, { env: { ...env, SQL_VERDICT_NATIVE_BINDING: 'absent', SQL_VERDICT_NATIVE_ABOVE: '1MiB' } }),
        ]);
        expect([auto.code, builtIn.code, wasm.code, absent.code, below.code]).toEqual([0, 1, 0, 0, 0]);
        for (const run of [auto, builtIn, wasm, below]) expect(run.stderr).not.toMatch(/Engine:|rror/);
        expect(engineOf(auto.stdout)).toBe('DuckDB v1.4.3 (node-api 1.4.3-r.3, native)');
        expect(engineOf(builtIn.stdout)).toBe('DuckDB v1.4.3 (node-api 1.4.3-r.3, native)');
        expect(engineOf(wasm.stdout)).toBe('DuckDB v1.4.3 (duckdb-wasm 1.32.0, blocking)');
        expect(absent.stderr).toMatch(
          /Engine: DuckDB-WASM \(fixture retail is \d+ KiB, over the 64 KiB above which DuckDB-WASM's 4 GiB heap may not hold it, but native DuckDB \(@duckdb\/node-api\) cannot load/,
        );
        expect(engineOf(absent.stdout)).toMatch(/duckdb-wasm/);
        expect(engineOf(below.stdout)).toMatch(/duckdb-wasm/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it(
      'a candidate stuck in one native call that ignores interrupt (levenshtein of two 200,000-character texts) times out within its budget, exits 1, and does not abort the process',
      { timeout: 240_000 },
      async () => {
        // Uninterruptible for tens of seconds: past the 10 s drain a thread host was terminated mid-call, and the
        // whole CLI aborted (exit 134, `terminate called … Napi::Error`) a minute later.
        const started = performance.now();
        const run = await runCli([
          'query',
          '--fixture',
          'retail',
          '--engine',
          'duckdb-native',
          '--timeout-ms',
          '1500',
          "SELECT levenshtein(repeat('a', 200000), repeat('b', 200000)) AS d",
        ]);
        const seconds = (performance.now() - started) / 1000;
        expect(run.stderr).not.toMatch(/Napi::Error|terminate called/);
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(/sandbox\.timeout/);
        expect(seconds).toBeLessThan(30);
      },
    );

    it("the machine's time zone does not reach native DuckDB: TIMESTAMPTZ text and parts are UTC, as on the other engines", async () => {
      // ICU (linked into native DuckDB) takes its TimeZone from the TZ of the process: a verdict must not depend on it.
      const run = await runCli(
        [
          'query',
          '--fixture',
          'retail',
          '--engine',
          'duckdb-native',
          '--json',
          "SELECT CAST(TIMESTAMPTZ '2025-01-01 00:30:00+00' AS VARCHAR) AS v, hour(TIMESTAMPTZ '2025-01-01 00:30:00+00') AS h, current_setting('TimeZone') AS z",
        ],
        { env: { TZ: 'Asia/Tokyo' } },
      );
      expect(run.code, run.stderr).toBe(0);
      const out = JSON.parse(run.stdout) as { rows: unknown[][] };
      expect(out.rows).toEqual([['2025-01-01 00:30:00+00', 0, 'UTC']]);
    });

    it(
      'a query past the memory limit writes nothing into the working directory (no .tmp spill folder): it is resource_exhausted, as on DuckDB-WASM',
      { timeout: 240_000 },
      async () => {
        // Native DuckDB's default temp_directory is `.tmp` in the current directory (and allow-listed): a large sort
        // spilled there, and the files stayed behind when the engine was killed after the out-of-memory.
        const cwd = mkdtempSync(path.join(tmpdir(), 'sql-verdict-native-cwd-'));
        try {
          const settings = await runCli(
            [
              'query',
              '--fixture',
              'retail',
              '--engine',
              'duckdb-native',
              '--json',
              "SELECT current_setting('temp_directory') AS t, CAST(current_setting('allowed_directories') AS VARCHAR) AS a",
            ],
            { cwd },
          );
          expect(settings.code, settings.stderr).toBe(0);
          expect((JSON.parse(settings.stdout) as { rows: unknown[][] }).rows).toEqual([['', '[]']]);
          const sort = await runCli(
            [
              'query',
              '--fixture',
              'retail',
              '--engine',
              'duckdb-native',
              '--timeout-ms',
              '60000',
              'SELECT count(*) FROM (SELECT x FROM range(150000000) t(x) ORDER BY hash(x) LIMIT 5 OFFSET 100000000)',
            ],
            { cwd },
          );
          expect(sort.code).toBe(1);
          expect(sort.stderr).toMatch(/resource_exhausted/);
          expect(readdirSync(cwd)).toEqual([]);
        } finally {
          rmSync(cwd, { recursive: true, force: true });
        }
      },
    );

    it('the copies of a CSV fixture are removed when the CLI ends, after a clean query and after a killed runaway', async () => {
      // The native engine copies fixture files to a folder under TMPDIR; its host is killed at a timeout and at exit.
      const tmp = mkdtempSync(path.join(tmpdir(), 'sql-verdict-native-tmp-'));
      const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-native-csv-'));
      const csv = path.join(dir, 'pairs.csv');
      writeFileSync(csv, 'a,b\n1,2\n');
      try {
        for (const [sql, code] of [
          ['SELECT * FROM pairs', 0],
          ["SELECT levenshtein(repeat('a', 200000), repeat('b', 200000)) AS d", 1],
        ] as const) {
          const run = await runCli(
            ['query', '--fixture', csv, '--engine', 'duckdb-native', '--timeout-ms', '1500', sql],
            { env: { TMPDIR: tmp } },
          );
          expect(run.code, run.stderr).toBe(code);
          // tsx's compile cache (tsx-<uid>) appears there when bin/ runs the sources (lib/ older than src/).
          expect(
            readdirSync(tmp).filter((name) => !name.startsWith('tsx-')),
            sql,
          ).toEqual([]);
        }
      } finally {
        rmSync(tmp, { recursive: true, force: true });
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it(
      'engine threads ended with native calls in flight (a spare starting, a runaway stopped) exit cleanly',
      { timeout: 240_000 },
      async () => {
        const child = await runProcess(process.execPath, [
          '--import',
          'tsx',
          'tests/engines/native-teardown.child.ts',
          '2',
        ]);
        expect(child.stderr).not.toMatch(/Napi::Error|terminate called/);
        expect([child.code, child.stdout.trim()]).toEqual([0, 'ok']);
      },
    );

    it('--engine duckdb-native reaches the engine: the retail fixture has the same content digest on both', async () => {
      const [wasm, native] = await Promise.all([
        runCli(['digest', '--content', '--fixture', 'retail', '--json'], { env: { SQL_VERDICT_DUCKDB: '' } }),
        runCli(['digest', '--content', '--fixture', 'retail', '--engine', 'duckdb-native', '--json']),
      ]);
      expect([wasm.code, native.code]).toEqual([0, 0]);
      expect(JSON.parse(native.stdout)).toEqual(JSON.parse(wasm.stdout));
    });
  },
);

// Runs where the binding loads too (SQL_VERDICT_NATIVE_BINDING=absent: as on a platform npm found no binding for).
describe('native DuckDB absent', () => {
  it('without the native binding: --engine duckdb-native is a clear error, DuckDB-WASM still grades', async () => {
    const absent = { SQL_VERDICT_NATIVE_BINDING: 'absent', SQL_VERDICT_DUCKDB: '' };
    const [native, wasm] = await Promise.all([
      runCli(['query', '--fixture', 'retail', '--engine', 'duckdb-native', 'SELECT 1'], { env: absent }),
      runCli(['query', '--fixture', 'retail', '--json', 'SELECT count(*) AS n FROM customers'], { env: absent }),
    ]);
    expect([native.code, native.stdout]).toEqual([2, '']);
    expect(native.stderr.trim()).toMatch(
      /^native DuckDB \(@duckdb\/node-api\) cannot load on [\w-]+: .*@duckdb\/node-bindings-[\w-]+ is an optional package that was not installed; DuckDB-WASM works without it\./,
    );
    expect(wasm.code).toBe(0);
    expect(wasm.stdout).toMatch(/"n"/);
  });
});
