/**
 * Layer 4 as a stage: for a failing case, the clause transplants executed as
 * counterfactuals (queued on the engine together, then compared), and the
 * attribution of the failure to a clause.
 */
import { canonicalCell } from '../digest/canonical-dump.ts';
import type { Diagnosed, Tolerated } from '../evaluation/case-record.ts';
import { resultsAgree } from '../result/compare.ts';
import { identicalResults } from '../result/identical.ts';
import type { ResultTable } from '../value/kind.ts';
import { diagnose } from './attribute.ts';
import type { CounterfactualResult } from './types.ts';
import { planTransplants } from './transplant.ts';

/** Rows that repeat an earlier row (counted on at most 200,000 rows). */
function duplicateRows(table: ResultTable): number {
  const seen = new Set<string>();
  let repeats = 0;
  for (const row of table.rows.slice(0, 200_000)) {
    const key = row.map((cell, i) => canonicalCell(table.columns[i]!, cell)).join('\t');
    if (seen.has(key)) repeats++;
    else seen.add(key);
  }
  return repeats;
}

async function counterfactuals(c: Tolerated): Promise<CounterfactualResult[]> {
  const { config, parsed } = c;
  if (
    c.pass ||
    !config.enable_counterfactuals ||
    !parsed.expected.ok ||
    !parsed.actual?.ok ||
    config.max_counterfactuals <= 0
  )
    return [];
  const transplants = planTransplants(
    parsed.expected.value.query,
    parsed.actual.value.query,
    c.dialect,
    config.max_counterfactuals,
  );
  // One batch per case: every transplant is queued on the engine at once (it runs them in order).
  const runs = await Promise.all(transplants.map((t) => c.engine.execute(t.sql, c.execOptions)));
  return transplants.map((transplant, i): CounterfactualResult => {
    const run = runs[i]!;
    if (!run.ok) return { transplant, executed: false, agrees: false, error: run.error.message };
    const target = transplant.direction === 'candidate_with_reference_clause' ? c.tables.expected : c.tables.actual;
    // A transplant that gives back the target's very table agrees under every mode: no comparison needed.
    const agrees =
      identicalResults(target, run.value) || resultsAgree(target, run.value, c.comparison, { orderKeys: c.orderKeys });
    return { transplant, executed: true, agrees };
  });
}

export async function diagnoseStage(c: Tolerated): Promise<Diagnosed> {
  const t = c.now();
  const cfs = await counterfactuals(c);
  const { parsed } = c;
  const diagnosis = diagnose({
    result: c.result,
    clauseMatch: c.clauseMatch,
    expectedFeatures: parsed.expectedFeatures,
    actualFeatures: parsed.actualFeatures,
    counterfactuals: cfs,
    orderMatters: c.orderMatters,
    expectedSql: c.request.expected_sql,
    actualSql: c.actualSql!,
    expectedQuery: parsed.expected.ok ? parsed.expected.value.query : null,
    actualQuery: parsed.actual?.ok ? parsed.actual.value.query : null,
    actualDuplicateRows: c.pass ? 0 : duplicateRows(c.tables.actual),
  });
  return { ...c, counterfactuals: cfs, diagnosis, timings: { ...c.timings, diagnose: c.now() - t } };
}
