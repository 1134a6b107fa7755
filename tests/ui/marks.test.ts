/**
 * Row shading of the case view, from a real evaluation: the demo run's monthly-orders-by-month
 * (24 months, newest first; the case wants calendar order) is out of order, and its capped samples
 * (20 rows a side) must not shade rows as "missing from the candidate".
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluationRequest } from '../../src/core/evaluation/request.ts';
import { evaluate } from '../../src/core/pipeline.ts';
import type { EvaluationReport } from '../../src/core/report/report.ts';
import { openEngine } from '../../src/engines/node.ts';
import type { SupervisedEngine } from '../../src/engines/supervisor.ts';
import { computeMarks, samplesWhole } from '../../src/ui/components/case/marks.ts';
import { sqlFixture } from '../helpers/fixtures.ts';
import { repoRoot } from '../helpers/paths.ts';

const REFERENCE =
  "SELECT CAST(date_trunc('month', order_ts) AS DATE) AS month, count(*) AS orders FROM orders GROUP BY month ORDER BY month";
let engine: SupervisedEngine;
let report: EvaluationReport;

beforeAll(async () => {
  engine = openEngine('duckdb');
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'fixtures/fixtures.json'), 'utf8')) as {
    fixtures: Record<string, { as_of?: string }>;
  };
  const loaded = await engine.load(
    sqlFixture(
      'retail_monthly',
      readFileSync(path.join(repoRoot, 'fixtures/retail_monthly.sql'), 'utf8'),
      manifest.fixtures.retail_monthly?.as_of,
    ),
  );
  if (!loaded.ok) throw new Error(loaded.error.message);
  report = await evaluate(
    evaluationRequest({
      expected_sql: REFERENCE,
      actual_sql: `${REFERENCE} DESC`,
      context: { fixture: 'retail_monthly', order_matters: true, shape: 'time_series' },
    }),
    engine,
  );
}, 120_000);
afterAll(async () => engine?.close());

describe('case view marks', () => {
  it('a result that is only out of order, seen through capped samples, marks no row missing or extra', () => {
    expect(report.deterministic_verdict).toBe('fail');
    const ev = report.evidence;
    expect(ev.expected_sample!.rows.length).toBeLessThan(ev.expected_sample!.total_rows);
    expect(samplesWhole(ev)).toBe(false);
    const marks = computeMarks(ev.result, ev.expected_sample!.rows, ev.actual_sample!.rows, samplesWhole(ev));
    expect([...marks.expected.rows, ...marks.actual.rows]).toEqual([]);
    // Treating the capped samples as whole (what the view did) shades rows as missing.
    expect(
      computeMarks(ev.result, ev.expected_sample!.rows, ev.actual_sample!.rows, true).expected.rows.size,
    ).toBeGreaterThan(0);
  });

  it('whole samples still mark a row that has no equal on the other side', () => {
    const rows = report.evidence.expected_sample!.rows.slice(0, 5);
    const marks = computeMarks(report.evidence.result, rows, rows.slice(1), true);
    expect([...marks.expected.rows]).toEqual([0]);
  });
});
