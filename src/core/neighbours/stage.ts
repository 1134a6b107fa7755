/**
 * The neighbour stage (SPEC 4.1): a case that passes on its fixture is run on
 * K generated neighbour databases. A neighbour on which the reference fails,
 * or is unstable (its LIMIT cuts a tie, keeps some of an unordered result, or keeps rows by where NULLs sort),
 * is discarded, not counted. The first neighbour on which the candidate's
 * result differs is the counterexample: the case fails with
 * `coincidental_match`, and evidence.neighbours names the neighbour's seed,
 * what was changed, and the rows that differ — regenerated from the fixture,
 * the two queries and that seed alone.
 */
import { lintReferenceText } from '../corpus/lint.ts';
import { canonicalCell } from '../digest/canonical-dump.ts';
import type { Compared } from '../evaluation/case-record.ts';
import type { Engine, ExecuteOutcome } from '../engine.ts';
import { limitTieStatus, nullOrderStatus } from '../oracle/limit-tie.ts';
import type { Warning } from '../report/report.ts';
import { compareResults } from '../result/compare.ts';
import { resultVerdict, type CoincidentalMatch } from '../result/types.ts';
import { encodeResultTable } from '../value/json-codec.ts';
import type { Cell, ResultTable } from '../value/kind.ts';
import { GENERATOR_VERSION, generateNeighbour, neighbourDump, neighbourSeed } from './generate.ts';
import type { NeighbourHost } from './host.ts';
import { planNeighbours, type NeighbourPlan } from './plan.ts';
import type { NeighbourCounterexample, NeighbourEvidence, TableChanges } from './types.ts';

export type { NeighbourCounterexample, NeighbourEvidence } from './types.ts';

export const DEFAULT_NEIGHBOUR_SEED = 1;
export const DEFAULT_NEIGHBOUR_BUDGET_MS = 10_000;
const SAMPLE_ROWS = 10;

function sample(table: ResultTable) {
  return {
    ...encodeResultTable({ columns: table.columns, rows: table.rows.slice(0, SAMPLE_ROWS) }),
    total_rows: table.rows.length,
  };
}

/** Rows (as canonical text) of `a` that `b` lacks, bag-wise; both in the same column order. */
function rowsMissing(a: ResultTable, b: ResultTable): string[][] {
  const text = (t: ResultTable, row: readonly Cell[]) => row.map((cell, i) => canonicalCell(t.columns[i]!, cell));
  const counts = new Map<string, number>();
  for (const row of b.rows) {
    const k = text(b, row).join('\t');
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const out: string[][] = [];
  for (const row of a.rows) {
    const cells = text(a, row);
    const k = cells.join('\t');
    const n = counts.get(k) ?? 0;
    if (n > 0) counts.set(k, n - 1);
    else if (out.length < SAMPLE_ROWS) out.push(cells);
  }
  return out;
}

export type WithNeighbours = Compared & { neighbours: NeighbourEvidence | null };

/** Run the case on its neighbours when it passed and neighbours are on; otherwise the record unchanged (neighbours: null). */
export async function neighbourStage(c: Compared, host: NeighbourHost | undefined): Promise<WithNeighbours> {
  const k = c.config.neighbours ?? 0;
  if (!host || k <= 0 || !c.pass || resultVerdict(c.result) !== 'pass' || !c.actualSql)
    return { ...c, neighbours: null };
  const started = c.now();
  const evidence = emptyEvidence(c, k);
  const found = await searchNeighbours(c, host, evidence, started);
  evidence.elapsed_ms = Math.round((c.now() - started) * 1000) / 1000;
  return {
    ...c,
    ...(found ? { result: coincidentalResult(c, found), pass: false } : {}),
    neighbours: evidence,
    timings: { ...c.timings, compare: c.timings.compare + (c.now() - started) },
  };
}

function emptyEvidence(c: Compared, requested: number): NeighbourEvidence {
  return {
    requested,
    generator_version: GENERATOR_VERSION,
    base_seed: c.config.neighbour_seed ?? DEFAULT_NEIGHBOUR_SEED,
    checked: 0,
    agreed: 0,
    discarded: [],
    budget_ms: c.config.neighbour_budget_ms ?? DEFAULT_NEIGHBOUR_BUDGET_MS,
    budget_exhausted: false,
    elapsed_ms: 0,
    skipped: null,
    counterexample: null,
    plan: { hints: 0, tie_columns: [] },
  };
}

/** Neighbour after neighbour until one is a counterexample (returned, and recorded in `evidence`), the budget runs out or all agree. */
async function searchNeighbours(
  c: Compared,
  host: NeighbourHost,
  evidence: NeighbourEvidence,
  started: number,
): Promise<NeighbourCounterexample | null> {
  // A reference that reads randomness or an unfrozen clock differs between databases anyway.
  const unstable = lintReferenceText(c.request.expected_sql, true);
  if (unstable.length) {
    evidence.skipped = `the reference is not deterministic (${unstable[0]!.message})`;
    return null;
  }
  const fixture = c.request.context.fixture ?? 'fixture';
  const snapshot = await host.snapshot(c.engine, fixture);
  if (!snapshot.ok) {
    evidence.skipped = snapshot.error.message;
    return null;
  }
  const plan: NeighbourPlan = planNeighbours(
    [c.request.expected_sql, c.actualSql!],
    snapshot.value.tables.flatMap((t) => t.columns.map((col) => col.name)),
  );
  evidence.plan = { hints: plan.hints.length, tie_columns: plan.tieColumns };
  for (let index = 0; index < evidence.requested; index++) {
    if (c.now() - started > evidence.budget_ms) {
      evidence.budget_exhausted = true;
      break;
    }
    const seed = neighbourSeed(evidence.base_seed, index);
    const data = generateNeighbour(snapshot.value, plan, seed);
    const dump = neighbourDump(snapshot.value, data);
    if ('unsupported' in dump) {
      evidence.skipped = `no neighbour can be written: ${dump.unsupported}`;
      break;
    }
    const ran = await host.withNeighbour(c.engine.name, fixture, dump.sql, (scratch) => bothOnNeighbour(c, scratch));
    if (!ran.ok) {
      evidence.discarded.push({ index, seed, reason: ran.error.message });
      continue;
    }
    if ('discard' in ran.value) {
      evidence.discarded.push({ index, seed, reason: ran.value.discard });
      continue;
    }
    evidence.checked++;
    const found = counterexampleOf(c, evidence, { index, seed, changes: data.changes }, ran.value);
    if (found) return (evidence.counterexample = found);
  }
  return null;
}

type NeighbourRun = { readonly discard: string } | { readonly expected: ResultTable; readonly actual: ExecuteOutcome };

/** Both queries on one neighbour, unless the reference fails there or its LIMIT is unstable there. */
async function bothOnNeighbour(c: Compared, scratch: Engine): Promise<NeighbourRun> {
  const exec = c.execOptions;
  const expected = await scratch.execute(c.request.expected_sql, exec);
  if (!expected.ok) return { discard: `the reference fails on it: ${expected.error.message}` };
  const columns = expected.value.columns.map((col) => col.name);
  const tie = await limitTieStatus(scratch, c.request.expected_sql, columns, exec);
  if (tie.kind === 'tie' || tie.kind === 'unordered')
    return {
      discard:
        tie.kind === 'tie'
          ? 'the reference LIMIT cuts through a tie'
          : 'the reference LIMIT keeps some rows of an unordered result',
    };
  const nullOrder = await nullOrderStatus(scratch, c.request.expected_sql, columns, exec);
  if (nullOrder.kind === 'engine_null_order')
    return { discard: 'the reference LIMIT keeps rows by where NULLs sort, which is the engine’s choice' };
  const actual: ExecuteOutcome = await scratch.execute(c.actualSql!, exec);
  return { expected: expected.value, actual };
}

/** The neighbour's verdict: null when the results agree (or the comparison is undecided, a discard), else the counterexample. */
function counterexampleOf(
  c: Compared,
  evidence: NeighbourEvidence,
  at: { index: number; seed: number; changes: TableChanges[] },
  { expected, actual }: { expected: ResultTable; actual: ExecuteOutcome },
): NeighbourCounterexample | null {
  let reasons: { code: string; message: string }[];
  let onlyExpected: string[][] = [];
  let onlyActual: string[][] = [];
  if (actual.ok) {
    const compared = compareResults(expected, actual.value, c.comparison, {
      ...(c.request.context.shape ? { shape: c.request.context.shape } : {}),
      orderKeys: c.orderKeys,
    });
    const verdict = resultVerdict(compared);
    if (verdict === 'pass' || verdict === 'undecided') {
      evidence.agreed += verdict === 'pass' ? 1 : 0;
      if (verdict === 'undecided')
        evidence.discarded.push({ index: at.index, seed: at.seed, reason: 'the comparison was undecided on it' });
      return null;
    }
    reasons = compared.reasons.slice(0, 3).map((r) => ({ code: r.code, message: r.message }));
    [onlyExpected, onlyActual] = rowsApart(expected, actual.value, compared.column_alignment.mapping);
  } else
    reasons = [{ code: 'candidate_error', message: `The candidate fails on this neighbour: ${actual.error.message}` }];
  return {
    index: at.index,
    seed: at.seed,
    changes: at.changes.filter(
      (t) => t.dropped || t.duplicated || t.perturbed || t.nulled || t.planted || t.tied || t.reordered,
    ),
    reasons,
    expected_rows: expected.rows.length,
    actual_rows: actual.ok ? actual.value.rows.length : null,
    only_expected: onlyExpected,
    only_actual: onlyActual,
    expected_sample: sample(expected),
    actual_sample: actual.ok ? sample(actual.value) : null,
    actual_error: actual.ok ? null : actual.error.message,
  };
}

/** With every column aligned: the rows each side has that the other lacks, in the reference's column order. */
function rowsApart(
  expected: ResultTable,
  actual: ResultTable,
  mapping: readonly { expected_index: number; actual_index: number }[],
): [string[][], string[][]] {
  if (mapping.length !== expected.columns.length || actual.columns.length !== expected.columns.length) return [[], []];
  const order: number[] = [];
  for (const m of mapping) order[m.expected_index] = m.actual_index;
  const projected: ResultTable = {
    columns: order.map((i) => actual.columns[i]!),
    rows: actual.rows.map((r) => order.map((i) => r[i] ?? null)),
  };
  return [rowsMissing(expected, projected), rowsMissing(projected, expected)];
}

/** The case's result, failed with the counterexample's `coincidental_match` reason first. */
function coincidentalResult(c: Compared, found: NeighbourCounterexample): Compared['result'] {
  const reason: CoincidentalMatch = {
    code: 'coincidental_match',
    neighbour_index: found.index,
    neighbour_seed: found.seed,
    message: `Coincidental match: the results agree on the fixture but not on neighbour database ${found.index + 1} (seed ${found.seed}, base seed ${c.config.neighbour_seed ?? DEFAULT_NEIGHBOUR_SEED}): ${found.reasons[0]?.message ?? 'the results differ'}`,
  };
  return {
    ...c.result,
    reasons: [reason, ...c.result.reasons],
    result_equality_family: { ...c.result.result_equality_family, mode_pass: false },
  };
}

/** The warning a report carries when neighbours were asked for but could not run. */
export function neighbourWarnings(evidence: NeighbourEvidence | null | undefined): Warning[] {
  if (!evidence) return [];
  const out: Warning[] = [];
  if (evidence.skipped)
    out.push({ code: 'neighbours_skipped', message: `No neighbour database was checked: ${evidence.skipped}.` });
  else if (evidence.budget_exhausted)
    out.push({
      code: 'neighbours_budget',
      message: `Neighbour budget (${evidence.budget_ms} ms) reached after ${evidence.checked} of ${evidence.requested} neighbours.`,
    });
  return out;
}
