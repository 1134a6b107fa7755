/**
 * Seed 001's intermediates on request: `--include intermediates` (config
 * include: ["intermediates"]) writes both trees, both full result tables and
 * both schemas into the report, and nothing else changes — on the
 * execution goldens every report is identical with and without it, apart
 * from that section.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { EnginePool } from '../../src/cli/engine-pool.ts';
import { loadCorpus } from '../../src/core/corpus/load-corpus.ts';
import { loadRun } from '../../src/core/corpus/load-run.ts';
import { parseEvaluationRequest } from '../../src/core/evaluation/request.ts';
import { REPORT_SCHEMA } from '../../src/core/report/schema.ts';
import { gradeRun, type RunReport } from '../../src/core/run/grade-run.ts';
import { runCli } from '../helpers/cli.ts';
import { repoRoot } from '../helpers/paths.ts';

// This file tests grading, not fault recovery (tests/engines/sandbox.test.ts does): no warm spare,
// which is a second engine start and fixture load per fixture.
const NO_SPARE = { warmSpare: false };

const validate = new Ajv2020({ allErrors: true, strict: false }).compile(REPORT_SCHEMA);

// A fan-out: counting order lines instead of orders. Both results have one row per customer (more than the 20-row sample).
const EXPECTED = 'SELECT o.customer_id, count(*) AS orders FROM orders o GROUP BY o.customer_id';
const ACTUAL =
  'SELECT o.customer_id, count(*) AS orders FROM orders o JOIN order_items i ON i.order_id = o.order_id GROUP BY o.customer_id';

describe('compare --include intermediates --json', () => {
  it('carries both trees, both full result tables and both schemas; without it they stay out and the verdict is the same', async () => {
    const [withIt, without] = await Promise.all([
      runCli([
        'compare',
        '--fixture',
        'retail',
        '--expected',
        EXPECTED,
        '--actual',
        ACTUAL,
        '--include',
        'intermediates',
        '--json',
      ]),
      runCli(['compare', '--fixture', 'retail', '--expected', EXPECTED, '--actual', ACTUAL, '--json']),
    ]);
    expect(withIt.stderr).toBe('');
    const a = JSON.parse(withIt.stdout);
    const b = JSON.parse(without.stdout);
    expect(validate(a)).toBe(true);
    expect(withIt.code).toBe(without.code);
    expect(a.deterministic_verdict).toBe(b.deterministic_verdict);
    expect(a.deterministic_verdict).toBe('fail');
    expect(b.intermediates).toBeUndefined();
    const i = a.intermediates;
    for (const side of ['expected', 'actual']) {
      const table = i[`${side}_result_table`];
      const total = a.evidence[`${side}_sample`].total_rows;
      expect(total).toBeGreaterThan(20);
      expect(table.rows).toHaveLength(total);
      expect(a.evidence[`${side}_sample`].rows.length).toBeLessThan(total);
      expect(i[`${side}_schema`].map((c: { name: string }) => c.name)).toEqual(['customer_id', 'orders']);
      expect(i[`${side}_schema`][1]).toMatchObject({ kind: 'integer' });
      expect(i[`ast_${side}`]).toMatchObject({ kind: 'select' });
      expect(i[`canonical_ast_${side}`]).toMatchObject({ kind: 'select' });
    }
    expect(JSON.stringify(i.ast_actual)).toContain('order_items');
    expect(JSON.stringify(i.ast_expected)).not.toContain('order_items');
    // The config key is not part of config_hash: it does not change grading.
    expect(a.run_metadata.config_hash).toBe(b.run_metadata.config_hash);
  });

  it('the request config key is validated', () => {
    expect(parseEvaluationRequest({ expected_sql: 'SELECT 1', config: { include: ['intermediates'] } })).toMatchObject({
      ok: true,
      value: { config: { include: ['intermediates'] } },
    });
    const bad = parseEvaluationRequest({ expected_sql: 'SELECT 1', config: { include: ['everything'] } });
    expect(bad).toMatchObject({ ok: false, error: { location: 'config.include' } });
  });
});

describe('the execution goldens with and without intermediates', () => {
  // Both gradings on the same engines (started and loaded once); each run is graded in full.
  let pool: EnginePool | undefined;
  afterAll(async () => pool?.close());
  const bytes = (p: string) => new Uint8Array(readFileSync(path.join(repoRoot, p)));

  async function grade(include: boolean): Promise<RunReport> {
    const corpus = await loadCorpus(bytes('fixtures/corpora/execution_goldens.yaml'), {
      file: 'execution_goldens.yaml',
    });
    if (!corpus.ok) throw new Error(JSON.stringify(corpus.problems));
    const run = await loadRun(bytes('fixtures/runs/execution_goldens.flawed.jsonl'), {
      file: 'flawed.jsonl',
      caseIds: corpus.loaded.corpus.cases.map((c) => c.id),
    });
    if (!run.ok) throw new Error(JSON.stringify(run.problems));
    pool ??= new EnginePool(corpus.loaded.corpus.engine, new Map(), repoRoot, NO_SPARE);
    const graded = await gradeRun({
      corpus: corpus.loaded,
      run: run.run,
      engineFor: pool.engineFor,
      skipSelfCheck: true,
      ...(include ? { config: { include: ['intermediates'] } } : {}),
    });
    if (!graded.ok) throw new Error(graded.error.message);
    return graded.value;
  }

  /** The report without its intermediates and what varies between runs. */
  const comparable = (r: unknown) =>
    JSON.stringify(r, (key, value) => {
      if (key === 'intermediates') return undefined;
      if (key === 'timings_ms' || key === 'engine_version' || key === 'elapsedMs' || /_ms$/.test(key))
        return '<varies>';
      if (key === 'config' && value && typeof value === 'object' && 'include' in value)
        return { ...value, include: undefined };
      return value;
    });

  it(
    'every verdict, outcome and report is identical apart from the intermediates section',
    { timeout: 600_000 },
    async () => {
      const plain = await grade(false);
      const withIt = await grade(true);
      expect(withIt.cases.map((c) => [c.id, c.outcome, c.report?.deterministic_verdict])).toEqual(
        plain.cases.map((c) => [c.id, c.outcome, c.report?.deterministic_verdict]),
      );
      expect(plain.cases.some((c) => c.report?.deterministic_verdict === 'fail')).toBe(true);
      const differ: string[] = [];
      for (const [i, c] of withIt.cases.entries()) {
        const p = plain.cases[i]!;
        if (!c.report || !p.report) continue;
        if (p.report.intermediates !== undefined) differ.push(`${c.id}: intermediates without the request`);
        if (!c.report.intermediates) differ.push(`${c.id}: no intermediates on request`);
        else if (
          c.report.validity.execution_success_expected &&
          c.report.intermediates.expected_result_table?.rows.length !== c.report.evidence.expected_sample?.total_rows
        )
          differ.push(`${c.id}: expected result table not in full`);
        if (comparable(c.report) !== comparable(p.report))
          differ.push(`${c.id}: report differs beyond the intermediates`);
      }
      expect(differ).toEqual([]);
    },
  );
});
