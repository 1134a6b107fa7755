/**
 * Evidence for a failing comparison: statistics over aligned cell pairs,
 * and the reasons with their minimal witnesses (the first differing row
 * pair, the column, both values, the difference and the tolerance).
 */
import type { JsonValue } from '../value/json-codec.ts';
import type { Mapping, MappingEvaluation } from './alignment.ts';
import type { CellPairs } from './cell-align.ts';
import { countEqual, findEqual, type MatchContext, type RowIndex } from './row-match.ts';
import { nullCounts, type Side } from './side.ts';
import type { CellMismatch, ColumnRef, NamedColumn, Reason, TypeMismatch } from './types.ts';
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
import { cellPairWitnesses, rowWitness } from './witness.ts';

/**
 * A difference as a message shows it: a double's subtraction noise
 * (1.1 − 3.21 = −2.1099999999999994) rounded to 12 significant digits; the
 * report's `delta` field keeps the exact value. Exact decimals (text) and
 * integers show as they are.
 */
export function shownNumber(value: string | number | null): string {
  if (typeof value !== 'number' || Number.isInteger(value) || !Number.isFinite(value)) return String(value);
  return String(Number(value.toPrecision(12)));
}

/** Cell-level reasons (value, null, type) reported at most, across columns. */
export const MAX_CELL_REASONS = 20;

export function named(side: Side, index: number): NamedColumn {
  return { index, name: side.columns[index]!.name };
}

export function classesMeet(x: number, y: number): boolean {
  if (x === y) return true;
  const numeric = (c: number) => c === EXACT || c === FLOAT;
  const datetime = (c: number) => c === DATE || c === TIMESTAMP;
  return (numeric(x) && numeric(y)) || (datetime(x) && datetime(y));
}

export function show(value: JsonValue): string {
  return value === null ? 'NULL' : JSON.stringify(value);
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Never expected: a failure for which no finer reason was found still gets a reason and a witness. */
export function unexplained(E: Side, A: Side): CellMismatch {
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

export function kindOnlyMismatch(E: Side, A: Side, i: number, j: number, column: ColumnRef): TypeMismatch {
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

export interface ColumnStats {
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

export interface CellStats {
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

export function cellStatistics(
  ctx: MatchContext,
  cells: CellPairs,
  matchE: Int32Array,
  deltas: Float64Array | null,
  recorded: Uint8Array | null,
  mapping: Mapping,
  E: Side,
  A: Side,
): CellStats {
  const tally = new NumericTally(mapping.length);
  matchedRowNumbers(ctx, tally, matchE, deltas, recorded, E, A);
  const { agreeing, nullMismatches } = pairedCells(ctx, tally, cells, E, A);
  return { agreeing, nullMismatches, columns: tally.columns, numeric: tally.numeric };
}

/** The numeric figures of a comparison and each aligned column's tallies, as cells are visited. */
class NumericTally {
  readonly numeric: CellStats['numeric'] = {
    floatCompared: 0,
    within: 0,
    outside: 0,
    exactCompared: 0,
    exactMismatches: 0,
    maxAbs: 0,
    maxRel: 0,
  };
  readonly columns: ColumnStats[];

  constructor(pairs: number) {
    this.columns = Array.from({ length: pairs }, () => ({
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
  }

  /** A compared pair of numbers under its rule (`d` null: not two numbers). */
  note(p: number, d: ReturnType<typeof numericDelta>, equal: boolean): void {
    if (!d) return;
    const numeric = this.numeric;
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
      const s = this.columns[p]!;
      s.maxAbs = Math.max(s.maxAbs ?? 0, d.abs_delta);
    }
    if (d.rel_delta !== null) numeric.maxRel = Math.max(numeric.maxRel, d.rel_delta);
  }

  /** Two floats of a matched pair `abs` apart (their larger magnitude `scale`): the largest differences so far. */
  spread(p: number, abs: number, scale: number): void {
    const numeric = this.numeric;
    const s = this.columns[p]!;
    if (abs > numeric.maxAbs) numeric.maxAbs = abs;
    if (s.maxAbs === null || abs > s.maxAbs) s.maxAbs = abs;
    const rel = scale === 0 ? 0 : abs / scale;
    if (rel > numeric.maxRel) numeric.maxRel = rel;
  }
}

const isNumericKind = (k: string) => k === 'integer' || k === 'decimal' || k === 'float' || k === 'other';

/**
 * Matched rows: numeric cells compared. Exact numbers of matched rows are equal; the differences in
 * tolerant columns were recorded when the rows were paired.
 */
function matchedRowNumbers(
  ctx: MatchContext,
  tally: NumericTally,
  matchE: Int32Array,
  deltas: Float64Array | null,
  recorded: Uint8Array | null,
  E: Side,
  A: Side,
): void {
  let matchedAll = true;
  for (let r = 0; r < matchE.length && matchedAll; r++) matchedAll = matchE[r]! >= 0;
  for (let p = 0; p < ctx.pairs.length; p++) {
    const pair = ctx.pairs[p]!;
    if (!isNumericKind(pair.ec.kind) || !isNumericKind(pair.ac.kind)) continue;
    const exactPair =
      (pair.ec.kind === 'integer' || pair.ec.kind === 'decimal') &&
      (pair.ac.kind === 'integer' || pair.ac.kind === 'decimal');
    if (exactPair || (!deltas && pair.ec.kind !== 'other' && pair.ac.kind !== 'other'))
      countEqualNumbers(tally, pair.ei, exactPair, matchedAll, matchE, E);
    else tolerantPairNumbers(ctx, tally, p, matchE, deltas, recorded, E, A);
  }
}

/** Matched rows hold equal (exact-phase: identical) numbers: count the non-NULL ones. */
function countEqualNumbers(
  tally: NumericTally,
  column: number,
  exactPair: boolean,
  matchedAll: boolean,
  matchE: Int32Array,
  E: Side,
): void {
  let count = 0;
  if (matchedAll) count = E.n - nullCounts(E)[column]!;
  else
    for (let r = 0; r < matchE.length; r++) {
      const x = matchE[r]! >= 0 ? E.rows[r]![column] : null;
      if (x !== null && x !== undefined) count++;
    }
  if (exactPair) tally.numeric.exactCompared += count;
  else tally.numeric.floatCompared += count;
}

/** A tolerant column pair of the matched rows: the recorded differences, or each pair of numbers visited. */
function tolerantPairNumbers(
  ctx: MatchContext,
  tally: NumericTally,
  p: number,
  matchE: Int32Array,
  deltas: Float64Array | null,
  recorded: Uint8Array | null,
  E: Side,
  A: Side,
): void {
  const pair = ctx.pairs[p]!;
  const numeric = tally.numeric;
  const t = deltas ? ctx.tolerantPairs.indexOf(p) : -1;
  for (let r = 0; r < matchE.length; r++) {
    const a = matchE[r]!;
    if (a < 0) continue;
    const x = E.rows[r]![pair.ei];
    if (x === null || x === undefined) continue;
    const delta = t >= 0 && recorded && recorded[r] ? deltas![r * ctx.tolerantPairs.length + t]! : NaN;
    if (typeof x === 'number' && delta === delta) {
      // Recorded at matching time (actual − expected): no second visit to the actual row.
      numeric.floatCompared++;
      if (delta === 0) continue;
      numeric.within++;
      tally.spread(p, Math.abs(delta), Math.max(Math.abs(x), Math.abs(x + delta)));
      continue;
    }
    const y = A.rows[a]![pair.ai];
    if (y === null || y === undefined) continue;
    if (typeof x === 'number' && typeof y === 'number') {
      // The float rule's statistics without allocating: both finite here (matched, not identical).
      numeric.floatCompared++;
      if (x === y || (x !== x && y !== y)) continue;
      const abs = Math.abs(y - x);
      if (abs !== 0) numeric.within++;
      tally.spread(p, abs, Math.max(Math.abs(x), Math.abs(y)));
      continue;
    }
    tally.note(p, numericDelta(pair.ec, x, pair.ac, y, ctx.tol), true);
  }
}

/** The leftover rows paired cell by cell: agreeing cells, and each column's NULL, type and value mismatches. */
function pairedCells(
  ctx: MatchContext,
  tally: NumericTally,
  cells: CellPairs,
  E: Side,
  A: Side,
): { agreeing: number; nullMismatches: number } {
  let agreeing = 0;
  let nullMismatches = 0;
  for (let k = 0; k < cells.count; k++) {
    const er = cells.e[k]!;
    const ar = cells.a[k]!;
    for (let p = 0; p < ctx.pairs.length; p++) {
      const pair = ctx.pairs[p]!;
      const x = E.rows[er]![pair.ei] ?? null;
      const y = A.rows[ar]![pair.ai] ?? null;
      const equal = cellsEqual(pair.ec, x, pair.ac, y, ctx.tol);
      if (x !== null && y !== null) tally.note(p, numericDelta(pair.ec, x, pair.ac, y, ctx.tol), equal);
      if (equal) {
        agreeing++;
        continue;
      }
      const s = tally.columns[p]!;
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
  return { agreeing, nullMismatches };
}

export function cellReasons(
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
    const witness = (k: number) => cellPairWitness({ cells, E, A, i, j, colRef }, k);
    if (s.firstValue >= 0) out.push({ k: s.firstValue, reason: valueMismatch(witness(s.firstValue), s, tol) });
    if (s.firstNull >= 0) out.push({ k: s.firstNull, reason: nullMismatch(witness(s.firstNull), s) });
    if (s.firstType >= 0) out.push({ k: s.firstType, reason: typeMismatch(witness(s.firstType), s) });
  });
  out.sort((x, y) => x.k - y.k);
  return out.slice(0, MAX_CELL_REASONS).map((o) => o.reason);
}

interface CellPairAt {
  cells: CellPairs;
  E: Side;
  A: Side;
  /** The aligned columns. */
  i: number;
  j: number;
  colRef: (i: number | null, j: number | null) => ColumnRef;
}

/** The k-th paired cells of a column pair, with the witnesses every cell reason carries. */
function cellPairWitness({ cells, E, A, i, j, colRef }: CellPairAt, k: number) {
  const ec = E.columns[i]!;
  const ac = A.columns[j]!;
  const er = cells.e[k]!;
  const ar = cells.a[k]!;
  const x = E.rows[er]![i] ?? null;
  const y = A.rows[ar]![j] ?? null;
  const [expected, actual] = cellPairWitnesses(ec, x, ac, y);
  return {
    ec,
    ac,
    w: { er, ar, x, y },
    pairing: cells.byContent[k] ? ('best_partial' as const) : ('leftover' as const),
    base: {
      column: colRef(i, j),
      expected,
      actual,
      expected_row: rowWitness(E, er),
      actual_row: rowWitness(A, ar),
      expected_kind: ec.kind,
      actual_kind: ac.kind,
      expected_engine_type: ec.engineType,
      actual_engine_type: ac.engineType,
    },
  };
}

type PairWitness = ReturnType<typeof cellPairWitness>;

function valueMismatch({ ec, ac, w, pairing, base }: PairWitness, s: ColumnStats, tol: Tolerance): Reason {
  const d = numericDelta(ec, w.x, ac, w.y, tol);
  const rule: CellMismatch['rule'] = d ? d.rule : 'equality';
  const delta = d ? d.delta : null;
  const tolerance = d ? d.tolerance : null;
  return {
    code: 'value_mismatch',
    message: `Column "${ec.name}" differs: expected ${show(base.expected)}, got ${show(base.actual)}${
      d
        ? d.rule === 'exact'
          ? ` (exact rule, difference ${shownNumber(delta)})`
          : delta === null || tolerance === null
            ? // An infinite or NaN cell has no finite difference: no tolerance can cover it.
              ' (a non-finite value is within no tolerance of another value)'
            : ` (difference ${shownNumber(delta)} exceeds the tolerance ${shownNumber(tolerance)})`
        : ''
    }; expected row ${w.er}, actual row ${w.ar}.`,
    ...base,
    delta,
    tolerance,
    rule,
    pairing,
    mismatched_pairs: s.valueCount,
  };
}

function nullMismatch({ ec, w, pairing, base }: PairWitness, s: ColumnStats): Reason {
  return {
    code: 'null_mismatch',
    message:
      w.x === null && w.y === null
        ? `Column "${ec.name}": NULL never equals NULL under null_equality_mode sql_semantic; expected row ${w.er}, actual row ${w.ar}.`
        : `Column "${ec.name}": NULL matches only NULL; expected ${show(base.expected)}, got ${show(base.actual)}; expected row ${w.er}, actual row ${w.ar}.`,
    ...base,
    delta: null,
    tolerance: null,
    rule: 'null',
    pairing,
    mismatched_pairs: s.nullCount,
  };
}

/** "an exact number", "an interval", "a text": the class names start with a vowel or not. */
const withArticle = (name: string | undefined) => `${/^[aeiou]/.test(name ?? '') ? 'an' : 'a'} ${name}`;

function typeMismatch({ ec, ac, w, base }: PairWitness, s: ColumnStats): Reason {
  const xc = classOf(ec.kind, w.x);
  const yc = classOf(ac.kind, w.y);
  return {
    code: 'type_mismatch',
    message: `Column "${ec.name}": ${withArticle(CLASS_NAMES[xc])} never equals ${withArticle(CLASS_NAMES[yc])}${
      xc === BOOL || yc === BOOL ? ' (booleans match only booleans)' : ''
    }; expected ${show(base.expected)}, got ${show(base.actual)}.`,
    column: base.column,
    expected_kind: base.expected_kind,
    actual_kind: base.actual_kind,
    expected_engine_type: base.expected_engine_type,
    actual_engine_type: base.actual_engine_type,
    expected: base.expected,
    actual: base.actual,
    expected_row: base.expected_row,
    actual_row: base.actual_row,
    mismatched_pairs: s.typeCount,
  };
}

export function duplicateWitness(
  ev: MappingEvaluation,
  freeE: Int32Array,
  freeA: Int32Array,
  aIndex: RowIndex,
  eIndex: RowIndex,
): Reason | null {
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
