/**
 * The record one result comparison builds up, step by step (compare.ts):
 * each step reads the steps before it and adds its own part; none writes
 * into another's.
 */
import type { AlignmentChoice, MappingEvaluation } from './alignment.ts';
import type { CellPairs } from './cell-align.ts';
import type { ComparisonConfig } from './config.ts';
import type { Evaluator, SetResult } from './evaluation.ts';
import type { CellStats } from './evidence.ts';
import type { OrderResult } from './order-check.ts';
import type { ListMatch } from './row-match.ts';
import type { Side } from './side.ts';
import type { ColumnRef, CompareOptions, ComparisonWarning, ModeOutcome, NamedColumn, Reason } from './types.ts';
import type { Tolerance } from './value-policy.ts';

/** 1. The policy and both sides. */
export interface ComparisonSetup {
  cfg: ComparisonConfig;
  options: CompareOptions;
  tol: Tolerance;
  E: Side;
  A: Side;
  mode: ComparisonConfig['comparison_mode'];
  /** Set semantics in force (order-insensitive mode only). */
  setMode: boolean;
  strictOrder: boolean;
  strictNames: boolean;
  /** ORDER BY key columns of the expected side, or null (strict row order). */
  keys: number[] | null;
  /** Warnings raised so far (set semantics ignored, invalid order keys). */
  warnings: ComparisonWarning[];
  colRef(i: number | null, j: number | null): ColumnRef;
}

/** 2. The column alignment chosen, its evaluation and row matching. */
export interface ComparisonAlignment {
  evaluator: Evaluator;
  choice: AlignmentChoice;
  ev: MappingEvaluation;
  match: ListMatch;
  setRes: SetResult;
  orderRes: OrderResult;
}

/** 3. Exact mode's own checks: positional columns, equal names and kinds, rows in the same order. */
export interface ExactChecks {
  positional: boolean;
  namesEqual: boolean;
  kindDiffs: (readonly [number, number])[];
  strictRowsPass: boolean;
  strictViolation: number;
  exactPass: boolean;
}

/** 4. What differs, with witnesses: the reasons, and the cell pairing of the unmatched rows. */
export interface ComparisonFindings {
  reasons: Reason[];
  /** The setup's warnings and the shape's. */
  warnings: ComparisonWarning[];
  shapeOk: boolean;
  missingColumns: NamedColumn[];
  extraColumns: NamedColumn[];
  nameProblems: ColumnRef[];
  freeE: Int32Array;
  freeA: Int32Array;
  cells: CellPairs;
  stats: CellStats;
  /** The rows agree as a bag (as a set under set semantics). */
  agree: boolean;
}

/** 5. The verdict: the reasons it stands on, and the outcome of every mode. */
export interface ComparisonVerdict {
  modePass: boolean;
  undecided: boolean;
  reasons: Reason[];
  warnings: ComparisonWarning[];
  details: { exact: ModeOutcome; bag: ModeOutcome; ordered: ModeOutcome; set: ModeOutcome };
}
