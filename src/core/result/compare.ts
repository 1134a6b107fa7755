/**
 * Layer 3: compare an actual result with the expected one under the
 * disclosed policy (SPEC section 3) and produce result_equality_family, the
 * graded metrics and reasons with witnesses. See `docs/comparison-policy.md`.
 */
import type { ResultTable } from '../value/kind.ts';
import { chooseAlignment, type MappingEvaluation } from './alignment.ts';
import { alignCells } from './cell-align.ts';
import type { ComparisonAlignment, ComparisonFindings, ComparisonSetup, ExactChecks } from './comparison-record.ts';
import { decideVerdict, findReasons, modePassOf } from './comparison-reasons.ts';
import { assembleComparison } from './comparison-report.ts';
import { withDefaults, type ComparisonConfig } from './config.ts';
import { createEvaluator } from './evaluation.ts';
import { checkOrder } from './order-check.ts';
import { buildRowDiff, type RowDiff } from './row-diff.ts';
import { prepareSide } from './side.ts';
import type { ColumnRef, CompareOptions, ComparisonWarning, ResultComparison } from './types.ts';

/**
 * Compare `actual` with `expected`. `config` uses the seed's option names
 * (validate user input with `resolveComparisonConfig` first: an invalid value
 * here throws RangeError). Pure and synchronous: run it in a worker for large
 * results. The output is plain JSON.
 */
export function compareResults(
  expected: ResultTable,
  actual: ResultTable,
  config: Partial<ComparisonConfig> = {},
  options: CompareOptions = {},
): ResultComparison {
  return compareCore(expected, actual, config, options).comparison;
}

/**
 * Whether `actual` passes against `expected` under the policy: the
 * `result_equality_family.mode_pass` of `compareResults`, without building
 * the reasons, witnesses and report (a counterfactual asks only this).
 */
export function resultsAgree(
  expected: ResultTable,
  actual: ResultTable,
  config: Partial<ComparisonConfig> = {},
  options: CompareOptions = {},
): boolean {
  const setup = openComparison(expected, actual, config, options);
  const alignment = alignColumns(setup);
  return modePassOf(setup, alignment, exactChecks(setup, alignment));
}

/**
 * `compareResults` plus its row alignment, row by row (see `row-diff.ts`):
 * for viewers that show both whole results with the differences marked.
 */
export function compareWithRowDiff(
  expected: ResultTable,
  actual: ResultTable,
  config: Partial<ComparisonConfig> = {},
  options: CompareOptions = {},
): { comparison: ResultComparison; rows: RowDiff } {
  const core = compareCore(expected, actual, config, options);
  return { comparison: core.comparison, rows: core.rowDiff() };
}

/**
 * One comparison, step by step (comparison-record.ts): the policy and both
 * sides, the column alignment, exact mode's checks, the reasons with their
 * witnesses, the verdict, and the report.
 */
function compareCore(
  expected: ResultTable,
  actual: ResultTable,
  config: Partial<ComparisonConfig>,
  options: CompareOptions,
): { comparison: ResultComparison; rowDiff: () => RowDiff } {
  const setup = openComparison(expected, actual, config, options);
  const alignment = alignColumns(setup);
  const exact = exactChecks(setup, alignment);
  const findings = findReasons(setup, alignment, exact);
  const verdict = decideVerdict(setup, alignment, exact, findings);
  const comparison = assembleComparison({ setup, alignment, exact, findings, verdict });
  return { comparison, rowDiff: () => rowDiffOf(setup, alignment, findings) };
}

/** 1. The policy in force, both sides prepared, and the ORDER BY keys checked. */
function openComparison(
  expected: ResultTable,
  actual: ResultTable,
  config: Partial<ComparisonConfig>,
  options: CompareOptions,
): ComparisonSetup {
  const cfg = withDefaults(config);
  const E = prepareSide(expected);
  const A = prepareSide(actual);
  const warnings: ComparisonWarning[] = [];
  const mode = cfg.comparison_mode;
  const setMode = cfg.set_semantics && mode === 'order-insensitive';
  if (cfg.set_semantics && !setMode)
    warnings.push({
      code: 'set_semantics_ignored',
      message: `set_semantics applies to order-insensitive comparison only; ignored under ${mode}.`,
    });
  let keys: number[] | null = null;
  if (options.orderKeys !== undefined && options.orderKeys !== null) {
    const valid = options.orderKeys.every((k) => Number.isInteger(k) && k >= 0 && k < E.m);
    if (valid) keys = [...options.orderKeys];
    else
      warnings.push({
        code: 'order_keys_invalid',
        message: `ORDER BY key indices ${JSON.stringify(options.orderKeys)} do not name expected columns (0..${E.m - 1}); strict row order applied.`,
      });
  }
  const colRef = (i: number | null, j: number | null): ColumnRef => ({
    expected_index: i,
    expected_name: i === null ? null : E.columns[i]!.name,
    actual_index: j,
    actual_name: j === null ? null : A.columns[j]!.name,
  });
  return {
    cfg,
    options,
    tol: {
      atol: cfg.numeric_abs_tolerance,
      rtol: cfg.numeric_rel_tolerance,
      nullsEqual: cfg.null_equality_mode === 'strict',
    },
    E,
    A,
    mode,
    setMode,
    strictOrder: cfg.require_column_order_match || mode === 'exact',
    strictNames: cfg.require_column_name_match || mode === 'exact',
    keys,
    warnings,
    colRef,
  };
}

/** 2. The column alignment that makes the results agree under the mode (or the best one), and its row matching. */
function alignColumns(s: ComparisonSetup): ComparisonAlignment {
  const evaluator = createEvaluator(s.E, s.A, s.tol, s.setMode, s.keys);
  const { evaluate, forget, matchOf, orderOf, setOf, rowsAgree } = evaluator;
  const passes = (ev: MappingEvaluation): boolean =>
    s.mode === 'order-sensitive' ? rowsAgree(ev) && orderOf(ev).pass : rowsAgree(ev);
  const choice = chooseAlignment({
    E: s.E,
    A: s.A,
    tol: s.tol,
    cap: s.cfg.max_rows_for_cell_alignment,
    strictOrder: s.strictOrder,
    strictNames: s.strictNames,
    bagPrefilter: !s.setMode,
    evaluate,
    passes,
    forget,
  });
  const ev = choice.evaluation ?? evaluate(choice.mapping);
  return { evaluator, choice, ev, match: matchOf(ev), setRes: setOf(ev), orderRes: orderOf(ev) };
}

/** 3. Exact mode's own checks: positional columns, equal names and kinds, rows in the same order. */
function exactChecks(s: ComparisonSetup, a: ComparisonAlignment): ExactChecks {
  const { E, A } = s;
  const { ev, match } = a;
  const mapping = ev.mapping;
  const positional = mapping.length === E.m && E.m === A.m && mapping.every(([i, j]) => i === j);
  const namesEqual = E.m === A.m && E.columns.every((c, i) => c.name === A.columns[i]!.name);
  const kindDiffs = mapping.filter(([i, j]) => {
    const x = E.columns[i]!.kind;
    const y = A.columns[j]!.kind;
    return x !== y && x !== 'null' && y !== 'null';
  });
  let strictRowsPass = false;
  let strictViolation = -1;
  if (positional && ev.bagPass) {
    const strict = s.keys === null ? a.orderRes : checkOrder(ev.ctx, null, match.matchE);
    strictRowsPass = strict.pass;
    strictViolation = strict.violation?.position ?? -1;
  }
  const exactPass = positional && namesEqual && kindDiffs.length === 0 && ev.bagPass && strictRowsPass;
  return { positional, namesEqual, kindDiffs, strictRowsPass, strictViolation, exactPass };
}

/** The rows side by side, for viewers: the residue under the comparison's own semantics (set semantics needs a complete column alignment). */
function rowDiffOf(s: ComparisonSetup, a: ComparisonAlignment, f: ComparisonFindings): RowDiff {
  const setResidue = s.setMode && a.ev.complete;
  const cap = s.cfg.max_rows_for_cell_alignment;
  return buildRowDiff({
    E: s.E,
    A: s.A,
    mapping: a.ev.mapping,
    tol: s.tol,
    setMode: setResidue,
    matchE: a.match.matchE,
    matchA: a.match.matchA,
    residueE: setResidue ? a.setRes.missingE : f.freeE,
    residueA: setResidue ? a.setRes.missingA : f.freeA,
    pairs: setResidue && !a.setRes.pass ? alignCells(a.ev.ctx, a.setRes.missingE, a.setRes.missingA, cap) : f.cells,
  });
}
