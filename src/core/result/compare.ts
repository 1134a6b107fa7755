/**
 * Layer 3: compare an actual result with the expected one under the
 * disclosed policy (SPEC section 3) and produce result_equality_family, the
 * graded metrics and reasons with witnesses. See `docs/comparison-policy.md`.
 */
import type { ResultTable } from '../value/kind.ts';
import { chooseAlignment, columnsCompatible, type MappingEvaluation } from './alignment.ts';
import { alignCells } from './cell-align.ts';
import { withDefaults, type ComparisonConfig } from './config.ts';
import { createEvaluator, unmatched } from './evaluation.ts';
import {
  cellReasons,
  cellStatistics,
  duplicateWitness,
  kindOnlyMismatch,
  named,
  plural,
  unexplained,
} from './evidence.ts';
import { checkOrder } from './order-check.ts';
import { nullCounts, prepareSide, type Side } from './side.ts';
import type {
  AlignedColumn,
  ColumnMismatchRate,
  ColumnRef,
  CompareOptions,
  ComparisonWarning,
  ModeOutcome,
  Overlap,
  Reason,
  ReasonCode,
  ResultComparison,
  SchemaColumn,
} from './types.ts';
import { kindsCompatible, type Tolerance } from './value-policy.ts';
import { buildRowDiff, type RowDiff } from './row-diff.ts';
import { rowWitness } from './witness.ts';

function overlap(shared: number, expected: number, actual: number): Overlap {
  if (expected === 0 && actual === 0) return { jaccard: 1, f1: 1, precision: 1, recall: 1 };
  const union = expected + actual - shared;
  return {
    jaccard: union === 0 ? 1 : shared / union,
    f1: (2 * shared) / (expected + actual),
    precision: actual === 0 ? 0 : shared / actual,
    recall: expected === 0 ? 0 : shared / expected,
  };
}

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

function compareCore(
  expected: ResultTable,
  actual: ResultTable,
  config: Partial<ComparisonConfig>,
  options: CompareOptions,
): { comparison: ResultComparison; rowDiff: () => RowDiff } {
  const cfg = withDefaults(config);
  const tol: Tolerance = {
    atol: cfg.numeric_abs_tolerance,
    rtol: cfg.numeric_rel_tolerance,
    nullsEqual: cfg.null_equality_mode === 'strict',
  };
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
  const strictOrder = cfg.require_column_order_match || mode === 'exact';
  const strictNames = cfg.require_column_name_match || mode === 'exact';

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

  const evaluator = createEvaluator(E, A, tol, setMode, keys);
  const { allE, allA, evaluate, forget, matchOf, orderOf, setOf, indexesOf, rowsAgree } = evaluator;
  const passes = (ev: MappingEvaluation): boolean =>
    mode === 'order-sensitive' ? rowsAgree(ev) && orderOf(ev).pass : rowsAgree(ev);

  const choice = chooseAlignment({
    E,
    A,
    tol,
    cap: cfg.max_rows_for_cell_alignment,
    strictOrder,
    strictNames,
    bagPrefilter: !setMode,
    evaluate,
    passes,
    forget,
  });
  const ev = choice.evaluation ?? evaluate(choice.mapping);
  const match = matchOf(ev);
  const { ctx } = ev;
  const mapping = ev.mapping;
  const mapped = mapping.length;
  const setRes = setOf(ev);
  const orderRes = orderOf(ev);

  // Exact mode's own checks: positional columns, equal names and kinds, rows in the same order.
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
    const strict = keys === null ? orderRes : checkOrder(ctx, null, match.matchE);
    strictRowsPass = strict.pass;
    strictViolation = strict.violation?.position ?? -1;
  }
  const exactPass = positional && namesEqual && kindDiffs.length === 0 && ev.bagPass && strictRowsPass;

  // ---- reasons -------------------------------------------------------------
  const reasons: Reason[] = [];
  const shapeOk = options.shape !== 'scalar' || (A.n === 1 && A.m === 1);
  if (options.shape === 'scalar') {
    if (!shapeOk)
      reasons.push({
        code: 'scalar_shape',
        message: `A scalar answer must be exactly one row and one column; got ${plural(A.n, 'row')} and ${plural(A.m, 'column')}.`,
        expected_shape: { rows: E.n, columns: E.m },
        actual_shape: { rows: A.n, columns: A.m },
      });
    if (E.n !== 1 || E.m !== 1)
      warnings.push({
        code: 'expected_not_scalar',
        message: `The case is declared scalar but the expected result has ${plural(E.n, 'row')} and ${plural(E.m, 'column')}.`,
      });
  }
  const usedE = new Set(mapping.map(([i]) => i));
  const usedA = new Set(mapping.map(([, j]) => j));
  const missingColumns = E.columns
    .map((_, i) => i)
    .filter((i) => !usedE.has(i))
    .map((i) => named(E, i));
  const extraColumns = A.columns
    .map((_, j) => j)
    .filter((j) => !usedA.has(j))
    .map((j) => named(A, j));
  if (E.m !== A.m)
    reasons.push({
      code: 'column_count_mismatch',
      message: `Expected ${plural(E.m, 'column')}, got ${A.m}: a projection difference${
        missingColumns.length ? `; no partner for ${missingColumns.map((c) => `"${c.name}"`).join(', ')}` : ''
      }${extraColumns.length ? `; extra ${extraColumns.map((c) => `"${c.name}"`).join(', ')}` : ''}.`,
      expected_columns: E.m,
      actual_columns: A.m,
      missing_expected_columns: missingColumns,
      extra_actual_columns: extraColumns,
    });
  const colRef = (i: number | null, j: number | null): ColumnRef => ({
    expected_index: i,
    expected_name: i === null ? null : E.columns[i]!.name,
    actual_index: j,
    actual_name: j === null ? null : A.columns[j]!.name,
  });
  const nameProblems: ColumnRef[] = [];
  if (strictNames) {
    if (strictOrder) {
      for (const [i, j] of mapping) if (E.columns[i]!.name !== A.columns[j]!.name) nameProblems.push(colRef(i, j));
    } else {
      const paired = new Map(mapping.map(([i, j]) => [i, j]));
      for (const i of choice.unnamed.expected) nameProblems.push(colRef(i, paired.get(i) ?? null));
      for (const j of choice.unnamed.actual) if (![...paired.values()].includes(j)) nameProblems.push(colRef(null, j));
    }
    if (nameProblems.length > 0)
      reasons.push({
        code: 'column_name_mismatch',
        message: `Column names must match: ${nameProblems
          .map(
            (r) =>
              `expected ${r.expected_name === null ? '(none)' : `"${r.expected_name}"`}, got ${r.actual_name === null ? '(none)' : `"${r.actual_name}"`}`,
          )
          .join('; ')}.`,
        columns: nameProblems,
      });
  }

  // Rows: the bag residue, paired cell by cell.
  const freeE = unmatched(match.matchE, allE);
  const freeA = unmatched(match.matchA, allA);
  const cap = cfg.max_rows_for_cell_alignment;
  const cells = alignCells(ctx, freeE, freeA, cap);
  const agree = setMode ? setRes.pass : ev.bagPass;
  const stats = cellStatistics(ctx, cells, match.matchE, match.deltas, match.recorded, mapping, E, A);

  if (!agree) {
    const residueE = setMode ? setRes.missingE : freeE;
    const residueA = setMode ? setRes.missingA : freeA;
    const countsDiffer = setMode ? residueE.length !== residueA.length : E.n !== A.n;
    if (countsDiffer) {
      reasons.push({
        code: 'row_count_mismatch',
        message: setMode
          ? `As sets the results differ in size: ${plural(residueE.length, 'expected row')} and ${plural(residueA.length, 'actual row')} have no equal row on the other side.`
          : `Expected ${plural(E.n, 'row')}, got ${A.n} (${residueE.length} expected without a partner, ${residueA.length} actual without a partner).`,
        expected_rows: E.n,
        actual_rows: A.n,
        basis: setMode ? 'set' : 'bag',
        unmatched_expected_rows: residueE.length,
        unmatched_actual_rows: residueA.length,
        first_unmatched_expected: residueE.length ? rowWitness(E, residueE[0]!) : null,
        first_unmatched_actual: residueA.length ? rowWitness(A, residueA[0]!) : null,
      });
    }
    const witnessCells = setMode ? alignCells(ctx, residueE, residueA, cap) : cells;
    const witnessStats = setMode
      ? cellStatistics(ctx, witnessCells, match.matchE, match.deltas, match.recorded, mapping, E, A)
      : stats;
    reasons.push(...cellReasons(witnessStats, witnessCells, mapping, E, A, colRef, tol));
    if (!setMode && ev.complete && !ev.bagPass && setRes.pass) {
      const { aIndex, eIndex } = indexesOf(ev);
      const dup = duplicateWitness(ev, freeE, freeA, aIndex, eIndex);
      if (dup) reasons.push(dup);
    }
  }

  const ordered = mode === 'order-sensitive' || mode === 'exact';
  if (ordered && ev.bagPass) {
    const violation =
      mode === 'exact'
        ? strictRowsPass
          ? null
          : { position: strictViolation, start: strictViolation, end: strictViolation + 1 }
        : orderRes.violation;
    const tieAware = mode === 'order-sensitive' && keys !== null;
    if (violation && violation.position >= 0) {
      reasons.push({
        code: 'order_violation',
        message: tieAware
          ? `Row ${violation.position} is out of order: the actual row there does not belong to the expected tie group of rows ${violation.start}–${violation.end - 1}.`
          : `Row ${violation.position} is out of order (strict row order${keys === null && mode === 'order-sensitive' ? ': the ORDER BY keys are unknown' : ''}).`,
        position: violation.position,
        expected_row: rowWitness(E, violation.position),
        actual_row: rowWitness(A, violation.position),
        tie_group: tieAware ? { start: violation.start, end: violation.end } : null,
        tie_aware: tieAware,
        order_keys: keys,
      });
    }
  }
  if (mode === 'exact') {
    for (const [i, j] of kindDiffs) {
      if (reasons.some((r) => r.code === 'type_mismatch' && r.column.expected_index === i)) continue;
      reasons.push(kindOnlyMismatch(E, A, i, j, colRef(i, j)));
    }
    if (!namesEqual && E.m === A.m && nameProblems.length === 0) {
      const columns = E.columns
        .map((c, i) => (c.name !== A.columns[i]!.name ? colRef(i, i) : null))
        .filter((r): r is ColumnRef => r !== null);
      reasons.push({
        code: 'column_name_mismatch',
        message: 'Exact comparison requires equal column names, position by position.',
        columns,
      });
    }
  }
  if (ctx.budget.exhausted && !agree)
    reasons.push({
      code: 'matching_incomplete',
      message:
        'The tolerance matching ran out of its work budget: some rows were left unmatched that a longer search might pair.',
    });

  let modePass: boolean;
  if (mode === 'exact') modePass = exactPass;
  else if (mode === 'order-sensitive') modePass = ev.bagPass && orderRes.pass && nameProblems.length === 0;
  else modePass = (setMode ? setRes.pass : ev.bagPass) && nameProblems.length === 0;
  modePass = modePass && shapeOk && E.m === A.m;

  // A failure is certain when shapes, names or kinds rule out every alignment. Otherwise, when a
  // search ran out of its budget (the column search, or a tolerance matching), a longer search might
  // have found the pass: the verdict is `undecided`, never a fail with reasons that may not be true.
  const certainFail =
    E.m !== A.m ||
    !shapeOk ||
    nameProblems.length > 0 ||
    (!setMode && E.n !== A.n) ||
    (mode === 'exact' && (!namesEqual || kindDiffs.length > 0));
  const undecided = !modePass && !certainFail && (choice.searchCapped || evaluator.budgetExhausted());
  if (undecided) {
    const what = choice.searchCapped
      ? 'the column-alignment search ran out of its work budget before trying every alignment whose columns can hold the same values'
      : 'the tolerance matching ran out of its work budget with rows left unpaired that a longer search might pair';
    reasons.length = 0;
    reasons.push({
      code: 'matching_incomplete',
      message: `Undecided: ${what}. No verdict is given rather than a fail that may not be true.`,
    });
    warnings.push({ code: 'comparison_undecided', message: `The comparison is undecided: ${what}.` });
  }

  if (!modePass && !undecided && strictOrder && !positionalFreePass(ev)) {
    const free = chooseAlignment({
      E,
      A,
      tol,
      cap,
      strictOrder: false,
      strictNames: cfg.require_column_name_match,
      bagPrefilter: !setMode,
      evaluate,
      passes: rowsAgree,
      forget,
    });
    const freeEv = free.evaluation;
    if (freeEv && rowsAgree(freeEv) && !freeEv.mapping.every(([i, j]) => i === j))
      reasons.push({
        code: 'column_order_mismatch',
        message: `Columns must keep their order; the results agree with the columns reordered (${freeEv.mapping
          .filter(([i, j]) => i !== j)
          .map(([i, j]) => `expected ${i} ↔ actual ${j}`)
          .join(', ')}).`,
        matching_alignment: freeEv.mapping.map(([i, j]) => ({ expected_index: i, actual_index: j })),
      });
  }
  if (!modePass && reasons.length === 0) reasons.push(unexplained(E, A));

  // ---- mode details ---------------------------------------------------------
  const codesOf = (filter: (code: ReasonCode) => boolean): ReasonCode[] => [
    ...new Set(reasons.map((r) => r.code).filter(filter)),
  ];
  const rowCodes = (code: ReasonCode) =>
    [
      'row_count_mismatch',
      'column_count_mismatch',
      'value_mismatch',
      'null_mismatch',
      'type_mismatch',
      'duplicate_rows',
      'matching_incomplete',
    ].includes(code);
  const bagReasons = (): ReasonCode[] => {
    if (ev.bagPass) return [];
    const codes = codesOf((c) => rowCodes(c) && c !== 'duplicate_rows');
    if (ev.complete && setRes.pass) codes.push('duplicate_rows');
    return codes.length ? [...new Set(codes)] : ['value_mismatch'];
  };
  const bagOutcome: ModeOutcome = { pass: ev.bagPass, reasons: bagReasons() };
  const setCodes = codesOf((c) => rowCodes(c) && c !== 'duplicate_rows');
  const setOutcome: ModeOutcome = {
    pass: setRes.pass,
    reasons: setRes.pass ? [] : setCodes.length ? setCodes : ['value_mismatch'],
  };
  const orderedOutcome: ModeOutcome = {
    pass: ev.bagPass && orderRes.pass,
    reasons: !ev.bagPass ? bagOutcome.reasons : orderRes.pass ? [] : ['order_violation'],
    note:
      keys === null
        ? 'ORDER BY keys unknown: strict row order.'
        : `Tie-aware on ORDER BY key columns ${JSON.stringify(keys)}.`,
  };
  const exactReasons: ReasonCode[] = [];
  if (E.m !== A.m) exactReasons.push('column_count_mismatch');
  else {
    if (!namesEqual) exactReasons.push('column_name_mismatch');
    if (kindDiffs.length > 0 || mapping.some(([i, j]) => !kindsCompatible(E.columns[i]!.kind, A.columns[j]!.kind)))
      exactReasons.push('type_mismatch');
    if (!positional) exactReasons.push(ev.bagPass ? 'column_order_mismatch' : 'value_mismatch');
    else if (!ev.bagPass) exactReasons.push(...bagOutcome.reasons.filter((c) => c !== 'column_count_mismatch'));
    else if (!strictRowsPass) exactReasons.push('order_violation');
  }
  const exactOutcome: ModeOutcome = {
    pass: exactPass,
    reasons: exactPass ? [] : ([...new Set(exactReasons.length ? exactReasons : ['value_mismatch'])] as ReasonCode[]),
  };

  // ---- metrics --------------------------------------------------------------
  const eNulls = nullCounts(E);
  const aNulls = nullCounts(A);
  const nullColumns = mapping.map(([i, j]) => ({
    expected_index: i,
    actual_index: j,
    expected_nulls: eNulls[i]!,
    actual_nulls: aNulls[j]!,
  }));
  const estimatedPairs = cells.capped ? Math.max(0, Math.min(freeE.length, freeA.length) - cells.count) : 0;
  const agreeRate = cells.count * mapped === 0 ? 0 : stats.agreeing / (cells.count * mapped);
  const matchingCells = match.matched * mapped + stats.agreeing + Math.round(estimatedPairs * mapped * agreeRate);
  const perColumn: ColumnMismatchRate[] = [];
  const byExpected = new Map(mapping.map(([i, j], p) => [i, { j, p }]));
  for (let i = 0; i < E.m; i++) {
    const hit = byExpected.get(i);
    if (!hit) {
      perColumn.push({
        ...colRef(i, null),
        status: 'missing',
        compared: 0,
        mismatched: 0,
        mismatch_rate: 1,
        null_mismatches: 0,
        type_mismatches: 0,
        max_abs_delta: null,
      });
      continue;
    }
    const compared = match.matched + cells.count;
    const s = stats.columns[hit.p]!;
    perColumn.push({
      ...colRef(i, hit.j),
      status: 'aligned',
      compared,
      mismatched: s.mismatched,
      mismatch_rate: compared === 0 ? 0 : s.mismatched / compared,
      null_mismatches: s.nullMismatches,
      type_mismatches: s.typeMismatches,
      max_abs_delta: s.maxAbs,
    });
  }
  for (const column of extraColumns)
    perColumn.push({
      ...colRef(null, column.index),
      status: 'extra',
      compared: 0,
      mismatched: 0,
      mismatch_rate: 1,
      null_mismatches: 0,
      type_mismatches: 0,
      max_abs_delta: null,
    });

  const schemaColumns = (side: Side): SchemaColumn[] =>
    side.columns.map((c, index) => ({ index, name: c.name, kind: c.kind, engine_type: c.engineType }));
  // Compatible kinds, or a column of NULLs only (it pairs with any kind, see columnsCompatible).
  const kindsCompatibleAll = mapping.every(([i, j]) => columnsCompatible(E, i, A, j));
  const sortedNames = (side: Side) => side.columns.map((c) => c.name).sort();
  const alignedColumns: AlignedColumn[] = mapping.map(([i, j]) => ({
    expected_index: i,
    expected_name: E.columns[i]!.name,
    actual_index: j,
    actual_name: A.columns[j]!.name,
    same_position: i === j,
    same_name: E.columns[i]!.name === A.columns[j]!.name,
  }));
  const orderApplied = mode !== 'order-insensitive';

  const comparison: ResultComparison = {
    result_equality_family: {
      comparison_mode: mode,
      set_semantics: setMode,
      mode_pass: modePass,
      ...(undecided ? { undecided: true as const } : {}),
      mode_details: {
        exact: exactOutcome,
        'order-insensitive': bagOutcome,
        'order-sensitive': orderedOutcome,
        set: setOutcome,
      },
    },
    reasons,
    column_alignment: {
      method: choice.method,
      mapping: alignedColumns,
      missing_expected_columns: missingColumns,
      extra_actual_columns: extraColumns,
      strict_names: strictNames,
      strict_order: strictOrder,
      alignments_checked: choice.checked,
      search_capped: choice.searchCapped,
    },
    schema_match: {
      pass: E.m === A.m && kindsCompatibleAll,
      column_count: { expected: E.m, actual: A.m, equal: E.m === A.m },
      names_equal: namesEqual,
      names_equal_as_set: E.m === A.m && sortedNames(E).every((n, k) => n === sortedNames(A)[k]),
      kinds_equal: E.m === A.m && kindDiffs.length === 0,
      kinds_compatible: kindsCompatibleAll,
      order_equal: positional,
      expected: schemaColumns(E),
      actual: schemaColumns(A),
    },
    row_overlap: {
      ...overlap(match.matched, E.n, A.n),
      matched_rows: match.matched,
      expected_rows: E.n,
      actual_rows: A.n,
      basis: E.m === A.m && mapped === E.m ? 'all_columns' : 'mapped_columns',
    },
    cell_overlap: {
      ...overlap(matchingCells, E.n * E.m, A.n * A.m),
      matching_cells: matchingCells,
      expected_cells: E.n * E.m,
      actual_cells: A.n * A.m,
      aligned_partial_pairs: cells.count,
      estimated: estimatedPairs > 0,
    },
    cardinality_match: {
      pass: E.n === A.n,
      expected_rows: E.n,
      actual_rows: A.n,
      delta: A.n - E.n,
      ratio: E.n === 0 ? (A.n === 0 ? 1 : null) : A.n / E.n,
    },
    numeric_tolerance_match: {
      pass: stats.numeric.outside === 0 && stats.numeric.exactMismatches === 0,
      atol: tol.atol,
      rtol: tol.rtol,
      rule: 'floats: |a − b| ≤ max(atol, rtol · max(|a|, |b|)); integers and decimals: exact',
      float_cells_compared: stats.numeric.floatCompared,
      within_tolerance_not_identical: stats.numeric.within,
      outside_tolerance: stats.numeric.outside,
      exact_cells_compared: stats.numeric.exactCompared,
      exact_mismatches: stats.numeric.exactMismatches,
      max_abs_delta: stats.numeric.maxAbs,
      max_rel_delta: stats.numeric.maxRel,
    },
    null_handling_match: {
      pass: stats.nullMismatches === 0 && nullColumns.every((c) => c.expected_nulls === c.actual_nulls),
      null_equality_mode: cfg.null_equality_mode,
      expected_nulls: nullColumns.reduce((s, c) => s + c.expected_nulls, 0),
      actual_nulls: nullColumns.reduce((s, c) => s + c.actual_nulls, 0),
      null_mismatches: stats.nullMismatches,
      columns: nullColumns,
    },
    per_column: perColumn,
    order_check: {
      applied: orderApplied,
      pass: mode === 'exact' ? strictRowsPass : ev.bagPass && orderRes.pass,
      tie_aware: mode === 'order-sensitive' && keys !== null,
      order_keys: keys,
      tie_groups: orderRes.tieGroups,
      note: !ev.bagPass
        ? 'Order not checked: the rows differ as a bag.'
        : mode === 'exact'
          ? 'Exact comparison: strict row order.'
          : keys === null
            ? 'ORDER BY keys unknown: strict row order applied.'
            : keys.length === 0
              ? 'No ORDER BY: every row ties, any order passes.'
              : `Tie-aware: rows tying on expected columns ${JSON.stringify(keys)} may come in any order.`,
    },
    limits: {
      max_rows_for_cell_alignment: cap,
      cell_alignment_capped: cells.capped,
      unmatched_expected_examined: cells.examinedE,
      unmatched_actual_examined: cells.examinedA,
      tolerance_budget_exhausted: ctx.budget.exhausted,
      column_scoring_sampled: choice.sampled,
    },
    warnings: [
      ...warnings,
      ...(E.m === A.m && !kindsCompatibleAll && E.n + A.n === 0
        ? [
            {
              code: 'kinds_incompatible',
              message: 'Aligned columns have kinds whose values can never be equal (no rows to compare).',
            },
          ]
        : []),
      ...(cells.capped
        ? [
            {
              code: 'cell_alignment_capped',
              message: `Cell-level alignment examined at most ${cap} unmatched rows per side; cell figures are estimates.`,
            },
          ]
        : []),
    ],
    config: cfg,
  };
  // The residue under the comparison's own semantics (set semantics needs a complete column alignment).
  const setResidue = setMode && ev.complete;
  const rowDiff = (): RowDiff =>
    buildRowDiff({
      E,
      A,
      mapping,
      tol,
      setMode: setResidue,
      matchE: match.matchE,
      matchA: match.matchA,
      residueE: setResidue ? setRes.missingE : freeE,
      residueA: setResidue ? setRes.missingA : freeA,
      pairs: setResidue && !setRes.pass ? alignCells(ctx, setRes.missingE, setRes.missingA, cap) : cells,
    });
  return { comparison, rowDiff };

  function positionalFreePass(x: MappingEvaluation): boolean {
    return (setMode ? setOf(x).pass : x.bagPass) && x.mapping.every(([i, j]) => i === j) && mode !== 'exact';
  }
}
