/**
 * Step 6 of a result comparison (see compare.ts): the plain-JSON
 * ResultComparison, one section per question a reader asks (which mode
 * passed, how the columns were aligned, schema, overlaps, cardinality,
 * numbers, NULLs, per column, row order, limits, warnings).
 */
import { columnsCompatible } from './alignment.ts';
import type {
  ComparisonAlignment,
  ComparisonFindings,
  ComparisonSetup,
  ComparisonVerdict,
  ExactChecks,
} from './comparison-record.ts';
import { nullCounts, type Side } from './side.ts';
import type {
  AlignedColumn,
  ColumnMismatchRate,
  ComparisonWarning,
  Overlap,
  ResultComparison,
  SchemaColumn,
} from './types.ts';

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

const schemaColumns = (side: Side): SchemaColumn[] =>
  side.columns.map((c, index) => ({ index, name: c.name, kind: c.kind, engine_type: c.engineType }));
const sortedNames = (side: Side) => side.columns.map((c) => c.name).sort();

export interface ComparisonParts {
  setup: ComparisonSetup;
  alignment: ComparisonAlignment;
  exact: ExactChecks;
  findings: ComparisonFindings;
  verdict: ComparisonVerdict;
}

export function assembleComparison(p: ComparisonParts): ResultComparison {
  const { E, A, cfg, mode, setMode } = p.setup;
  const { verdict, alignment } = p;
  // Compatible kinds, or a column of NULLs only (it pairs with any kind, see columnsCompatible).
  const kindsCompatibleAll = alignment.ev.mapping.every(([i, j]) => columnsCompatible(E, i, A, j));
  return {
    result_equality_family: {
      comparison_mode: mode,
      set_semantics: setMode,
      mode_pass: verdict.modePass,
      ...(verdict.undecided ? { undecided: true as const } : {}),
      mode_details: {
        exact: verdict.details.exact,
        'order-insensitive': verdict.details.bag,
        'order-sensitive': verdict.details.ordered,
        set: verdict.details.set,
      },
    },
    reasons: verdict.reasons,
    column_alignment: columnAlignment(p),
    schema_match: {
      pass: E.m === A.m && kindsCompatibleAll,
      column_count: { expected: E.m, actual: A.m, equal: E.m === A.m },
      names_equal: p.exact.namesEqual,
      names_equal_as_set: E.m === A.m && sortedNames(E).every((n, k) => n === sortedNames(A)[k]),
      kinds_equal: E.m === A.m && p.exact.kindDiffs.length === 0,
      kinds_compatible: kindsCompatibleAll,
      order_equal: p.exact.positional,
      expected: schemaColumns(E),
      actual: schemaColumns(A),
    },
    ...overlaps(p),
    cardinality_match: {
      pass: E.n === A.n,
      expected_rows: E.n,
      actual_rows: A.n,
      delta: A.n - E.n,
      ratio: E.n === 0 ? (A.n === 0 ? 1 : null) : A.n / E.n,
    },
    ...valueChecks(p),
    per_column: perColumn(p),
    order_check: orderCheck(p),
    limits: {
      max_rows_for_cell_alignment: cfg.max_rows_for_cell_alignment,
      cell_alignment_capped: p.findings.cells.capped,
      unmatched_expected_examined: p.findings.cells.examinedE,
      unmatched_actual_examined: p.findings.cells.examinedA,
      tolerance_budget_exhausted: alignment.ev.ctx.budget.exhausted,
      column_scoring_sampled: alignment.choice.sampled,
    },
    warnings: warnings(p, kindsCompatibleAll),
    config: cfg,
  };
}

function columnAlignment(p: ComparisonParts): ResultComparison['column_alignment'] {
  const { E, A } = p.setup;
  const { choice, ev } = p.alignment;
  const mapping: AlignedColumn[] = ev.mapping.map(([i, j]) => ({
    expected_index: i,
    expected_name: E.columns[i]!.name,
    actual_index: j,
    actual_name: A.columns[j]!.name,
    same_position: i === j,
    same_name: E.columns[i]!.name === A.columns[j]!.name,
  }));
  return {
    method: choice.method,
    mapping,
    missing_expected_columns: p.findings.missingColumns,
    extra_actual_columns: p.findings.extraColumns,
    strict_names: p.setup.strictNames,
    strict_order: p.setup.strictOrder,
    alignments_checked: choice.checked,
    search_capped: choice.searchCapped,
  };
}

/** Matching cells: the matched rows' cells, the paired leftovers' agreeing cells, and an estimate past the cap. */
function matchingCells(p: ComparisonParts): { cells: number; estimatedPairs: number } {
  const { cells, stats, freeE, freeA } = p.findings;
  const mapped = p.alignment.ev.mapping.length;
  const estimatedPairs = cells.capped ? Math.max(0, Math.min(freeE.length, freeA.length) - cells.count) : 0;
  const agreeRate = cells.count * mapped === 0 ? 0 : stats.agreeing / (cells.count * mapped);
  return {
    cells: p.alignment.match.matched * mapped + stats.agreeing + Math.round(estimatedPairs * mapped * agreeRate),
    estimatedPairs,
  };
}

function overlaps(p: ComparisonParts): Pick<ResultComparison, 'row_overlap' | 'cell_overlap'> {
  const { E, A } = p.setup;
  const { match, ev } = p.alignment;
  const { cells, estimatedPairs } = matchingCells(p);
  return {
    row_overlap: {
      ...overlap(match.matched, E.n, A.n),
      matched_rows: match.matched,
      expected_rows: E.n,
      actual_rows: A.n,
      basis: E.m === A.m && ev.mapping.length === E.m ? 'all_columns' : 'mapped_columns',
    },
    cell_overlap: {
      ...overlap(cells, E.n * E.m, A.n * A.m),
      matching_cells: cells,
      expected_cells: E.n * E.m,
      actual_cells: A.n * A.m,
      aligned_partial_pairs: p.findings.cells.count,
      estimated: estimatedPairs > 0,
    },
  };
}

function valueChecks(p: ComparisonParts): Pick<ResultComparison, 'numeric_tolerance_match' | 'null_handling_match'> {
  const { E, A, tol, cfg } = p.setup;
  const { stats } = p.findings;
  const eNulls = nullCounts(E);
  const aNulls = nullCounts(A);
  const nullColumns = p.alignment.ev.mapping.map(([i, j]) => ({
    expected_index: i,
    actual_index: j,
    expected_nulls: eNulls[i]!,
    actual_nulls: aNulls[j]!,
  }));
  return {
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
  };
}

const UNPAIRED = {
  compared: 0,
  mismatched: 0,
  mismatch_rate: 1,
  null_mismatches: 0,
  type_mismatches: 0,
  max_abs_delta: null,
} as const;

/** Every expected column (aligned or missing), then every extra actual column. */
function perColumn(p: ComparisonParts): ColumnMismatchRate[] {
  const { E, colRef } = p.setup;
  const { stats, cells, extraColumns } = p.findings;
  const out: ColumnMismatchRate[] = [];
  const byExpected = new Map(p.alignment.ev.mapping.map(([i, j], k) => [i, { j, k }]));
  for (let i = 0; i < E.m; i++) {
    const hit = byExpected.get(i);
    if (!hit) {
      out.push({ ...colRef(i, null), status: 'missing', ...UNPAIRED });
      continue;
    }
    const compared = p.alignment.match.matched + cells.count;
    const s = stats.columns[hit.k]!;
    out.push({
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
  for (const column of extraColumns) out.push({ ...colRef(null, column.index), status: 'extra', ...UNPAIRED });
  return out;
}

function orderCheck(p: ComparisonParts): ResultComparison['order_check'] {
  const { mode, keys } = p.setup;
  const { ev, orderRes } = p.alignment;
  return {
    applied: mode !== 'order-insensitive',
    pass: mode === 'exact' ? p.exact.strictRowsPass : ev.bagPass && orderRes.pass,
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
  };
}

function warnings(p: ComparisonParts, kindsCompatibleAll: boolean): ComparisonWarning[] {
  const { E, A, cfg } = p.setup;
  const out = [...p.verdict.warnings];
  if (E.m === A.m && !kindsCompatibleAll && E.n + A.n === 0)
    out.push({
      code: 'kinds_incompatible',
      message: 'Aligned columns have kinds whose values can never be equal (no rows to compare).',
    });
  if (p.findings.cells.capped)
    out.push({
      code: 'cell_alignment_capped',
      message: `Cell-level alignment examined at most ${cfg.max_rows_for_cell_alignment} unmatched rows per side; cell figures are estimates.`,
    });
  return out;
}
