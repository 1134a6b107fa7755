/**
 * The full deterministic pipeline on the built-in goldens in Node: cases per
 * second for grading the strong sample run (self-check excluded), with the
 * engine's own query time separated from everything else (parse, compare,
 * diagnose, worker round trips).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { EnginePool } from '../src/cli/engine-pool.ts';
import { loadCorpus } from '../src/core/corpus/load-corpus.ts';
import { loadRun } from '../src/core/corpus/load-run.ts';
import { gradeRun } from '../src/core/run/grade-run.ts';
import type { Figure } from './harness.ts';

export async function benchPipeline(repoRoot: string): Promise<Figure[]> {
  const read = (p: string) => new Uint8Array(readFileSync(path.join(repoRoot, p)));
  const corpus = await loadCorpus(read('fixtures/corpora/execution_goldens.yaml'), { file: 'execution_goldens.yaml' });
  if (!corpus.ok) throw new Error('corpus');
  const run = await loadRun(read('fixtures/runs/execution_goldens.flawed.jsonl'), {
    file: 'flawed.jsonl',
    caseIds: corpus.loaded.corpus.cases.map((c) => c.id),
  });
  if (!run.ok) throw new Error('run');
  const pool = new EnginePool('duckdb', new Map(), repoRoot);
  try {
    // Warm: engines started and fixtures loaded before timing.
    for (const f of new Set(corpus.loaded.corpus.cases.map((c) => c.fixture))) await pool.engineFor(f);
    const started = performance.now();
    const graded = await gradeRun({
      corpus: corpus.loaded,
      run: run.run,
      engineFor: pool.engineFor,
      skipSelfCheck: true,
    });
    const wall = performance.now() - started;
    if (!graded.ok) throw new Error(graded.error.message);
    let engineMs = 0;
    let queries = 0;
    for (const c of graded.value.cases) {
      const v = c.report?.validity;
      if (!v) continue;
      engineMs += (v.execution_time_expected_ms ?? 0) + (v.execution_time_actual_ms ?? 0);
      queries += 2 + (c.report?.evidence.counterfactuals.length ?? 0);
    }
    const cases = graded.value.cases.length;
    return [
      { name: 'node.pipeline.cases_per_s', value: (cases / wall) * 1000, unit: 'cases/s', lowerIsBetter: false },
      { name: 'node.pipeline.ms_per_case', value: wall / cases, unit: 'ms' },
      {
        name: 'node.pipeline.engine_ms_per_case',
        value: engineMs / cases,
        unit: 'ms (reference + candidate in the engine)',
      },
      {
        name: 'node.pipeline.other_ms_per_case',
        value: (wall - engineMs) / cases,
        unit: 'ms (parse, compare, diagnose, counterfactuals, worker hops)',
      },
      { name: 'node.pipeline.queries_per_case', value: queries / cases, unit: 'queries' },
    ];
  } finally {
    await pool.close();
  }
}
