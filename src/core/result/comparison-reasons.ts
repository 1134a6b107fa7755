/**
 * Steps 4 and 5 of a result comparison (see compare.ts): what differs, each
 * with its witness, in the order a reader needs it (shape, columns, names,
 * rows, row order, exact mode's own checks), then the verdict those reasons
 * support and the outcome of every comparison mode.
 */
import { chooseAlignment, type MappingEvaluation } from './alignment.ts';
import { alignCells } from './cell-align.ts';
import type {
  ComparisonAlignment,
  ComparisonFindings,
  ComparisonSetup,
  ComparisonVerdict,
  ExactChecks,
} from './comparison-record.ts';
import { unmatched } from './evaluation.ts';
import {
  cellReasons,
  cellStatistics,
  duplicateWitness,
  kindOnlyMismatch,
  named,
  plural,
  unexplained,
} from './evidence.ts';
import type { ColumnRef, ComparisonWarning, ModeOutcome, Reason, ReasonCode } from './types.ts';
import { kindsCompatible } from './value-policy.ts';
import { rowWitness } from './witness.ts';

/** 4. Every reason the results differ, with the cell pairing of the rows left unmatched. */
export function findReasons(s: ComparisonSetup, a: ComparisonAlignment, x: ExactChecks): ComparisonFindings {
  const reasons: Reason[] = [];
  const warnings = [...s.warnings];
  const shapeOk = shapeReasons(s, reasons, warnings);
  const { missingColumns, extraColumns } = columnReasons(s, a, reasons);
  const nameProblems = nameReasons(s, a, reasons);
  const rows = rowReasons(s, a, reasons);
  orderReason(s, a, x, reasons);
  if (s.mode === 'exact') exactModeReasons(s, x, nameProblems, reasons);
  if (a.ev.ctx.budget.exhausted && !rows.agree)
    reasons.push({
      code: 'matching_incomplete',
      message:
        'The tolerance matching ran out of its work budget: some rows were left unmatched that a longer search might pair.',
    });
  return { reasons, warnings, shapeOk, missingColumns, extraColumns, nameProblems, ...rows };
}

/** A scalar case: exactly one row and one column. */
function shapeReasons(s: ComparisonSetup, reasons: Reason[], warnings: ComparisonWarning[]): boolean {
  const { E, A } = s;
  const shapeOk = s.options.shape !== 'scalar' || (A.n === 1 && A.m === 1);
  if (s.options.shape === 'scalar') {
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
  return shapeOk;
}

function columnReasons(
  s: ComparisonSetup,
  a: ComparisonAlignment,
  reasons: Reason[],
): Pick<ComparisonFindings, 'missingColumns' | 'extraColumns'> {
  const { E, A } = s;
  const usedE = new Set(a.ev.mapping.map(([i]) => i));
  const usedA = new Set(a.ev.mapping.map(([, j]) => j));
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
  return { missingColumns, extraColumns };
}

/** Under strict names: every aligned pair (or every column, when order is free) must be named alike. */
function nameReasons(s: ComparisonSetup, a: ComparisonAlignment, reasons: Reason[]): ColumnRef[] {
  const { E, A, colRef } = s;
  const mapping = a.ev.mapping;
  const nameProblems: ColumnRef[] = [];
  if (!s.strictNames) return nameProblems;
  if (s.strictOrder) {
    for (const [i, j] of mapping) if (E.columns[i]!.name !== A.columns[j]!.name) nameProblems.push(colRef(i, j));
  } else {
    const paired = new Map(mapping.map(([i, j]) => [i, j]));
    for (const i of a.choice.unnamed.expected) nameProblems.push(colRef(i, paired.get(i) ?? null));
    for (const j of a.choice.unnamed.actual) if (![...paired.values()].includes(j)) nameProblems.push(colRef(null, j));
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
  return nameProblems;
}

/** Rows: the bag residue, paired cell by cell; when the rows disagree, the counts, cells and duplicates that show it. */
function rowReasons(
  s: ComparisonSetup,
  a: ComparisonAlignment,
  reasons: Reason[],
): Pick<ComparisonFindings, 'freeE' | 'freeA' | 'cells' | 'stats' | 'agree'> {
  const { E, A, setMode } = s;
  const { ev, match, setRes } = a;
  const { ctx, mapping } = ev;
  const freeE = unmatched(match.matchE, a.evaluator.allE);
  const freeA = unmatched(match.matchA, a.evaluator.allA);
  const cap = s.cfg.max_rows_for_cell_alignment;
  const cells = alignCells(ctx, freeE, freeA, cap);
  const agree = setMode ? setRes.pass : ev.bagPass;
  const stats = cellStatistics(ctx, cells, match.matchE, match.deltas, match.recorded, mapping, E, A);
  if (agree) return { freeE, freeA, cells, stats, agree };
  const residueE = setMode ? setRes.missingE : freeE;
  const residueA = setMode ? setRes.missingA : freeA;
  const countsDiffer = setMode ? residueE.length !== residueA.length : E.n !== A.n;
  if (countsDiffer)
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
  const witnessCells = setMode ? alignCells(ctx, residueE, residueA, cap) : cells;
  const witnessStats = setMode
    ? cellStatistics(ctx, witnessCells, match.matchE, match.deltas, match.recorded, mapping, E, A)
    : stats;
  reasons.push(...cellReasons(witnessStats, witnessCells, mapping, E, A, s.colRef, s.tol));
  if (!setMode && ev.complete && !ev.bagPass && setRes.pass) {
    const { aIndex, eIndex } = a.evaluator.indexesOf(ev);
    const dup = duplicateWitness(ev, freeE, freeA, aIndex, eIndex);
    if (dup) reasons.push(dup);
  }
  return { freeE, freeA, cells, stats, agree };
}

/** Ordered modes: the first row out of place (within its tie group when the ORDER BY keys are known). */
function orderReason(s: ComparisonSetup, a: ComparisonAlignment, x: ExactChecks, reasons: Reason[]): void {
  const { E, A, mode, keys } = s;
  const ordered = mode === 'order-sensitive' || mode === 'exact';
  if (!ordered || !a.ev.bagPass) return;
  const violation =
    mode === 'exact'
      ? x.strictRowsPass
        ? null
        : { position: x.strictViolation, start: x.strictViolation, end: x.strictViolation + 1 }
      : a.orderRes.violation;
  const tieAware = mode === 'order-sensitive' && keys !== null;
  if (!violation || violation.position < 0) return;
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

/** Exact mode: kinds that differ without a value showing it, and names that differ position by position. */
function exactModeReasons(s: ComparisonSetup, x: ExactChecks, nameProblems: ColumnRef[], reasons: Reason[]): void {
  const { E, A, colRef } = s;
  for (const [i, j] of x.kindDiffs) {
    if (reasons.some((r) => r.code === 'type_mismatch' && r.column.expected_index === i)) continue;
    reasons.push(kindOnlyMismatch(E, A, i, j, colRef(i, j)));
  }
  if (!x.namesEqual && E.m === A.m && nameProblems.length === 0) {
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

/** 5. The verdict of the configured mode, `undecided` when a search ran out of budget before a pass was ruled out. */
/** Whether the results agree under the mode: the verdict's modePass, from the alignment and the shape and name checks. */
function modePassFrom(s: ComparisonSetup, a: ComparisonAlignment, x: ExactChecks, namesOk: boolean, shapeOk: boolean) {
  const { E, A, mode, setMode } = s;
  let modePass: boolean;
  if (mode === 'exact') modePass = x.exactPass;
  else if (mode === 'order-sensitive') modePass = a.ev.bagPass && a.orderRes.pass && namesOk;
  else modePass = (setMode ? a.setRes.pass : a.ev.bagPass) && namesOk;
  return modePass && shapeOk && E.m === A.m;
}

/**
 * The verdict's modePass alone, without the witnesses: a counterfactual only asks whether its result agrees
 * (the same shape and name checks as findReasons, their reasons dropped).
 */
export function modePassOf(s: ComparisonSetup, a: ComparisonAlignment, x: ExactChecks): boolean {
  const dropped: Reason[] = [];
  const shapeOk = shapeReasons(s, dropped, []);
  return modePassFrom(s, a, x, nameReasons(s, a, dropped).length === 0, shapeOk);
}

export function decideVerdict(
  s: ComparisonSetup,
  a: ComparisonAlignment,
  x: ExactChecks,
  f: ComparisonFindings,
): ComparisonVerdict {
  const { E, A, mode, setMode } = s;
  const { ev } = a;
  const modePass = modePassFrom(s, a, x, f.nameProblems.length === 0, f.shapeOk);

  // A failure is certain when shapes, names or kinds rule out every alignment. Otherwise, when a
  // search ran out of its budget (the column search, or a tolerance matching), a longer search might
  // have found the pass: the verdict is `undecided`, never a fail with reasons that may not be true.
  const certainFail =
    E.m !== A.m ||
    !f.shapeOk ||
    f.nameProblems.length > 0 ||
    (!setMode && E.n !== A.n) ||
    (mode === 'exact' && (!x.namesEqual || x.kindDiffs.length > 0));
  const undecided = !modePass && !certainFail && (a.choice.searchCapped || a.evaluator.budgetExhausted());
  let reasons = f.reasons;
  let warnings = f.warnings;
  if (undecided) {
    const what = a.choice.searchCapped
      ? 'the column-alignment search ran out of its work budget before trying every alignment whose columns can hold the same values'
      : 'the tolerance matching ran out of its work budget with rows left unpaired that a longer search might pair';
    reasons = [
      {
        code: 'matching_incomplete',
        message: `Undecided: ${what}. No verdict is given rather than a fail that may not be true.`,
      },
    ];
    warnings = [...warnings, { code: 'comparison_undecided', message: `The comparison is undecided: ${what}.` }];
  }
  if (!modePass && !undecided && s.strictOrder && !positionalFreePass(s, a, ev))
    reasons = [...reasons, ...columnOrderReason(s, a)];
  if (!modePass && reasons.length === 0) reasons = [unexplained(E, A)];
  return { modePass, undecided, reasons, warnings, details: modeDetails(s, a, x, reasons) };
}

function positionalFreePass(s: ComparisonSetup, a: ComparisonAlignment, x: MappingEvaluation): boolean {
  return (
    (s.setMode ? a.evaluator.setOf(x).pass : x.bagPass) && x.mapping.every(([i, j]) => i === j) && s.mode !== 'exact'
  );
}

/** Strict column order failed: do the results agree with the columns reordered? */
function columnOrderReason(s: ComparisonSetup, a: ComparisonAlignment): Reason[] {
  const { evaluate, forget, rowsAgree } = a.evaluator;
  const free = chooseAlignment({
    E: s.E,
    A: s.A,
    tol: s.tol,
    cap: s.cfg.max_rows_for_cell_alignment,
    strictOrder: false,
    strictNames: s.cfg.require_column_name_match,
    bagPrefilter: !s.setMode,
    evaluate,
    passes: rowsAgree,
    forget,
  });
  const freeEv = free.evaluation;
  if (!freeEv || !rowsAgree(freeEv) || freeEv.mapping.every(([i, j]) => i === j)) return [];
  return [
    {
      code: 'column_order_mismatch',
      message: `Columns must keep their order; the results agree with the columns reordered (${freeEv.mapping
        .filter(([i, j]) => i !== j)
        .map(([i, j]) => `expected ${i} ↔ actual ${j}`)
        .join(', ')}).`,
      matching_alignment: freeEv.mapping.map(([i, j]) => ({ expected_index: i, actual_index: j })),
    },
  ];
}

const ROW_CODES: readonly ReasonCode[] = [
  'row_count_mismatch',
  'column_count_mismatch',
  'value_mismatch',
  'null_mismatch',
  'type_mismatch',
  'duplicate_rows',
  'matching_incomplete',
];

/** The outcome of every mode from the same evidence (the report shows what another mode would decide). */
function modeDetails(
  s: ComparisonSetup,
  a: ComparisonAlignment,
  x: ExactChecks,
  reasons: readonly Reason[],
): ComparisonVerdict['details'] {
  const { ev, setRes, orderRes } = a;
  const codesOf = (filter: (code: ReasonCode) => boolean): ReasonCode[] => [
    ...new Set(reasons.map((r) => r.code).filter(filter)),
  ];
  const rowCodes = (code: ReasonCode) => ROW_CODES.includes(code);
  const bagReasons = (): ReasonCode[] => {
    if (ev.bagPass) return [];
    const codes = codesOf((c) => rowCodes(c) && c !== 'duplicate_rows');
    if (ev.complete && setRes.pass) codes.push('duplicate_rows');
    return codes.length ? [...new Set(codes)] : ['value_mismatch'];
  };
  const bag: ModeOutcome = { pass: ev.bagPass, reasons: bagReasons() };
  const setCodes = codesOf((c) => rowCodes(c) && c !== 'duplicate_rows');
  const set: ModeOutcome = {
    pass: setRes.pass,
    reasons: setRes.pass ? [] : setCodes.length ? setCodes : ['value_mismatch'],
  };
  const ordered: ModeOutcome = {
    pass: ev.bagPass && orderRes.pass,
    reasons: !ev.bagPass ? bag.reasons : orderRes.pass ? [] : ['order_violation'],
    note:
      s.keys === null
        ? 'ORDER BY keys unknown: strict row order.'
        : `Tie-aware on ORDER BY key columns ${JSON.stringify(s.keys)}.`,
  };
  return { exact: exactOutcome(s, a, x, bag), bag, ordered, set };
}

function exactOutcome(s: ComparisonSetup, a: ComparisonAlignment, x: ExactChecks, bag: ModeOutcome): ModeOutcome {
  const { E, A } = s;
  const { ev } = a;
  const exactReasons: ReasonCode[] = [];
  if (E.m !== A.m) exactReasons.push('column_count_mismatch');
  else {
    if (!x.namesEqual) exactReasons.push('column_name_mismatch');
    if (x.kindDiffs.length > 0 || ev.mapping.some(([i, j]) => !kindsCompatible(E.columns[i]!.kind, A.columns[j]!.kind)))
      exactReasons.push('type_mismatch');
    if (!x.positional) exactReasons.push(ev.bagPass ? 'column_order_mismatch' : 'value_mismatch');
    else if (!ev.bagPass) exactReasons.push(...bag.reasons.filter((c) => c !== 'column_count_mismatch'));
    else if (!x.strictRowsPass) exactReasons.push('order_violation');
  }
  return {
    pass: x.exactPass,
    reasons: x.exactPass ? [] : ([...new Set(exactReasons.length ? exactReasons : ['value_mismatch'])] as ReasonCode[]),
  };
}
