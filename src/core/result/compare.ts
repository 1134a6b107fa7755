/**
 * Layer 3: compare an actual result with the expected one under the
 * disclosed policy (SPEC section 3) and produce result_equality_family, the
 * graded metrics and reasons with witnesses. See `docs/comparison-policy.md`.
 */
import type { JsonValue } from '../value/json-codec.ts';
import type { ResultTable } from '../value/kind.ts';
import { chooseAlignment, type Mapping, type MappingEvaluation } from './alignment.ts';
import { alignCells, type CellPairs } from './cell-align.ts';
import { withDefaults, type ComparisonConfig } from './config.ts';
import { checkOrder, type OrderResult } from './order-check.ts';
import {
  allRows,
  buildIndex,
  countEqual,
  createMatchContext,
  findEqual,
  fingerprintsDiffer,
  matchPrepared,
  prepareMatch,
  type ListMatch,
  type RowIndex,
} from './row-match.ts';
import { makePairs, nullCounts, prepareSide, type Side } from './side.ts';
import type {
  AlignedColumn,
  CellMismatch,
  ColumnMismatchRate,
  ColumnRef,
  CompareOptions,
  ComparisonWarning,
  ModeOutcome,
  NamedColumn,
  Overlap,
  Reason,
  ReasonCode,
  ResultComparison,
  SchemaColumn,
  TypeMismatch,
} from './types.ts';
import {
  BOOL,
  CLASS_NAMES,
  DATE,
  EXACT,
  FLOAT,
  TIMESTAMP,
  cellsEqual,
  classOf,
  numericDelta,
  type Tolerance,
} from './value-policy.ts';
import { cellWitness, rowWitness } from './witness.ts';

/** Cell-level reasons (value, null, type) reported at most, across columns. */
const MAX_CELL_REASONS = 20;

interface SetResult {
  pass: boolean;
  /** Rows with no equal row at all on the other side. */
  missingE: Int32Array;
  missingA: Int32Array;
}

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

function unmatched(match: Int32Array, list: Int32Array): Int32Array {
  let k = 0;
  for (let i = 0; i < match.length; i++) if (match[i] === -1) k++;
  const out = new Int32Array(k);
  k = 0;
  for (let i = 0; i < match.length; i++) if (match[i] === -1) out[k++] = list[i]!;
  return out;
}

function named(side: Side, index: number): NamedColumn {
  return { index, name: side.columns[index]!.name };
}

function classesMeet(x: number, y: number): boolean {
  if (x === y) return true;
  const numeric = (c: number) => c === EXACT || c === FLOAT;
  const datetime = (c: number) => c === DATE || c === TIMESTAMP;
  return (numeric(x) && numeric(y)) || (datetime(x) && datetime(y));
}

function show(value: JsonValue): string {
  return value === null ? 'NULL' : JSON.stringify(value);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
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
    warnings.push({ code: 'set_semantics_ignored', message: `set_semantics applies to order-insensitive comparison only; ignored under ${mode}.` });
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

  const allE = allRows(E.n);
  const allA = allRows(A.n);
  const evaluations: MappingEvaluation[] = [];
  const evaluate = (mapping: Mapping): MappingEvaluation => {
    const known = evaluations.find(
      (ev) => ev.mapping.length === mapping.length && ev.mapping.every(([i, j], k) => mapping[k]![0] === i && mapping[k]![1] === j),
    );
    if (known) return known;
    const ctx = createMatchContext(E, A, makePairs(E, A, mapping), tol);
    const prepared = prepareMatch(ctx, allE, allA, true);
    // The passes yield every aligned column's fingerprint: keep them for the column filter.
    ctx.pairs.forEach((pair, p) => {
      const f = (fp: Int32Array) => ({ fpA: fp[p * 3]!, fpB: fp[p * 3 + 1]!, nulls: fp[p * 3 + 2]! });
      if (!E.summaries.has(`${pair.ei}:${pair.eScheme}`)) E.summaries.set(`${pair.ei}:${pair.eScheme}`, f(prepared.eFp));
      if (!A.summaries.has(`${pair.ai}:${pair.aScheme}`)) A.summaries.set(`${pair.ai}:${pair.aScheme}`, f(prepared.aFp));
    });
    const complete = E.m === A.m && mapping.length === E.m;
    const possible = setMode || (complete && E.n === A.n && !fingerprintsDiffer(ctx, prepared));
    const ev: MappingEvaluation = { mapping, ctx, prepared, match: null, complete, possible, bagPass: false };
    evaluations.push(ev);
    return ev;
  };
  const matchOf = (ev: MappingEvaluation): ListMatch => {
    if (!ev.match) {
      ev.match = matchPrepared(ev.ctx, ev.prepared);
      ev.bagPass = ev.complete && E.n === A.n && ev.match.matched === E.n;
    }
    return ev.match;
  };
  const orders = new Map<MappingEvaluation, OrderResult>();
  const orderOf = (ev: MappingEvaluation): OrderResult => {
    let result = orders.get(ev);
    if (!result) {
      result = ev.bagPass ? checkOrder(ev.ctx, keys, matchOf(ev).matchE) : { pass: false, tieGroups: 0, violation: null };
      orders.set(ev, result);
    }
    return result;
  };
  // Fresh full indexes of both sides, for set semantics and duplicate counts (failure paths only).
  const indexes = new Map<MappingEvaluation, { aIndex: RowIndex; eIndex: RowIndex }>();
  const indexesOf = (ev: MappingEvaluation) => {
    let found = indexes.get(ev);
    if (!found) {
      found = { aIndex: ev.prepared.index, eIndex: buildIndex(ev.ctx, 'E', allE, true) };
      indexes.set(ev, found);
    }
    return found;
  };
  const sets = new Map<MappingEvaluation, SetResult>();
  const setOf = (ev: MappingEvaluation): SetResult => {
    let result = sets.get(ev);
    if (result) return result;
    if (!ev.complete) result = { pass: false, missingE: new Int32Array(0), missingA: new Int32Array(0) };
    else if (ev.bagPass) result = { pass: true, missingE: new Int32Array(0), missingA: new Int32Array(0) };
    else {
      const match = matchOf(ev);
      const freeE = unmatched(match.matchE, allE);
      const freeA = unmatched(match.matchA, allA);
      // Expected rows first: one without an equal actual row settles it before indexing the expected side.
      const missingE = freeE.filter((e) => findEqual(ev.ctx, ev.prepared.index, e) < 0);
      let missingA = freeA;
      if (missingE.length === 0 || setMode) {
        const { eIndex } = indexesOf(ev);
        missingA = freeA.filter((a) => findEqual(ev.ctx, eIndex, a) < 0);
      }
      result = { pass: missingE.length === 0 && missingA.length === 0, missingE, missingA };
    }
    sets.set(ev, result);
    return result;
  };
  const passes = (ev: MappingEvaluation): boolean => {
    if (!ev.possible) return false;
    matchOf(ev);
    return mode === 'order-sensitive' ? ev.bagPass && orderOf(ev).pass : setMode ? setOf(ev).pass : ev.bagPass;
  };

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
  const missingColumns = E.columns.map((_, i) => i).filter((i) => !usedE.has(i)).map((i) => named(E, i));
  const extraColumns = A.columns.map((_, j) => j).filter((j) => !usedA.has(j)).map((j) => named(A, j));
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
          .map((r) => `expected ${r.expected_name === null ? '(none)' : `"${r.expected_name}"`}, got ${r.actual_name === null ? '(none)' : `"${r.actual_name}"`}`)
          .join('; ')}.`,
        columns: nameProblems,
      });
  }

  // Rows: the bag residue, paired cell by cell.
  const freeE = unmatched(match.matchE, allE);
  const freeA = unmatched(match.matchA, allA);
  const cap = cfg.max_rows_for_cell_alignment;
  const cells = alignCells(ctx, freeE, freeA, cap);
  const rowsAgree = setMode ? setRes.pass : ev.bagPass;
  const stats = cellStatistics(ctx, cells, match.matchE, match.toleranceMatched, match.byTolerance, mapping, E, A);

  if (!rowsAgree) {
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
    const witnessStats = setMode ? cellStatistics(ctx, witnessCells, match.matchE, match.toleranceMatched, match.byTolerance, mapping, E, A) : stats;
    reasons.push(...cellReasons(witnessStats, witnessCells, mapping, E, A, colRef, tol));
    if (!setMode && ev.complete && !ev.bagPass && setRes.pass) {
      const { aIndex, eIndex } = indexesOf(ev);
      const dup = duplicateWitness(ev, freeE, freeA, aIndex, eIndex);
      if (dup) reasons.push(dup);
    }
  }

  const ordered = mode === 'order-sensitive' || mode === 'exact';
  if (ordered && ev.bagPass) {
    const violation = mode === 'exact' ? (strictRowsPass ? null : { position: strictViolation, start: strictViolation, end: strictViolation + 1 }) : orderRes.violation;
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
      const columns = E.columns.map((c, i) => (c.name !== A.columns[i]!.name ? colRef(i, i) : null)).filter((r): r is ColumnRef => r !== null);
      reasons.push({ code: 'column_name_mismatch', message: 'Exact comparison requires equal column names, position by position.', columns });
    }
  }
  if (ctx.budget.exhausted && !rowsAgree)
    reasons.push({
      code: 'matching_incomplete',
      message: 'The tolerance matching ran out of its work budget: some rows were left unmatched that a longer search might pair.',
    });

  let modePass: boolean;
  if (mode === 'exact') modePass = exactPass;
  else if (mode === 'order-sensitive') modePass = ev.bagPass && orderRes.pass && nameProblems.length === 0;
  else modePass = (setMode ? setRes.pass : ev.bagPass) && nameProblems.length === 0;
  modePass = modePass && shapeOk && E.m === A.m;

  function passesFree(x: MappingEvaluation): boolean {
    if (!x.possible) return false;
    matchOf(x);
    return setMode ? setOf(x).pass : x.bagPass;
  }
  if (!modePass && strictOrder && !positionalFreePass(ev)) {
    const free = chooseAlignment({
      E,
      A,
      tol,
      cap,
      strictOrder: false,
      strictNames: cfg.require_column_name_match,
      bagPrefilter: !setMode,
      evaluate,
      passes: passesFree,
    });
    const freeEv = free.evaluation;
    if (freeEv && passesFree(freeEv) && !freeEv.mapping.every(([i, j]) => i === j))
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
  const codesOf = (filter: (code: ReasonCode) => boolean): ReasonCode[] => [...new Set(reasons.map((r) => r.code).filter(filter))];
  const rowCodes = (code: ReasonCode) =>
    ['row_count_mismatch', 'column_count_mismatch', 'value_mismatch', 'null_mismatch', 'type_mismatch', 'duplicate_rows', 'matching_incomplete'].includes(code);
  const bagReasons = (): ReasonCode[] => {
    if (ev.bagPass) return [];
    const codes = codesOf((c) => rowCodes(c) && c !== 'duplicate_rows');
    if (ev.complete && setRes.pass) codes.push('duplicate_rows');
    return codes.length ? [...new Set(codes)] : ['value_mismatch'];
  };
  const bagOutcome: ModeOutcome = { pass: ev.bagPass, reasons: bagReasons() };
  const setCodes = codesOf((c) => rowCodes(c) && c !== 'duplicate_rows');
  const setOutcome: ModeOutcome = { pass: setRes.pass, reasons: setRes.pass ? [] : setCodes.length ? setCodes : ['value_mismatch'] };
  const orderedOutcome: ModeOutcome = {
    pass: ev.bagPass && orderRes.pass,
    reasons: !ev.bagPass ? bagOutcome.reasons : orderRes.pass ? [] : ['order_violation'],
    note: keys === null ? 'ORDER BY keys unknown: strict row order.' : `Tie-aware on ORDER BY key columns ${JSON.stringify(keys)}.`,
  };
  const exactReasons: ReasonCode[] = [];
  if (E.m !== A.m) exactReasons.push('column_count_mismatch');
  else {
    if (!namesEqual) exactReasons.push('column_name_mismatch');
    if (kindDiffs.length > 0 || mapping.some(([i, j]) => !classesKindsMeet(E, A, i, j))) exactReasons.push('type_mismatch');
    if (!positional) exactReasons.push(ev.bagPass ? 'column_order_mismatch' : 'value_mismatch');
    else if (!ev.bagPass) exactReasons.push(...bagOutcome.reasons.filter((c) => c !== 'column_count_mismatch'));
    else if (!strictRowsPass) exactReasons.push('order_violation');
  }
  const exactOutcome: ModeOutcome = { pass: exactPass, reasons: exactPass ? [] : [...new Set(exactReasons.length ? exactReasons : ['value_mismatch'])] as ReasonCode[] };

  // ---- metrics --------------------------------------------------------------
  const eNulls = nullCounts(E);
  const aNulls = nullCounts(A);
  const nullColumns = mapping.map(([i, j]) => ({ expected_index: i, actual_index: j, expected_nulls: eNulls[i]!, actual_nulls: aNulls[j]! }));
  const estimatedPairs = cells.capped ? Math.max(0, Math.min(freeE.length, freeA.length) - cells.count) : 0;
  const agreeRate = cells.count * mapped === 0 ? 0 : stats.agreeing / (cells.count * mapped);
  const matchingCells = match.matched * mapped + stats.agreeing + Math.round(estimatedPairs * mapped * agreeRate);
  const perColumn: ColumnMismatchRate[] = [];
  const byExpected = new Map(mapping.map(([i, j], p) => [i, { j, p }]));
  for (let i = 0; i < E.m; i++) {
    const hit = byExpected.get(i);
    if (!hit) {
      perColumn.push({ ...colRef(i, null), status: 'missing', compared: 0, mismatched: 0, mismatch_rate: 1, null_mismatches: 0, type_mismatches: 0, max_abs_delta: null });
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
    perColumn.push({ ...colRef(null, column.index), status: 'extra', compared: 0, mismatched: 0, mismatch_rate: 1, null_mismatches: 0, type_mismatches: 0, max_abs_delta: null });

  const schemaColumns = (side: Side): SchemaColumn[] =>
    side.columns.map((c, index) => ({ index, name: c.name, kind: c.kind, engine_type: c.engineType }));
  const kindsCompatibleAll = mapping.every(([i, j]) => classesKindsMeet(E, A, i, j));
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

  return {
    result_equality_family: {
      comparison_mode: mode,
      set_semantics: setMode,
      mode_pass: modePass,
      mode_details: { exact: exactOutcome, 'order-insensitive': bagOutcome, 'order-sensitive': orderedOutcome, set: setOutcome },
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
        ? [{ code: 'kinds_incompatible', message: 'Aligned columns have kinds whose values can never be equal (no rows to compare).' }]
        : []),
      ...(cells.capped
        ? [{ code: 'cell_alignment_capped', message: `Cell-level alignment examined at most ${cap} unmatched rows per side; cell figures are estimates.` }]
        : []),
    ],
    config: cfg,
  };

  function positionalFreePass(x: MappingEvaluation): boolean {
    return (setMode ? setOf(x).pass : x.bagPass) && x.mapping.every(([i, j]) => i === j) && mode !== 'exact';
  }
}

function classesKindsMeet(E: Side, A: Side, i: number, j: number): boolean {
  const x = E.columns[i]!.kind;
  const y = A.columns[j]!.kind;
  if (x === 'other' || y === 'other' || x === 'null' || y === 'null') return true;
  const family = (k: string) => (k === 'integer' || k === 'decimal' || k === 'float' ? 'number' : k === 'date' || k === 'timestamp' ? 'datetime' : k);
  return family(x) === family(y);
}

/** Never expected: a failure for which no finer reason was found still gets a reason and a witness. */
function unexplained(E: Side, A: Side): CellMismatch {
  return {
    code: 'value_mismatch',
    message: 'The results differ (no finer witness found).',
    column: { expected_index: null, expected_name: null, actual_index: null, actual_name: null },
    expected: null,
    actual: null,
    delta: null,
    tolerance: null,
    rule: 'equality',
    expected_row: E.n ? rowWitness(E, 0) : { position: -1, values: [] },
    actual_row: A.n ? rowWitness(A, 0) : { position: -1, values: [] },
    pairing: 'leftover',
    mismatched_pairs: 0,
    expected_kind: 'other',
    actual_kind: 'other',
    expected_engine_type: '',
    actual_engine_type: '',
  };
}

function kindOnlyMismatch(E: Side, A: Side, i: number, j: number, column: ColumnRef): TypeMismatch {
  const ec = E.columns[i]!;
  const ac = A.columns[j]!;
  return {
    code: 'type_mismatch',
    message: `Exact comparison requires equal kinds: column "${ec.name}" is ${ec.kind} (${ec.engineType}) in the expected result and ${ac.kind} (${ac.engineType}) in the actual one.`,
    column,
    expected_kind: ec.kind,
    actual_kind: ac.kind,
    expected_engine_type: ec.engineType,
    actual_engine_type: ac.engineType,
    expected: null,
    actual: null,
    expected_row: null,
    actual_row: null,
    mismatched_pairs: 0,
  };
}

// ---------------------------------------------------------------------------

interface ColumnStats {
  mismatched: number;
  nullMismatches: number;
  typeMismatches: number;
  maxAbs: number | null;
  /** Index (into the cell pairs) of the first value, null and type mismatch. */
  firstValue: number;
  firstNull: number;
  firstType: number;
  valueCount: number;
  nullCount: number;
  typeCount: number;
}

interface CellStats {
  agreeing: number;
  nullMismatches: number;
  columns: ColumnStats[];
  numeric: {
    floatCompared: number;
    within: number;
    outside: number;
    exactCompared: number;
    exactMismatches: number;
    maxAbs: number;
    maxRel: number;
  };
}

function cellStatistics(
  ctx: ReturnType<typeof createMatchContext>,
  cells: CellPairs,
  matchE: Int32Array,
  toleranceMatched: number,
  matchByTolerance: Uint8Array | null,
  mapping: Mapping,
  E: Side,
  A: Side,
): CellStats {
  const { tol, pairs } = ctx;
  const numeric = { floatCompared: 0, within: 0, outside: 0, exactCompared: 0, exactMismatches: 0, maxAbs: 0, maxRel: 0 };
  const columns: ColumnStats[] = mapping.map(() => ({
    mismatched: 0,
    nullMismatches: 0,
    typeMismatches: 0,
    maxAbs: null,
    firstValue: -1,
    firstNull: -1,
    firstType: -1,
    valueCount: 0,
    nullCount: 0,
    typeCount: 0,
  }));
  const note = (p: number, d: ReturnType<typeof numericDelta>, equal: boolean) => {
    if (!d) return;
    if (d.rule === 'float') {
      numeric.floatCompared++;
      if (equal && d.abs_delta !== 0) numeric.within++;
      if (!equal) numeric.outside++;
    } else {
      numeric.exactCompared++;
      if (!equal) numeric.exactMismatches++;
    }
    if (d.abs_delta !== null) {
      numeric.maxAbs = Math.max(numeric.maxAbs, d.abs_delta);
      const s = columns[p]!;
      s.maxAbs = Math.max(s.maxAbs ?? 0, d.abs_delta);
    }
    if (d.rel_delta !== null) numeric.maxRel = Math.max(numeric.maxRel, d.rel_delta);
  };
  // Matched rows: numeric cells compared. Rows paired by the exact phase have equal keys and hold
  // identical numbers (barring a 64-bit key collision, which could only hide a within-tolerance delta
  // from these statistics, never change a verdict); deltas are computed for tolerance-phase pairs.
  const byTolerance = toleranceMatched > 0 ? matchByTolerance : null;
  const eNulls = nullCounts(E);
  let matchedAll = true;
  for (let r = 0; r < matchE.length && matchedAll; r++) matchedAll = matchE[r]! >= 0;
  for (let p = 0; p < pairs.length; p++) {
    const pair = pairs[p]!;
    const numericKinds = (k: string) => k === 'integer' || k === 'decimal' || k === 'float' || k === 'other';
    if (!numericKinds(pair.ec.kind) || !numericKinds(pair.ac.kind)) continue;
    const exactPair = (pair.ec.kind === 'integer' || pair.ec.kind === 'decimal') && (pair.ac.kind === 'integer' || pair.ac.kind === 'decimal');
    if (exactPair || (!byTolerance && pair.ec.kind !== 'other' && pair.ac.kind !== 'other')) {
      // Matched rows hold equal (exact-phase: identical) numbers: count the non-NULL ones.
      let count = 0;
      if (matchedAll) count = E.n - eNulls[pair.ei]!;
      else
        for (let r = 0; r < matchE.length; r++) {
          const x = matchE[r]! >= 0 ? E.rows[r]![pair.ei] : null;
          if (x !== null && x !== undefined) count++;
        }
      if (exactPair) numeric.exactCompared += count;
      else numeric.floatCompared += count;
      continue;
    }
    const s = columns[p]!;
    for (let r = 0; r < matchE.length; r++) {
      const a = matchE[r]!;
      if (a < 0) continue;
      const x = E.rows[r]![pair.ei];
      if (x === null || x === undefined) continue;
      if (!byTolerance || !byTolerance[r]) {
        if (typeof x === 'number' || pair.ec.kind !== 'other') numeric.floatCompared++;
        continue;
      }
      const y = A.rows[a]![pair.ai];
      if (y === null || y === undefined) continue;
      if (typeof x === 'number' && typeof y === 'number') {
        // The float rule's statistics without allocating: both finite here (matched, not identical).
        numeric.floatCompared++;
        if (x === y || (x !== x && y !== y)) continue;
        const abs = Math.abs(y - x);
        const scale = Math.max(Math.abs(x), Math.abs(y));
        if (abs !== 0) numeric.within++;
        if (abs > numeric.maxAbs) numeric.maxAbs = abs;
        if (s.maxAbs === null || abs > s.maxAbs) s.maxAbs = abs;
        const rel = scale === 0 ? 0 : abs / scale;
        if (rel > numeric.maxRel) numeric.maxRel = rel;
        continue;
      }
      note(p, numericDelta(pair.ec, x, pair.ac, y, tol), true);
    }
  }
  let agreeing = 0;
  let nullMismatches = 0;
  for (let k = 0; k < cells.count; k++) {
    const er = cells.e[k]!;
    const ar = cells.a[k]!;
    for (let p = 0; p < pairs.length; p++) {
      const pair = pairs[p]!;
      const x = E.rows[er]![pair.ei] ?? null;
      const y = A.rows[ar]![pair.ai] ?? null;
      const equal = cellsEqual(pair.ec, x, pair.ac, y, tol);
      if (x !== null && y !== null) note(p, numericDelta(pair.ec, x, pair.ac, y, tol), equal);
      if (equal) {
        agreeing++;
        continue;
      }
      const s = columns[p]!;
      s.mismatched++;
      if (x === null || y === null) {
        if (!(x === null && y === null)) {
          s.nullMismatches++;
          nullMismatches++;
        }
        s.nullCount++;
        if (s.firstNull < 0) s.firstNull = k;
      } else if (!classesMeet(classOf(pair.ec.kind, x), classOf(pair.ac.kind, y))) {
        s.typeMismatches++;
        s.typeCount++;
        if (s.firstType < 0) s.firstType = k;
      } else {
        s.valueCount++;
        if (s.firstValue < 0) s.firstValue = k;
      }
    }
  }
  return { agreeing, nullMismatches, columns, numeric };
}

function cellReasons(
  stats: CellStats,
  cells: CellPairs,
  mapping: Mapping,
  E: Side,
  A: Side,
  colRef: (i: number | null, j: number | null) => ColumnRef,
  tol: Tolerance,
): Reason[] {
  const out: { k: number; reason: Reason }[] = [];
  mapping.forEach(([i, j], p) => {
    const s = stats.columns[p]!;
    const ec = E.columns[i]!;
    const ac = A.columns[j]!;
    const at = (k: number) => {
      const er = cells.e[k]!;
      const ar = cells.a[k]!;
      const x = E.rows[er]![i] ?? null;
      const y = A.rows[ar]![j] ?? null;
      return { er, ar, x, y, expected: cellWitness(ec, x), actual: cellWitness(ac, y) };
    };
    const base = (k: number) => {
      const w = at(k);
      return {
        column: colRef(i, j),
        expected: w.expected,
        actual: w.actual,
        expected_row: rowWitness(E, w.er),
        actual_row: rowWitness(A, w.ar),
        expected_kind: ec.kind,
        actual_kind: ac.kind,
        expected_engine_type: ec.engineType,
        actual_engine_type: ac.engineType,
        w,
      };
    };
    if (s.firstValue >= 0) {
      const { w, ...b } = base(s.firstValue);
      const d = numericDelta(ec, w.x, ac, w.y, tol);
      const rule: CellMismatch['rule'] = d ? d.rule : 'equality';
      const delta = d ? d.delta : null;
      const tolerance = d ? d.tolerance : null;
      out.push({
        k: s.firstValue,
        reason: {
          code: 'value_mismatch',
          message: `Column "${ec.name}" differs: expected ${show(w.expected)}, got ${show(w.actual)}${
            d ? (d.rule === 'exact' ? ` (exact rule, difference ${String(delta)})` : ` (difference ${String(delta)} exceeds the tolerance ${String(tolerance)})`) : ''
          }; expected row ${w.er}, actual row ${w.ar}.`,
          ...b,
          delta,
          tolerance,
          rule,
          pairing: cells.byContent[s.firstValue] ? 'best_partial' : 'leftover',
          mismatched_pairs: s.valueCount,
        },
      });
    }
    if (s.firstNull >= 0) {
      const { w, ...b } = base(s.firstNull);
      out.push({
        k: s.firstNull,
        reason: {
          code: 'null_mismatch',
          message:
            w.x === null && w.y === null
              ? `Column "${ec.name}": NULL never equals NULL under null_equality_mode sql_semantic; expected row ${w.er}, actual row ${w.ar}.`
              : `Column "${ec.name}": NULL matches only NULL; expected ${show(w.expected)}, got ${show(w.actual)}; expected row ${w.er}, actual row ${w.ar}.`,
          ...b,
          delta: null,
          tolerance: null,
          rule: 'null',
          pairing: cells.byContent[s.firstNull] ? 'best_partial' : 'leftover',
          mismatched_pairs: s.nullCount,
        },
      });
    }
    if (s.firstType >= 0) {
      const { w, ...b } = base(s.firstType);
      const xc = CLASS_NAMES[classOf(ec.kind, w.x)];
      const yc = CLASS_NAMES[classOf(ac.kind, w.y)];
      out.push({
        k: s.firstType,
        reason: {
          code: 'type_mismatch',
          message: `Column "${ec.name}": a ${xc} never equals a ${yc}${
            classOf(ec.kind, w.x) === BOOL || classOf(ac.kind, w.y) === BOOL ? ' (booleans match only booleans)' : ''
          }; expected ${show(w.expected)}, got ${show(w.actual)}.`,
          column: b.column,
          expected_kind: b.expected_kind,
          actual_kind: b.actual_kind,
          expected_engine_type: b.expected_engine_type,
          actual_engine_type: b.actual_engine_type,
          expected: b.expected,
          actual: b.actual,
          expected_row: b.expected_row,
          actual_row: b.actual_row,
          mismatched_pairs: s.typeCount,
        },
      });
    }
  });
  out.sort((x, y) => x.k - y.k);
  return out.slice(0, MAX_CELL_REASONS).map((o) => o.reason);
}

function duplicateWitness(ev: MappingEvaluation, freeE: Int32Array, freeA: Int32Array, aIndex: RowIndex, eIndex: RowIndex): Reason | null {
  const { ctx } = ev;
  const E = ctx.E;
  const A = ctx.A;
  if (freeE.length > 0) {
    const e = freeE[0]!;
    const a = findEqual(ctx, aIndex, e);
    if (a < 0) return null;
    const expectedCount = countEqual(ctx, eIndex, aIndex.list[a]!);
    const actualCount = countEqual(ctx, aIndex, e);
    return {
      code: 'duplicate_rows',
      message: `The results agree as sets but not as bags: expected row ${e} appears ${plural(expectedCount, 'time')} in the expected result and ${plural(actualCount, 'time')} in the actual one.`,
      row: rowWitness(E, e),
      side: 'expected',
      expected_count: expectedCount,
      actual_count: actualCount,
    };
  }
  if (freeA.length > 0) {
    const a = freeA[0]!;
    const e = findEqual(ctx, eIndex, a);
    if (e < 0) return null;
    const expectedCount = countEqual(ctx, eIndex, a);
    const actualCount = countEqual(ctx, aIndex, eIndex.list[e]!);
    return {
      code: 'duplicate_rows',
      message: `The results agree as sets but not as bags: actual row ${a} appears ${plural(actualCount, 'time')} in the actual result and ${plural(expectedCount, 'time')} in the expected one.`,
      row: rowWitness(A, a),
      side: 'actual',
      expected_count: expectedCount,
      actual_count: actualCount,
    };
  }
  return null;
}

