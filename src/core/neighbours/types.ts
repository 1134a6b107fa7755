/**
 * The shapes of the neighbour layer (SPEC 4.1): a generated neighbour's
 * rows and what the generator changed, and the evidence a case report
 * carries about the neighbours it was checked on.
 */
import type { JsonResultTable } from '../value/json-codec.ts';
import type { Cell } from '../value/kind.ts';

export interface TableChanges {
  table: string;
  rows_before: number;
  rows_after: number;
  dropped: number;
  duplicated: number;
  perturbed: number;
  nulled: number;
  planted: number;
  tied: number;
  /** The table's rows were written in another order than the fixture's (generator v4). */
  reordered: boolean;
}

export interface NeighbourData {
  seed: number;
  tables: { name: string; rows: Cell[][] }[];
  changes: TableChanges[];
}

export interface NeighbourCounterexample {
  index: number;
  seed: number;
  /** What the generator changed, per table. */
  changes: TableChanges[];
  /** Why the results differ (the comparison's reasons, or the candidate's error). */
  reasons: { code: string; message: string }[];
  expected_rows: number;
  actual_rows: number | null;
  /** Rows of one side with no equal row on the other (by value, in the reference's column order when aligned). */
  only_expected: string[][];
  only_actual: string[][];
  expected_sample: JsonResultTable & { total_rows: number };
  actual_sample: (JsonResultTable & { total_rows: number }) | null;
  actual_error: string | null;
}

export interface NeighbourEvidence {
  requested: number;
  generator_version: number;
  base_seed: number;
  /** Neighbours on which both queries ran and were compared. */
  checked: number;
  agreed: number;
  discarded: { index: number; seed: number; reason: string }[];
  budget_ms: number;
  budget_exhausted: boolean;
  elapsed_ms: number;
  /** Why no neighbour ran (too large a fixture, a nondeterministic reference...), else null. */
  skipped: string | null;
  counterexample: NeighbourCounterexample | null;
  /** What the plan read from the queries (literals per column, tie columns). */
  plan: { hints: number; tie_columns: string[] };
}
