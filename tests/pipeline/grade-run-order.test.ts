/**
 * Grading several cases at once changes nothing but the wall time: on the
 * built-in execution goldens and the flawed sample run (real DuckDB-WASM),
 * a run with 4 cases in flight gives the same report as one case at a time
 * (timings aside), cases arrive in corpus order, and the streamed --out
 * writer produces exactly the bytes of the whole report printed at once.
 * With the app's window (64 in flight), a runaway query holds up only the
 * cases of its own fixture: the other fixture's cases are graded meanwhile.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnginePool } from '../../src/cli/engine-pool.ts';
import { processIo } from '../../src/cli/io.ts';
import { prettyJson } from '../../src/cli/json.ts';
import { RunReportWriter } from '../../src/cli/report-stream.ts';
import { loadCorpus } from '../../src/core/corpus/load-corpus.ts';
import { loadRun, type LoadedRun } from '../../src/core/corpus/load-run.ts';
import type { LoadedCorpus } from '../../src/core/corpus/types.ts';
import { gradeRun, type RunReport } from '../../src/core/run/grade-run.ts';
import { repoRoot } from '../helpers/paths.ts';

// This file tests grading, not fault recovery (tests/engines/sandbox.test.ts does): no warm spare,
// which is a second engine start and fixture load per fixture.
const NO_SPARE = { warmSpare: false };

const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-order-'));
let corpus: LoadedCorpus;
let run: LoadedRun;
let pool: EnginePool;
let oneAtATime: RunReport;

/** Fields that measure time, not the verdict. */
const TIMING = new Set([
  'timings_ms',
  'elapsed_ms',
  'started_at',
  'elapsedMs',
  'execution_time_expected_ms',
  'execution_time_actual_ms',
  'execution_time_ratio',
]);
const withoutTimings = (report: RunReport) =>
  JSON.stringify(report, (key, value) => (TIMING.has(key) ? undefined : value));

beforeAll(async () => {
  const corpusFile = path.join(repoRoot, 'fixtures/corpora/execution_goldens.yaml');
  const loaded = await loadCorpus(new Uint8Array(readFileSync(corpusFile)), { file: 'execution_goldens.yaml' });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  corpus = loaded.loaded;
  const runFile = path.join(repoRoot, 'fixtures/runs/execution_goldens.flawed.jsonl');
  const loadedRun = await loadRun(new Uint8Array(readFileSync(runFile)), {
    file: 'flawed.jsonl',
    caseIds: corpus.corpus.cases.map((c) => c.id),
  });
  if (!loadedRun.ok) throw new Error(JSON.stringify(loadedRun.problems));
  run = loadedRun.run;
  pool = new EnginePool('duckdb', new Map(), repoRoot, NO_SPARE);
}, 120_000);

afterAll(async () => {
  await pool?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('cases in flight', () => {
  it('4 at once: the same report as one at a time, cases in corpus order, the streamed file byte-identical', async () => {
    const one = await gradeRun({ corpus, run, engineFor: pool.engineFor, concurrency: 1, skipSelfCheck: true });
    if (!one.ok) throw new Error(one.error.message);
    oneAtATime = one.value;

    const order: number[] = [];
    const out = path.join(dir, 'report.json');
    const writer = new RunReportWriter(out, { ...processIo, cwd: dir });
    const four = await gradeRun({
      corpus,
      run,
      engineFor: pool.engineFor,
      concurrency: 4,
      skipSelfCheck: true,
      onCase: (k, index) => {
        order.push(index);
        writer.add(k, index);
      },
    });
    if (!four.ok) throw new Error(four.error.message);
    writer.finish(four.value);

    expect(four.value.cases).toHaveLength(corpus.corpus.cases.length);
    expect(order).toEqual(corpus.corpus.cases.map((_, i) => i));
    expect(withoutTimings(four.value)).toBe(withoutTimings(one.value));
    expect(readFileSync(out, 'utf8')).toBe(`${prettyJson(four.value)}\n`);
  }, 240_000);

  it('retainCases: false keeps no case reports; the summary is the same', async () => {
    const seen: string[] = [];
    const lean = await gradeRun({
      corpus,
      run,
      engineFor: pool.engineFor,
      retainCases: false,
      skipSelfCheck: true,
      onCase: (k) => seen.push(k.id),
    });
    if (!lean.ok) throw new Error(lean.error.message);
    expect(lean.value.cases).toEqual([]);
    expect(seen).toEqual(corpus.corpus.cases.map((c) => c.id));
    expect(JSON.stringify(lean.value.summary)).toBe(JSON.stringify(oneAtATime.summary));
  }, 240_000);

  it('a runaway case holds up only its own fixture: with 64 in flight the other fixture is graded meanwhile', async () => {
    const cases = corpus.corpus.cases;
    // Not the first case: the others wait for the first one (graded alone, so that it arrives early).
    const slow = cases.findIndex(
      (c, i) => i > 0 && c.fixture === 'retail' && !!c.referenceSql && c.arm !== 'must_refuse',
    );
    const runaway = 'SELECT count(*) AS n FROM range(100000000000) t(i) WHERE i % 7 = 3';
    const slowRun = {
      ...run,
      records: run.records.map((r) => (r.id === cases[slow]!.id ? { ...r, sql: runaway } : r)),
    };
    const seen: { index: number; step: string; at: number }[] = [];
    const wide = await gradeRun({
      corpus,
      run: slowRun,
      engineFor: pool.engineFor,
      concurrency: 64,
      skipSelfCheck: true,
      config: { query_timeout_ms: 3000 },
      onProgress: (e) => seen.push({ index: e.index, step: e.step, at: performance.now() }),
    });
    if (!wide.ok) throw new Error(wide.error.message);
    const slowDone = seen.find((e) => e.index === slow && e.step === 'done')!.at;
    const monthly = cases.flatMap((c, i) => (c.fixture === 'retail_monthly' ? [i] : []));
    const executedBefore = monthly.filter((i) =>
      seen.some((e) => e.index === i && e.step === 'execute' && e.at < slowDone),
    );
    expect(monthly.length).toBeGreaterThan(10);
    // Unanswered or refusal cases of that fixture have no execute step; every other one ran before the runaway ended.
    const executed = monthly.filter((i) => seen.some((e) => e.index === i && e.step === 'execute'));
    expect(executedBefore).toEqual(executed);
    expect(executed.length).toBeGreaterThan(10);
    // The runaway timed out; every other case's report is the one graded one at a time.
    expect(wide.value.cases[slow]!.report?.validity.execution_error_actual?.code).toBe('sandbox.timeout');
    // (The case reports name the run's config, here with the shorter timeout.)
    const caseOf = (r: RunReport, i: number) =>
      JSON.stringify(r.cases[i], (key, value) =>
        TIMING.has(key) || key === 'config' || key === 'config_hash' ? undefined : value,
      );
    for (const i of cases.keys()) if (i !== slow) expect(caseOf(wide.value, i)).toBe(caseOf(oneAtATime, i));
  }, 240_000);
});
