/**
 * The built-in sample runs graded end to end (corpus → self-check → every
 * case through the pipeline): each case ends with the outcome its side file
 * expects, each planted mistake is blamed on the expected clause, the strong
 * run passes its own recorded baseline, the flawed run is blocked, and every
 * per-case report of the flawed goldens run matches its committed golden
 * (`tests/golden/flawed-run/*.json`; UPDATE_GOLDEN=1 rewrites them; a missing
 * golden fails; a differing one leaves `<id>.actual.json` beside it).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadCorpus } from '../../src/core/corpus/load-corpus.ts';
import { loadRun } from '../../src/core/corpus/load-run.ts';
import { recordBaseline } from '../../src/core/gate/baseline.ts';
import { applyGate } from '../../src/core/gate/gate.ts';
import type { EvaluationReport } from '../../src/core/report/report.ts';
import { REPORT_SCHEMA } from '../../src/core/report/schema.ts';
import { gradeRun, type RunReport } from '../../src/core/run/grade-run.ts';
import { EnginePool } from '../../src/cli/engine-pool.ts';
import { repoRoot } from '../helpers/paths.ts';

// This file tests grading, not fault recovery (tests/engines/sandbox.test.ts does): no warm spare,
// which is a second engine start and fixture load per fixture.
const NO_SPARE = { warmSpare: false };

const validate = new Ajv2020({ allErrors: true, strict: false }).compile(REPORT_SCHEMA);
// One pool per corpus: the strong and the flawed run of a corpus grade on the same engines (as one
// CLI process would); each run still checks the fixtures' digests before and after.
const pools = new Map<string, EnginePool>();
afterAll(async () => Promise.all([...pools.values()].map((p) => p.close())));

const bytes = (p: string) => new Uint8Array(readFileSync(path.join(repoRoot, p)));

async function grade(corpusFile: string, runFile: string): Promise<RunReport> {
  const corpus = await loadCorpus(bytes(corpusFile), { file: corpusFile });
  if (!corpus.ok) throw new Error(JSON.stringify(corpus.problems));
  const run = await loadRun(bytes(runFile), { file: runFile, caseIds: corpus.loaded.corpus.cases.map((c) => c.id) });
  if (!run.ok) throw new Error(JSON.stringify(run.problems));
  const pool = pools.get(corpusFile) ?? new EnginePool(corpus.loaded.corpus.engine, new Map(), repoRoot, NO_SPARE);
  pools.set(corpusFile, pool);
  const graded = await gradeRun({ corpus: corpus.loaded, run: run.run, engineFor: pool.engineFor });
  if (!graded.ok) throw new Error(graded.error.message);
  return graded.value;
}

interface Expected {
  outcomes: Record<string, { outcome: string; likely_source_clause?: string; category?: string }>;
}

/** The report without what legitimately varies between runs (timings, engine build). */
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

const reports = new Map<string, RunReport>();
const runs = [
  ['fixtures/corpora/execution_goldens.yaml', 'fixtures/runs/execution_goldens.strong.json'],
  ['fixtures/corpora/execution_goldens.yaml', 'fixtures/runs/execution_goldens.flawed.jsonl'],
  ['fixtures/corpora/refusal_battery.yaml', 'fixtures/runs/refusal_battery.strong.json'],
  ['fixtures/corpora/refusal_battery.yaml', 'fixtures/runs/refusal_battery.flawed.jsonl'],
] as const;

describe.each(runs)('%s graded with %s', (corpusFile, runFile) => {
  it(
    'every case ends as its side file expects, and every wrong answer is blamed on the expected clause',
    { timeout: 600_000 },
    async () => {
      const report = await grade(corpusFile, runFile);
      reports.set(runFile, report);
      const expected = parse(
        readFileSync(path.join(repoRoot, runFile.replace(/\.jsonl?$/, '.expected-outcomes.yaml')), 'utf8'),
      ) as Expected;
      const mismatches: string[] = [];
      for (const c of report.cases) {
        const e = expected.outcomes[c.id];
        if (!e) {
          mismatches.push(`${c.id}: no expectation`);
          continue;
        }
        if (e.outcome !== c.outcome) mismatches.push(`${c.id}: outcome ${c.outcome}, expected ${e.outcome}`);
        const source = c.report?.diagnostic_scores?.likely_source_clause ?? null;
        if (e.likely_source_clause && e.likely_source_clause !== source)
          mismatches.push(`${c.id} (${e.category}): blamed ${source}, expected ${e.likely_source_clause}`);
        if (c.report && !validate(JSON.parse(JSON.stringify(c.report))))
          mismatches.push(`${c.id}: report does not match docs/report.schema.json`);
        if (c.outcome !== 'correct' && c.outcome !== 'correct_refusal' && !c.reason)
          mismatches.push(`${c.id}: failure without a reason`);
      }
      expect(mismatches).toEqual([]);
      expect(report.fixtures.every((f) => f.unchanged)).toBe(true);
    },
  );
});

describe('the release gate on the sample runs', () => {
  it('the strong run passes its own recorded baseline; the flawed run is blocked with the failing arm and case ids named', () => {
    for (const corpus of ['execution_goldens', 'refusal_battery']) {
      const strong = reports.get(runs.find(([, r]) => r.includes(`${corpus}.strong`))![1])!;
      const flawed = reports.get(runs.find(([, r]) => r.includes(`${corpus}.flawed`))![1])!;
      const baseline = recordBaseline(strong.summary, { date: '2026-11-30' });
      if (!baseline.ok) throw new Error(baseline.error.message);
      expect(applyGate(strong.summary, baseline.value)).toMatchObject({ status: 'pass', exit_code: 0 });
      const sameModel = {
        ...flawed.summary,
        run: { ...flawed.summary.run, model: strong.summary.run.model, path: strong.summary.run.path },
      };
      const gate = applyGate(sameModel, baseline.value);
      expect(gate.status).toBe('blocked');
      expect(gate.exit_code).toBe(1);
      const failing = gate.checks.filter((c) => c.status === 'blocked');
      expect(failing.length).toBeGreaterThan(0);
      expect(failing.some((c) => c.case_ids.length > 0 || /\d+\/\d+/.test(c.arithmetic))).toBe(true);
      // Another model is refused, not compared.
      expect(applyGate(flawed.summary, baseline.value).exit_code).toBe(
        strong.summary.run.model === flawed.summary.run.model ? 1 : 2,
      );
    }
  });
});

describe('golden reports of the flawed goldens run', () => {
  it('every per-case report matches tests/golden/flawed-run/<id>.json', () => {
    const report = reports.get('fixtures/runs/execution_goldens.flawed.jsonl')!;
    const dir = path.join(repoRoot, 'tests', 'golden', 'flawed-run');
    const differ: string[] = [];
    mkdirSync(dir, { recursive: true });
    for (const c of report.cases) {
      const file = path.join(dir, `${c.id}.json`);
      const actual = `${JSON.stringify(stable(c.report ?? ({ outcome: c.outcome, reason: c.reason } as unknown as EvaluationReport)), null, 2)}\n`;
      // A mismatch leaves the new report beside its golden (git ignores *.actual.json), so
      // `diff <id>.json <id>.actual.json` shows what changed; a match removes a stale one.
      const actualFile = path.join(dir, `${c.id}.actual.json`);
      if (process.env.UPDATE_GOLDEN) writeFileSync(file, actual);
      else if (!existsSync(file)) differ.push(`${c.id}: golden missing (run with UPDATE_GOLDEN=1 to create it)`);
      else if (readFileSync(file, 'utf8') !== actual) {
        writeFileSync(actualFile, actual);
        differ.push(`${c.id}: report differs from its golden; see ${path.relative(repoRoot, actualFile)}`);
        continue;
      }
      rmSync(actualFile, { force: true });
    }
    expect(differ).toEqual([]);
  });
});
