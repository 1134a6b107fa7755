/**
 * The grading pool (worker threads that grade whole cases with their own
 * engines) changes nothing but the wall time: on the execution goldens and
 * the flawed sample run (real DuckDB-WASM), one worker, two workers and the
 * supervised engine per fixture give the same report (timings aside), and
 * the streamed --out is the same bytes. A runaway query on sql.js stops its
 * worker: the case records `sandbox.timeout` exactly as a supervised engine
 * does, and the run goes on; the cases behind it are graded by the other
 * worker meanwhile (work is pulled, so a stuck worker holds only its prefetch).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnginePool, gradingPoolFor } from '../../src/cli/engine-pool.ts';
import { processIo } from '../../src/cli/io.ts';
import { prettyJson, rememberPrinted } from '../../src/cli/json.ts';
import { CASE_REPORT_INDENT, RunReportWriter } from '../../src/cli/report-stream.ts';
import { loadCorpus } from '../../src/core/corpus/load-corpus.ts';
import { loadRun, type LoadedRun } from '../../src/core/corpus/load-run.ts';
import type { LoadedCorpus } from '../../src/core/corpus/types.ts';
import { DEFAULT_EVALUATION_CONFIG } from '../../src/core/evaluation/request.ts';
import { gradeRun, type RunReport } from '../../src/core/run/grade-run.ts';
import type { GradingPool } from '../../src/engines/grading-pool.ts';
import { repoRoot } from '../helpers/paths.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-grading-pool-'));
const TIMING = new Set([
  'timings_ms',
  'elapsed_ms',
  'started_at',
  'elapsedMs',
  'execution_time_expected_ms',
  'execution_time_actual_ms',
  'execution_time_ratio',
]);
const withoutTimings = (report: unknown) =>
  JSON.stringify(report, (key, value) => (TIMING.has(key) ? undefined : value));
const pools: { close(): Promise<void> }[] = [];
const print = { indent: CASE_REPORT_INDENT, remember: rememberPrinted };
/** Never ends on sql.js: only the watchdog stops it. */
const RUNAWAY = 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r';

async function inputs(
  corpusText: string,
  corpusFile: string,
  runText: string,
): Promise<{ corpus: LoadedCorpus; run: LoadedRun }> {
  const loaded = await loadCorpus(new TextEncoder().encode(corpusText), { file: corpusFile });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  const run = await loadRun(new TextEncoder().encode(runText), {
    file: 'run.jsonl',
    caseIds: loaded.loaded.corpus.cases.map((c) => c.id),
  });
  if (!run.ok) throw new Error(JSON.stringify(run.problems));
  return { corpus: loaded.loaded, run: run.run };
}

function pool(engine: 'duckdb' | 'sqlite', workers: number): GradingPool {
  const p = gradingPoolFor(engine, new Map(), repoRoot, { workers, print });
  pools.push(p);
  return p;
}

afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('grading pool', () => {
  let goldens: { corpus: LoadedCorpus; run: LoadedRun };
  beforeAll(async () => {
    goldens = await inputs(
      readFileSync(path.join(repoRoot, 'fixtures/corpora/execution_goldens.yaml'), 'utf8'),
      'execution_goldens.yaml',
      readFileSync(path.join(repoRoot, 'fixtures/runs/execution_goldens.flawed.jsonl'), 'utf8'),
    );
  });

  // Counterfactual transplants are queued on the engine together: an in-thread engine must run them one at a time as a
  // supervised one does (DuckDB streams one result per connection; interleaved, retail-country-count's transplants got
  // each other's rows and its diagnosis lost the SELECT evidence).
  it('one worker, two workers and a supervised engine per fixture: the same report; --out the same bytes', async () => {
    const supervised = new EnginePool('duckdb', new Map(), repoRoot);
    pools.push(supervised);
    const reference = await gradeRun({ ...goldens, engineFor: supervised.engineFor });
    if (!reference.ok) throw new Error(reference.error.message);

    const reports: RunReport[] = [];
    for (const workers of [1, 2]) {
      const graders = pool('duckdb', workers);
      const out = path.join(dir, `report-${workers}.json`);
      const writer = new RunReportWriter(out, { ...processIo, cwd: dir });
      const order: number[] = [];
      const graded = await gradeRun({
        ...goldens,
        engineFor: graders.engineFor,
        grader: graders,
        onCase: (k, index) => {
          order.push(index);
          writer.add(k, index);
        },
      });
      if (!graded.ok) throw new Error(graded.error.message);
      writer.finish(graded.value);
      expect(order).toEqual(goldens.corpus.corpus.cases.map((_, i) => i));
      // The text printed in the worker is what printing the report here gives.
      expect(readFileSync(out, 'utf8')).toBe(`${prettyJson(JSON.parse(JSON.stringify(graded.value)))}\n`);
      reports.push(graded.value);
    }
    // Compared as values, so a difference shows as a readable diff.
    expect(JSON.parse(withoutTimings(reports[0]))).toEqual(JSON.parse(withoutTimings(reference.value)));
    expect(JSON.parse(withoutTimings(reports[1]))).toEqual(JSON.parse(withoutTimings(reference.value)));
  }, 300_000);

  it('a runaway query on sql.js: sandbox.timeout as with a supervised engine, the worker replaced, the run goes on', async () => {
    const corpus = JSON.stringify({
      corpus: 'runaway',
      version: 1,
      engine: 'sqlite',
      cases: [
        {
          id: 'before',
          fixture: 'retail',
          question: 'How many customers?',
          shape: 'rows',
          reference_sql: 'SELECT count(*) FROM customers',
        },
        {
          id: 'runaway',
          fixture: 'retail',
          question: 'How many customers?',
          shape: 'rows',
          reference_sql: 'SELECT count(*) FROM customers',
        },
        {
          id: 'after',
          fixture: 'retail',
          question: 'How many orders?',
          shape: 'rows',
          reference_sql: 'SELECT count(*) FROM orders',
        },
      ],
    });
    const run = [
      '{"run":{"agent":"t"}}',
      '{"id":"before","sql":"SELECT count(*) FROM customers"}',
      JSON.stringify({ id: 'runaway', sql: RUNAWAY }),
      '{"id":"after","sql":"SELECT count(*) FROM orders"}',
    ].join('\n');
    const { corpus: loaded, run: loadedRun } = await inputs(corpus, 'runaway.json', run);
    const config = { query_timeout_ms: 400 };

    const supervised = new EnginePool('sqlite', new Map(), repoRoot);
    pools.push(supervised);
    const reference = await gradeRun({
      corpus: loaded,
      run: loadedRun,
      engineFor: supervised.engineFor,
      config,
      skipSelfCheck: true,
    });
    if (!reference.ok) throw new Error(reference.error.message);

    const graders = pool('sqlite', 2);
    const graded = await gradeRun({
      corpus: loaded,
      run: loadedRun,
      engineFor: graders.engineFor,
      grader: graders,
      config,
      skipSelfCheck: true,
    });
    if (!graded.ok) throw new Error(graded.error.message);
    expect(graders.restarts).toBeGreaterThanOrEqual(1);
    const [before, stopped, after] = graded.value.cases;
    expect(before!.outcome).toBe('correct');
    expect(after!.outcome).toBe('correct');
    expect(stopped!.report!.validity.execution_error_actual?.code).toBe('sandbox.timeout');
    expect(withoutTimings(graded.value.cases)).toBe(withoutTimings(reference.value.cases));
  }, 300_000);

  it('a slow case holds up only its own worker: the other grades the cases behind it meanwhile', async () => {
    const cases = Array.from({ length: 9 }, (_, i) => ({
      id: `c${i}`,
      fixture: 'retail',
      question: 'How many customers?',
      shape: 'rows',
      reference_sql: 'SELECT count(*) FROM customers',
    }));
    const run = [
      '{"run":{"agent":"t"}}',
      ...cases.map((c, i) => JSON.stringify({ id: c.id, sql: i ? 'SELECT count(*) FROM customers' : RUNAWAY })),
    ];
    const { corpus } = await inputs(
      JSON.stringify({ corpus: 'slow-head', version: 1, engine: 'sqlite', cases }),
      'slow-head.json',
      run.join('\n'),
    );
    const graders = pool('sqlite', 2);
    const config = { ...DEFAULT_EVALUATION_CONFIG, query_timeout_ms: 2_000 };
    // Warm: both workers started and the fixture's home chosen, so the slow case and those behind it share a home.
    await graders.grade(corpus.corpus.cases[1]!, 'SELECT 1', config, 'sqlite');
    const finished: string[] = [];
    await Promise.all(
      corpus.corpus.cases.map((c, i) =>
        graders
          .grade(c, i ? 'SELECT count(*) FROM customers' : RUNAWAY, config, 'sqlite')
          .then(() => finished.push(c.id)),
      ),
    );
    // Pushed to the fixture's home, four cases waited out the 2 s behind the runaway; pulled, at most the one
    // prefetched onto its worker does.
    expect(finished.indexOf('c0')).toBeGreaterThanOrEqual(cases.length - 2);
  }, 300_000);
});
