/**
 * The sample runs graded by the real pipeline (src/core/run/grade-run.ts):
 * every case must end with the outcome its side file expects, and every
 * planted mistake must be blamed on the clause the side file names — except
 * the attributions listed in KNOWN_ATTRIBUTION_GAPS, a ratchet that fails as
 * soon as one of them is fixed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadCorpus, loadRun } from '../../src/core/corpus/index.ts';
import { gradeRun } from '../../src/core/run/grade-run.ts';
import { EnginePool } from '../../src/cli/engine-pool.ts';
import type { ExpectedOutcome } from '../../scripts/fixtures/runs/plan.ts';
import { repoRoot } from '../helpers/paths.ts';

const RUNS = [
  ['execution_goldens.strong.json', 'fixtures/corpora/execution_goldens.yaml'],
  ['execution_goldens.flawed.jsonl', 'fixtures/corpora/execution_goldens.yaml'],
  ['refusal_battery.strong.json', 'fixtures/corpora/refusal_battery.yaml'],
  ['refusal_battery.flawed.jsonl', 'fixtures/corpora/refusal_battery.yaml'],
] as const;

/** Planted mistakes the diagnosis currently blames on another clause: `${run} ${id}` → the clause it names today. */
const KNOWN_ATTRIBUTION_GAPS: Record<string, string> = {
  'execution_goldens.strong.json monthly-yoy-2025-vs-2024': 'selection_predicate',
  'execution_goldens.flawed.jsonl retail-avg-order-value': 'selection_predicate',
  'execution_goldens.flawed.jsonl retail-top3-products-by-units': 'aggregation_grain',
  'execution_goldens.flawed.jsonl monthly-qoq-revenue-change': 'join',
  'execution_goldens.flawed.jsonl monthly-rolling-3-month-average': 'projection',
};

const read = (p: string) => new Uint8Array(readFileSync(path.join(repoRoot, p)));

describe('sample runs graded by the pipeline', () => {
  it.each(RUNS)('%s', async (runFile, corpusFile) => {
    const corpus = await loadCorpus(read(corpusFile), { file: corpusFile });
    if (!corpus.ok) throw new Error(corpusFile);
    const run = await loadRun(read(`fixtures/runs/${runFile}`), { file: runFile, caseIds: corpus.loaded.corpus.cases.map((c) => c.id) });
    if (!run.ok) throw new Error(runFile);
    const expected: Record<string, ExpectedOutcome> = parse(readFileSync(path.join(repoRoot, 'fixtures/runs', runFile.replace(/\.jsonl?$/, '.expected-outcomes.yaml')), 'utf8')).outcomes;
    const pool = new EnginePool(corpus.loaded.corpus.engine, new Map(), repoRoot);
    try {
      const graded = await gradeRun({ corpus: corpus.loaded, run: run.run, engineFor: pool.engineFor });
      if (!graded.ok) throw new Error(graded.error.message);
      expect(graded.value.self_check.passed).toBe(true);
      expect(graded.value.fixtures.every((f) => f.unchanged)).toBe(true);
      const outcomes = graded.value.cases.map((c) => [c.id, c.outcome]);
      expect(outcomes).toEqual(graded.value.cases.map((c) => [c.id, expected[c.id]!.outcome]));
      const attribution: string[] = [];
      for (const c of graded.value.cases) {
        const want = expected[c.id]!.likely_source_clause;
        if (!want) continue;
        const got = c.report?.diagnostic_scores?.likely_source_clause ?? null;
        const gap = KNOWN_ATTRIBUTION_GAPS[`${runFile} ${c.id}`];
        if (gap === undefined && got !== want) attribution.push(`${c.id}: blamed ${got}, expected ${want}`);
        if (gap !== undefined && got !== gap) attribution.push(`${c.id}: blamed ${got}; the known gap (${gap}) changed — expected ${want}; update KNOWN_ATTRIBUTION_GAPS`);
      }
      expect(attribution).toEqual([]);
    } finally {
      await pool.close();
    }
  }, 300_000);
});
