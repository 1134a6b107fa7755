/**
 * Column alignment: a one-to-one mapping of expected columns to actual
 * columns. Columns are never compared independently — every candidate
 * alignment is judged by comparing whole rows, so row-scrambled tables never
 * pass. Preference order: positional, then by name, then by content (a
 * search over one-to-one mappings, see `searchMappings`); when none makes
 * the results agree, the alignment sharing the most values (Hungarian
 * assignment over per-column value overlap) is used for partial credit and
 * witnesses.
 */
import { SCHEME_NORMAL, SCHEME_SIMILAR, fmix, hashByKind } from './cell-hash.ts';
import type { ListMatch, MatchContext, PreparedMatch } from './row-match.ts';
import { SEARCH_LIMITS } from './limits.ts';
import { columnSummary, nullCounts, schemeFor, type Side } from './side.ts';
import { cellsEqual, isTolerantKind, kindsCompatible, toDouble, type Tolerance } from './value-policy.ts';

export type Mapping = readonly (readonly [number, number])[];

export interface MappingEvaluation {
  mapping: Mapping;
  ctx: MatchContext;
  prepared: PreparedMatch;
  /** The matching, once computed (`passes` computes it when a pass is still possible). */
  match: ListMatch | null;
  /** Every expected column aligned and the column counts equal. */
  complete: boolean;
  /** False when column fingerprints already rule out equal bags. */
  possible: boolean;
  /** Known once `match` is computed. */
  bagPass: boolean;
}

export interface AlignmentRequest {
  E: Side;
  A: Side;
  tol: Tolerance;
  /** max_rows_for_cell_alignment: the sample size for content scoring. */
  cap: number;
  strictOrder: boolean;
  strictNames: boolean;
  /** Row counts and column value multisets must agree for a pass (false under set semantics). */
  bagPrefilter: boolean;
  evaluate(mapping: Mapping): MappingEvaluation;
  /** Does this evaluation pass the selected mode? */
  passes(evaluation: MappingEvaluation): boolean;
  /** Drop a failed evaluation from the evaluator's cache (the search may try many). */
  forget?(evaluation: MappingEvaluation): void;
}

export interface AlignmentChoice {
  mapping: Mapping;
  method: 'positional' | 'name' | 'content' | 'best_effort';
  checked: number;
  searchCapped: boolean;
  sampled: boolean;
  /** Names with no same-named partner (strict names only). */
  unnamed: { expected: number[]; actual: number[] };
}

/** Complete mappings the content search may always compare in full, whatever their size (see SEARCH_LIMITS). */
const MIN_FULL_CHECKS = 64;
/** Expected rows probed for an equal row on the columns mapped so far (floats and other tolerant pairs). */
const PROBE_ROWS = 16;

/**
 * Can expected column `i` and actual column `j` ever be aligned? Their kinds
 * must be able to hold equal values, except that a column holding only NULLs
 * (on either side) pairs with a column of any kind: a NULL has no type to
 * disagree with (INTEGER NULLs from one engine, VARCHAR NULLs from another).
 */
export function columnsCompatible(E: Side, i: number, A: Side, j: number): boolean {
  if (kindsCompatible(E.columns[i]!.kind, A.columns[j]!.kind)) return true;
  return (E.n > 0 && nullCounts(E)[i] === E.n) || (A.n > 0 && nullCounts(A)[j] === A.n);
}

export function positionalMapping(E: Side, A: Side): [number, number][] {
  return Array.from({ length: Math.min(E.m, A.m) }, (_, i) => [i, i] as [number, number]);
}

/** Expected columns to the first unused actual column of the same name (exact, case-sensitive). */
export function nameMapping(E: Side, A: Side): { pairs: [number, number][]; expected: number[]; actual: number[] } {
  const used = new Uint8Array(A.m);
  const pairs: [number, number][] = [];
  const expected: number[] = [];
  for (let i = 0; i < E.m; i++) {
    let found = -1;
    for (let j = 0; j < A.m; j++) {
      if (!used[j] && A.columns[j]!.name === E.columns[i]!.name) {
        found = j;
        break;
      }
    }
    if (found >= 0) {
      used[found] = 1;
      pairs.push([i, found]);
    } else expected.push(i);
  }
  const actual: number[] = [];
  for (let j = 0; j < A.m; j++) if (!used[j]) actual.push(j);
  return { pairs, expected, actual };
}

// ---------------------------------------------------------------------------
// Necessary conditions for a column pair to hold the same bag of values.

interface NumberProfile {
  nulls: number;
  nans: number;
  posInf: number;
  negInf: number;
  finite: number;
  sum: number;
  absSum: number;
}

/** Counts and sums of a numeric column (null when the column is not numeric). */
function numberProfile(side: Side, index: number): NumberProfile | null {
  const kind = side.columns[index]!.kind;
  if (kind !== 'integer' && kind !== 'decimal' && kind !== 'float') return null;
  const p: NumberProfile = { nulls: 0, nans: 0, posInf: 0, negInf: 0, finite: 0, sum: 0, absSum: 0 };
  let sum = 0;
  let absSum = 0;
  for (let r = 0; r < side.n; r++) {
    const cell = side.rows[r]![index];
    if (cell === null || cell === undefined) {
      p.nulls++;
      continue;
    }
    const v =
      typeof cell === 'number' ? cell : typeof cell === 'string' || typeof cell === 'bigint' ? toDouble(cell) : NaN;
    if (v !== v) p.nans++;
    else if (v === Infinity) p.posInf++;
    else if (v === -Infinity) p.negInf++;
    else {
      p.finite++;
      sum += v;
      absSum += Math.abs(v);
    }
  }
  p.sum = sum;
  p.absSum = absSum;
  return p;
}

class PairFilter {
  private readonly profiles = new Map<string, NumberProfile | null>();
  private readonly verdicts = new Map<string, boolean>();

  constructor(
    private readonly E: Side,
    private readonly A: Side,
    private readonly tol: Tolerance,
  ) {}

  private profile(side: Side, tag: string, index: number): NumberProfile | null {
    const key = `${tag}${index}`;
    if (!this.profiles.has(key)) this.profiles.set(key, numberProfile(side, index));
    return this.profiles.get(key)!;
  }

  /** Could expected column `ei` and actual column `ai` hold the same bag of values? */
  mayMatch(ei: number, ai: number): boolean {
    const key = `${ei}:${ai}`;
    const known = this.verdicts.get(key);
    if (known !== undefined) return known;
    const verdict = this.decide(ei, ai);
    this.verdicts.set(key, verdict);
    return verdict;
  }

  private decide(ei: number, ai: number): boolean {
    const ec = this.E.columns[ei]!;
    const ac = this.A.columns[ai]!;
    if (!columnsCompatible(this.E, ei, this.A, ai)) return false;
    // Equal bags hold as many NULLs (NULL equals only NULL; under sql_semantic no NULL can match at all).
    if (nullCounts(this.E)[ei] !== nullCounts(this.A)[ai]) return false;
    if (!isTolerantKind(ec.kind) && !isTolerantKind(ac.kind)) {
      // Equal bags of values have equal fingerprints (equal values hash alike on non-tolerant kinds).
      const x = columnSummary(this.E, ei, schemeFor(ec, ac));
      const y = columnSummary(this.A, ai, schemeFor(ac, ec));
      return x.fpA === y.fpA && x.fpB === y.fpB;
    }
    const x = this.profile(this.E, 'e', ei);
    const y = this.profile(this.A, 'a', ai);
    if (!x || !y) return true;
    if (
      x.nulls !== y.nulls ||
      x.nans !== y.nans ||
      x.posInf !== y.posInf ||
      x.negInf !== y.negInf ||
      x.finite !== y.finite
    )
      return false;
    // If the values pair up within the float rule, the sums differ by at most the summed tolerances
    // (≤ n·atol + rtol·Σ(|a| + |b|)); slack covers rounding in the sums themselves.
    const scale = x.absSum + y.absSum;
    const bound = x.finite * this.tol.atol + this.tol.rtol * scale + 1e-9 * scale;
    return Math.abs(x.sum - y.sum) <= bound;
  }
}

// ---------------------------------------------------------------------------
// Best effort: the alignment that shares the most values.

/** The column's value hashes (numbers rounded), sorted; a consistent sample (by hash value) when `threshold` < 2^32. */
function sampledHashes(side: Side, index: number, threshold: number, expected: number): Int32Array {
  const column = side.columns[index]!;
  const numeric =
    column.kind === 'integer' || column.kind === 'decimal' || column.kind === 'float' || column.kind === 'other';
  const scheme = numeric ? SCHEME_SIMILAR : SCHEME_NORMAL;
  let out = new Int32Array(Math.max(16, Math.min(side.n, Math.ceil(expected * 1.2))));
  let k = 0;
  for (let r = 0; r < side.n; r++) {
    const h = hashByKind(column, side.rows[r]![index], scheme);
    if (h >>> 0 >= threshold) continue;
    if (k === out.length) {
      const grown = new Int32Array(out.length * 2);
      grown.set(out);
      out = grown;
    }
    out[k++] = h;
  }
  return out.subarray(0, k).sort();
}

function sharedCount(x: Int32Array, y: Int32Array): number {
  let i = 0;
  let j = 0;
  let shared = 0;
  while (i < x.length && j < y.length) {
    if (x[i]! < y[j]!) i++;
    else if (x[i]! > y[j]!) j++;
    else {
      shared++;
      i++;
      j++;
    }
  }
  return shared;
}

/** Minimum-cost assignment of rows to columns (rows ≤ columns), Hungarian algorithm with potentials. */
export function hungarian(cost: number[][]): number[] {
  const n = cost.length;
  const m = n === 0 ? 0 : cost[0]!.length;
  const u = new Float64Array(n + 1);
  const v = new Float64Array(m + 1);
  const p = new Int32Array(m + 1);
  const way = new Int32Array(m + 1);
  for (let i = 1; i <= n; i++) {
    p[0] = i;
    let j0 = 0;
    const minv = new Float64Array(m + 1).fill(Infinity);
    const used = new Uint8Array(m + 1);
    do {
      used[j0] = 1;
      const i0 = p[j0]!;
      let delta = Infinity;
      let j1 = 0;
      for (let j = 1; j <= m; j++) {
        if (used[j]) continue;
        const cur = cost[i0 - 1]![j - 1]! - u[i0]! - v[j]!;
        if (cur < minv[j]!) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= m; j++) {
        if (used[j]) {
          u[p[j]!]! += delta;
          v[j]! -= delta;
        } else minv[j]! -= delta;
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0]!;
      p[j0] = p[j1]!;
      j0 = j1;
    } while (j0);
  }
  const assignment = new Array<number>(n).fill(-1);
  for (let j = 1; j <= m; j++) if (p[j]! > 0) assignment[p[j]! - 1] = j - 1;
  return assignment;
}

function bestEffortMapping(E: Side, A: Side, cap: number): { mapping: [number, number][]; sampled: boolean } {
  const k = Math.min(E.m, A.m);
  if (k === 0) return { mapping: [], sampled: false };
  if (E.m === 1 && A.m === 1) return { mapping: [[0, 0]], sampled: false };
  const n = Math.max(E.n, A.n);
  const target = Math.max(cap, 1000);
  const sampled = n > target;
  const threshold = sampled ? Math.floor((0x100000000 * target) / n) : 0x100000000;
  const eh = E.columns.map((_, i) => sampledHashes(E, i, threshold, (E.n * threshold) / 0x100000000));
  const ah = A.columns.map((_, j) => sampledHashes(A, j, threshold, (A.n * threshold) / 0x100000000));
  const score = (i: number, j: number): number => {
    const x = eh[i]!;
    const y = ah[j]!;
    const sim = x.length + y.length === 0 ? 0 : (2 * sharedCount(x, y)) / (x.length + y.length);
    const ec = E.columns[i]!;
    const ac = A.columns[j]!;
    return (
      sim + (kindsCompatible(ec.kind, ac.kind) ? 4e-6 : 0) + (i === j ? 2e-6 : 0) + (ec.name === ac.name ? 1e-6 : 0)
    );
  };
  const transpose = E.m > A.m;
  const rows = transpose ? A.m : E.m;
  const cols = transpose ? E.m : A.m;
  const cost: number[][] = [];
  for (let r = 0; r < rows; r++) {
    const line: number[] = [];
    for (let c = 0; c < cols; c++) line.push(-(transpose ? score(c, r) : score(r, c)));
    cost.push(line);
  }
  const assignment = hungarian(cost);
  const mapping: [number, number][] = assignment.map((c, r) => (transpose ? [c, r] : [r, c]));
  mapping.sort((x, y) => x[0] - y[0]);
  return { mapping, sampled };
}

// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// The content search.

/** Same value for pairing purposes: the same JavaScript value (NaN with NaN; -0 apart from 0 is harmless). */
function sameCell(u: unknown, v: unknown): boolean {
  return Object.is(u, v) || ((u === null || u === undefined) && (v === null || v === undefined));
}

/**
 * Interchangeable actual columns: the same kind and engine type and the same
 * cells row by row. Mapping an expected column to either gives the same
 * comparison, so the search tries one per class. Returns each column's class
 * representative (its own index when alone).
 */
function interchangeableClasses(A: Side): Int32Array {
  const rep = Int32Array.from({ length: A.m }, (_, j) => j);
  const hashes = A.columns.map((column, j) => {
    let h = 0x2f1e4a37;
    for (let r = 0; r < A.n; r++)
      h = (Math.imul(h ^ hashByKind(column, A.rows[r]![j], SCHEME_NORMAL), 0x01000193) + 0x7f4a7c15) | 0;
    return h;
  });
  for (let j = 1; j < A.m; j++) {
    const cj = A.columns[j]!;
    for (let k = 0; k < j; k++) {
      const ck = A.columns[k]!;
      if (rep[k] !== k || hashes[k] !== hashes[j] || ck.kind !== cj.kind || ck.engineType !== cj.engineType) continue;
      if (ck.children !== undefined || cj.children !== undefined) continue;
      let same = true;
      for (let r = 0; r < A.n && same; r++) same = sameCell(A.rows[r]![k], A.rows[r]![j]);
      if (same) {
        rep[j] = k;
        break;
      }
    }
  }
  return rep;
}

const RUN_SEED = 0x3c6ef372;

function extendRun(prev: Int32Array | null, side: Side, column: number, out: Int32Array): void {
  const c = side.columns[column]!;
  for (let r = 0; r < side.n; r++) {
    const h = hashByKind(c, side.rows[r]![column], SCHEME_NORMAL);
    out[r] = (Math.imul((prev ? prev[r]! : RUN_SEED) ^ h, 0x01000193) + 0x7f4a7c15) | 0;
  }
}

/** Do two lists of row hashes hold the same multiset (bag) or the same set of values? Equal inputs always say yes. */
function sameHashes(x: Int32Array, y: Int32Array, bag: boolean): boolean {
  if (bag) {
    if (x.length !== y.length) return false;
    let a1 = 0;
    let a2 = 0;
    let b1 = 0;
    let b2 = 0;
    for (let r = 0; r < x.length; r++) {
      a1 = (a1 + fmix(x[r]! ^ 0x5f356495)) | 0;
      a2 = (a2 + fmix(Math.imul(x[r]!, 0x2c1b3c6d) ^ 0x297a2d39)) | 0;
    }
    for (let r = 0; r < y.length; r++) {
      b1 = (b1 + fmix(y[r]! ^ 0x5f356495)) | 0;
      b2 = (b2 + fmix(Math.imul(y[r]!, 0x2c1b3c6d) ^ 0x297a2d39)) | 0;
    }
    return a1 === b1 && a2 === b2;
  }
  const sx = x.slice().sort();
  const sy = y.slice().sort();
  let i = 0;
  let j = 0;
  while (i < sx.length || j < sy.length) {
    if (i === sx.length || j === sy.length || sx[i] !== sy[j]) return false;
    const v = sx[i]!;
    while (i < sx.length && sx[i] === v) i++;
    while (j < sy.length && sy[j] === v) j++;
  }
  return true;
}

export interface SearchInput {
  E: Side;
  A: Side;
  tol: Tolerance;
  /** Rows must agree as a bag (true) or as a set (false). */
  bag: boolean;
  /** Per expected column, the actual columns it may take, in order of preference. */
  options: readonly (readonly number[])[];
  /** A complete mapping (sorted by expected index): stop (it passes), go on, or stop because the budget ran out. */
  leaf(mapping: Mapping): 'stop' | 'continue' | 'capped';
}

/**
 * Backtracking over one-to-one mappings, extending a partial mapping only
 * while the rows projected on the columns mapped so far can still agree:
 * for pairs of exact columns the projected rows must hold the same multiset
 * (the same set under set semantics) of hashes — equal cells hash alike, so
 * this never rules out a mapping that passes, and it cuts Latin squares and
 * columns with identical value multisets after a column or two; for pairs
 * involving floats (or other tolerant values) a few expected rows must still
 * find an equal actual row on the mapped columns. Interchangeable actual
 * columns are tried once. Returns true when a budget ran out before the
 * search was complete.
 */
export function searchMappings(input: SearchInput): boolean {
  if (input.E.m === 0) return input.leaf([]) === 'capped';
  const search = new MappingSearch(input);
  search.descend(0);
  return search.capped;
}

/** The backtracking state of {@link searchMappings}: the partial mapping, the projected row hashes per depth, the work done. */
class MappingSearch {
  private readonly E: Side;
  private readonly A: Side;
  private readonly m: number;
  /** Most constrained expected column first (ties: position). */
  private readonly order: number[];
  private readonly rep: Int32Array | number[];
  private readonly used: Uint8Array;
  private readonly assigned: Int32Array;
  private readonly eRuns: (Int32Array | null)[];
  private readonly aRuns: (Int32Array | null)[];
  private readonly eStore: Int32Array[] = [];
  private readonly aStore: Int32Array[] = [];
  private readonly tolerantPath: [number, number][] = [];
  private readonly probes: number[];
  /** Everything forced: one complete mapping, nothing to prune. */
  private readonly forced: boolean;
  private work = 0;
  capped = false;

  constructor(private readonly input: SearchInput) {
    const { E, A, options } = input;
    this.E = E;
    this.A = A;
    this.m = E.m;
    this.order = options.map((_, i) => i).sort((x, y) => options[x]!.length - options[y]!.length || x - y);
    this.rep = interchangeableClasses(A);
    this.used = new Uint8Array(A.m);
    this.assigned = new Int32Array(this.m).fill(-1);
    this.eRuns = new Array<Int32Array | null>(this.m + 1).fill(null);
    this.aRuns = new Array<Int32Array | null>(this.m + 1).fill(null);
    this.probes = Array.from({ length: Math.min(PROBE_ROWS, E.n) }, (_, k) =>
      Math.floor(((k + 0.5) * E.n) / Math.min(PROBE_ROWS, E.n)),
    );
    this.forced = options.every((o) => o.length === 1) && new Set(options.map((o) => o[0])).size === this.m;
  }

  /** Try every option of the expected column at depth d; true stops the whole search. */
  descend(d: number): boolean {
    if (d === this.m) return this.leaf();
    const i = this.order[d]!;
    const opts = this.input.options[i]!;
    for (let k = 0; k < opts.length; k++) {
      const j = opts[k]!;
      if (this.used[j]) continue;
      // An unused interchangeable column earlier in the preferences already covers this one.
      let covered = false;
      for (let q = 0; q < k && !covered; q++) covered = !this.used[opts[q]!] && this.rep[opts[q]!] === this.rep[j];
      if (covered) continue;
      if (this.forced) {
        if (this.assignAndDescend(d, i, j)) return true;
        continue;
      }
      if (this.work > SEARCH_LIMITS.alignmentCells) {
        this.capped = true;
        return true;
      }
      const isTolerant = isTolerantKind(this.E.columns[i]!.kind) || isTolerantKind(this.A.columns[j]!.kind);
      if (isTolerant) this.tolerantPath.push([i, j]);
      const stop = this.extend(d, i, j) && this.assignAndDescend(d, i, j);
      if (isTolerant) this.tolerantPath.pop();
      if (stop) return true;
    }
    return false;
  }

  private assignAndDescend(d: number, i: number, j: number): boolean {
    this.used[j] = 1;
    this.assigned[i] = j;
    const stop = this.descend(d + 1);
    this.used[j] = 0;
    this.assigned[i] = -1;
    return stop;
  }

  private leaf(): boolean {
    const mapping: [number, number][] = [];
    for (let i = 0; i < this.m; i++) mapping.push([i, this.assigned[i]!]);
    const next = this.input.leaf(mapping);
    if (next === 'capped') this.capped = true;
    return next !== 'continue';
  }

  /** Can the mapping be extended by (i, j) at depth d? Fills eRuns[d + 1], aRuns[d + 1]. */
  private extend(d: number, i: number, j: number): boolean {
    const { E, A, eRuns, aRuns, eStore, aStore } = this;
    if (!isTolerantKind(E.columns[i]!.kind) && !isTolerantKind(A.columns[j]!.kind)) {
      this.work += E.n + A.n;
      if (!eStore[d]) eStore[d] = new Int32Array(E.n);
      if (!aStore[d]) aStore[d] = new Int32Array(A.n);
      extendRun(eRuns[d] ?? null, E, i, eStore[d]!);
      extendRun(aRuns[d] ?? null, A, j, aStore[d]!);
      eRuns[d + 1] = eStore[d]!;
      aRuns[d + 1] = aStore[d]!;
      return sameHashes(eStore[d]!, aStore[d]!, this.input.bag);
    }
    eRuns[d + 1] = eRuns[d] ?? null;
    aRuns[d + 1] = aRuns[d] ?? null;
    return this.probesFindEqualRows(eRuns[d + 1] ?? null, aRuns[d + 1] ?? null);
  }

  /**
   * Tolerant pair: each probed expected row needs an actual row equal on every mapped tolerant column
   * (and with the same hash over the mapped exact ones).
   */
  private probesFindEqualRows(eh: Int32Array | null, ah: Int32Array | null): boolean {
    const { E, A, tolerantPath } = this;
    for (const r of this.probes) {
      let found = false;
      for (let s = 0; s < A.n && !found; s++) {
        if (eh && ah && eh[r] !== ah[s]) continue;
        this.work += tolerantPath.length;
        found = tolerantPath.every(([x, y]) =>
          cellsEqual(E.columns[x]!, E.rows[r]![x]!, A.columns[y]!, A.rows[s]![y]!, this.input.tol),
        );
      }
      if (!found) return false;
    }
    return true;
  }
}

type Choice = AlignmentChoice & { evaluation: MappingEvaluation | null };
type Method = AlignmentChoice['method'];
const NONE = (): AlignmentChoice['unnamed'] => ({ expected: [], actual: [] });

/** Choose the column alignment (see the module comment). */
export function chooseAlignment(req: AlignmentRequest): Choice {
  if (req.strictOrder) return strictPositions(req);
  const trials = new AlignmentTrials(req);
  if (req.strictNames) return byNames(trials);
  if (trials.sameShape) return byPositionNameOrContent(trials);
  return differentShapes(trials);
}

/** Strict column order: positions only; under strict names, the positions whose names differ. */
function strictPositions(req: AlignmentRequest): Choice {
  const { E, A } = req;
  const mapping = positionalMapping(E, A);
  const unnamed = NONE();
  if (req.strictNames) {
    for (const [i, j] of mapping) {
      if (E.columns[i]!.name !== A.columns[j]!.name) {
        unnamed.expected.push(i);
        unnamed.actual.push(j);
      }
    }
  }
  return { mapping, method: 'positional', checked: 0, searchCapped: false, sampled: false, unnamed, evaluation: null };
}

/** The mappings tried so far (each once), their cost, and the first that agreed as a bag. */
class AlignmentTrials {
  readonly sameShape: boolean;
  private readonly filter: PairFilter;
  private readonly tried = new Set<string>();
  checked = 0;
  private fullCells = 0;
  firstBagPass: { evaluation: MappingEvaluation; method: Method } | null = null;

  constructor(readonly req: AlignmentRequest) {
    const { E, A } = req;
    this.filter = new PairFilter(E, A, req.tol);
    // As bags the row counts must be equal; as sets an empty result equals only an empty one (with no
    // rows to prune by, the search would otherwise try every permutation of the columns).
    this.sameShape = E.m === A.m && (req.bagPrefilter ? E.n === A.n : (E.n === 0) === (A.n === 0));
  }

  /** Under set semantics duplicates may differ, so only kinds can rule a pair out. */
  pairMay(i: number, j: number): boolean {
    return this.req.bagPrefilter ? this.filter.mayMatch(i, j) : columnsCompatible(this.req.E, i, this.req.A, j);
  }

  /**
   * Positional and named candidates are compared directly (their rows get hashed anyway); content
   * candidates first pass the column filter (fingerprints, numeric sums), which costs a pass per column.
   */
  private mayPass(mapping: Mapping, cheap: boolean): boolean {
    const { E, A } = this.req;
    return (
      this.sameShape &&
      mapping.length === E.m &&
      mapping.every(([i, j]) => (cheap ? columnsCompatible(E, i, A, j) : this.pairMay(i, j)))
    );
  }

  /** The evaluation of a mapping not tried before, when it passes the mode. */
  attempt(mapping: Mapping, method: Method): MappingEvaluation | null {
    const key = mapping.map(([i, j]) => `${i}:${j}`).join(',');
    if (this.tried.has(key)) return null;
    this.tried.add(key);
    if (!this.mayPass(mapping, method !== 'content')) return null;
    this.checked++;
    this.fullCells += this.req.E.n * Math.max(1, this.req.E.m);
    const evaluation = this.req.evaluate(mapping);
    if (this.req.passes(evaluation)) return evaluation;
    if (evaluation.bagPass && !this.firstBagPass) this.firstBagPass = { evaluation, method };
    else if (method === 'content' && this.req.forget) this.req.forget(evaluation);
    return null;
  }

  /** Search other mappings among `options`; the passing evaluation, or null. */
  search(options: number[][]): { result: MappingEvaluation | null; capped: boolean } {
    if (!options.every((o) => o.length > 0)) return { result: null, capped: false };
    let result: MappingEvaluation | null = null;
    const { E, A, tol, bagPrefilter } = this.req;
    const capped = searchMappings({
      E,
      A,
      tol,
      bag: bagPrefilter,
      options,
      leaf: (mapping) => {
        if (this.fullCells > SEARCH_LIMITS.alignmentCheckCells && this.checked >= MIN_FULL_CHECKS) return 'capped';
        result = this.attempt(mapping, 'content');
        return result ? 'stop' : 'continue';
      },
    });
    return { result, capped };
  }

  found(evaluation: MappingEvaluation, method: Method, searchCapped = false): Choice {
    return {
      mapping: evaluation.mapping,
      method,
      checked: this.checked,
      searchCapped,
      sampled: false,
      unnamed: NONE(),
      evaluation,
    };
  }

  /** No evaluation: a mapping kept for its partial credit and witnesses. */
  kept(mapping: Mapping, method: Method, searchCapped: boolean, sampled = false, checked = this.checked): Choice {
    return { mapping, method, checked, searchCapped, sampled, unnamed: NONE(), evaluation: null };
  }
}

/** Strict names: same-named columns (any bijection among repeated names); the rest in order, for their values. */
function byNames(t: AlignmentTrials): Choice {
  const { E, A } = t.req;
  const named = nameMapping(E, A);
  const byName = () => {
    const pairs = [...named.pairs];
    const leftovers = Math.min(named.expected.length, named.actual.length);
    for (let k = 0; k < leftovers; k++) pairs.push([named.expected[k]!, named.actual[k]!]);
    return pairs.sort((x, y) => x[0] - y[0]);
  };
  const unnamed = { expected: named.expected, actual: named.actual };
  if (!t.sameShape || named.expected.length > 0 || named.actual.length > 0)
    return { ...t.kept(byName(), 'name', false, false, 0), unnamed };
  const first = t.attempt(byName(), 'name');
  if (first) return { ...t.found(first, 'name'), unnamed };
  // Repeated names: any other bijection between same-named columns.
  const byNamePartner = new Map(named.pairs);
  const options = E.columns.map((c, i) =>
    [byNamePartner.get(i)!, ...A.columns.map((a, j) => (a.name === c.name ? j : -1)).filter((j) => j >= 0)]
      .filter((j, k, xs) => xs.indexOf(j) === k)
      .filter((j) => t.pairMay(i, j)),
  );
  const { result, capped } = t.search(options);
  if (result) return { ...t.found(result, 'name'), unnamed };
  const fallback = t.firstBagPass;
  if (fallback) return { ...t.found(fallback.evaluation, 'name', capped), unnamed };
  return { ...t.kept(byName(), 'name', capped), unnamed };
}

/** Same shape: positions, then names, then a content search; else the best partial alignment. */
function byPositionNameOrContent(t: AlignmentTrials): Choice {
  const { E, A } = t.req;
  const positional = t.attempt(positionalMapping(E, A), 'positional');
  if (positional) return t.found(positional, 'positional');
  const named = nameMapping(E, A);
  if (named.expected.length === 0) {
    const byName = t.attempt(
      named.pairs.slice().sort((x, y) => x[0] - y[0]),
      'name',
    );
    if (byName) return t.found(byName, 'name');
  }
  // Content: other one-to-one mappings of columns that may hold the same values, positional and named choices first.
  const options: number[][] = [];
  for (let i = 0; i < E.m; i++) {
    const prefs = [i, ...A.columns.map((c, j) => (c.name === E.columns[i]!.name ? j : -1)).filter((j) => j >= 0)];
    for (let j = 0; j < E.m; j++) prefs.push(j);
    options.push([...new Set(prefs)].filter((j) => t.pairMay(i, j)));
  }
  const { result, capped: searchCapped } = t.search(options);
  if (result) return t.found(result, 'content');
  const fallback = t.firstBagPass;
  if (fallback) return { ...t.found(fallback.evaluation, fallback.method), searchCapped };
  // No column could hold another position's values: nothing suggests a reordering, keep positions
  // (and skip scoring every column pair on a sample).
  if (!searchCapped && options.every((o, i) => o.every((j) => j === i)))
    return t.kept(positionalMapping(E, A), 'best_effort', searchCapped);
  const best = bestEffortMapping(E, A, t.req.cap);
  return t.kept(best.mapping, 'best_effort', searchCapped, best.sampled);
}

/** Different shapes: the same names, in order, with compatible kinds keep their positions without scoring. */
function differentShapes(t: AlignmentTrials): Choice {
  const { E, A } = t.req;
  const k = Math.min(E.m, A.m);
  let named = k > 0;
  for (let i = 0; i < k && named; i++)
    named = E.columns[i]!.name === A.columns[i]!.name && columnsCompatible(E, i, A, i);
  if (named && E.m === A.m) return t.kept(positionalMapping(E, A), 'best_effort', false);
  const best = bestEffortMapping(E, A, t.req.cap);
  return t.kept(best.mapping, 'best_effort', false, best.sampled);
}
