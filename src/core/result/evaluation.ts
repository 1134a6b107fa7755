/**
 * Evaluations of column alignments: hashing both sides under a mapping
 * (once), then, on demand, the bag matching, the order check and the set
 * check. The alignment search and the final report share these, so no
 * mapping is ever hashed or matched twice.
 */
import type { Mapping, MappingEvaluation } from './alignment.ts';
import { checkOrder, type OrderResult } from './order-check.ts';
import {
  allRows,
  buildIndex,
  createMatchContext,
  fingerprintsDiffer,
  matchPrepared,
  sampleFindsMissingRow,
  prepareMatch,
  rowsWithoutEqual,
  type ListMatch,
  type RowIndex,
} from './row-match.ts';
import { SEARCH_LIMITS } from './limits.ts';
import { makePairs, type Side } from './side.ts';
import type { Tolerance } from './value-policy.ts';

export interface SetResult {
  pass: boolean;
  /** Rows with no equal row at all on the other side. */
  missingE: Int32Array;
  missingA: Int32Array;
}

export interface Evaluator {
  readonly allE: Int32Array;
  readonly allA: Int32Array;
  evaluate(mapping: Mapping): MappingEvaluation;
  /** Drop an evaluation from the cache (a failed candidate of the alignment search: its memory is freed). */
  forget(ev: MappingEvaluation): void;
  matchOf(ev: MappingEvaluation): ListMatch;
  orderOf(ev: MappingEvaluation): OrderResult;
  setOf(ev: MappingEvaluation): SetResult;
  /** Full indexes of both sides, for set semantics and duplicate counts (failure paths only). */
  indexesOf(ev: MappingEvaluation): { aIndex: RowIndex; eIndex: RowIndex };
  /** Does the evaluation pass as a bag (or as a set under set semantics)? */
  rowsAgree(ev: MappingEvaluation): boolean;
  /** Some evaluation's tolerance matching ran out of its budget (its failure is then not certain). */
  budgetExhausted(): boolean;
}

/** Rows of a matching left without a partner. */
export function unmatched(match: Int32Array, list: Int32Array): Int32Array {
  let k = 0;
  for (let i = 0; i < match.length; i++) if (match[i] === -1) k++;
  const out = new Int32Array(k);
  k = 0;
  for (let i = 0; i < match.length; i++) if (match[i] === -1) out[k++] = list[i]!;
  return out;
}

/** Do two mappings pair the same columns in the same order? */
function sameMapping(a: Mapping, b: Mapping): boolean {
  return a.length === b.length && a.every(([i, j], k) => b[k]![0] === i && b[k]![1] === j);
}

/** One derived result per evaluation, computed on first use (`forget` drops it from `cache`). */
function perEvaluation<T>(compute: (ev: MappingEvaluation) => T): {
  get: (ev: MappingEvaluation) => T;
  cache: Map<MappingEvaluation, T>;
} {
  const cache = new Map<MappingEvaluation, T>();
  const get = (ev: MappingEvaluation): T => {
    let result = cache.get(ev);
    if (result === undefined) {
      result = compute(ev);
      cache.set(ev, result);
    }
    return result;
  };
  return { get, cache };
}

export function createEvaluator(
  E: Side,
  A: Side,
  tol: Tolerance,
  setMode: boolean,
  keys: readonly number[] | null,
): Evaluator {
  const allE = allRows(E.n);
  const allA = allRows(A.n);
  const evaluations: MappingEvaluation[] = [];

  // One tolerance budget for every alignment the comparison tries: the total work stays bounded.
  const budget = { left: SEARCH_LIMITS.toleranceComparisons, exhausted: false };
  const evaluate = (mapping: Mapping): MappingEvaluation => {
    const known = evaluations.find((ev) => sameMapping(ev.mapping, mapping));
    if (known) return known;
    const ev = prepareEvaluation({ E, A, tol, setMode, budget, allE, allA }, mapping);
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
  const orders = perEvaluation((ev): OrderResult => {
    const match = matchOf(ev);
    return ev.bagPass ? checkOrder(ev.ctx, keys, match.matchE) : { pass: false, tieGroups: 0, violation: null };
  });
  const indexes = perEvaluation((ev) => ({ aIndex: ev.prepared.index, eIndex: buildIndex(ev.ctx, 'E', allE, true) }));
  const sets = perEvaluation((ev) => setResultOf(ev, matchOf(ev), allE, allA, setMode, () => indexes.get(ev).eIndex));
  const rowsAgree = (ev: MappingEvaluation): boolean => {
    if (!ev.possible) return false;
    matchOf(ev);
    return setMode ? sets.get(ev).pass : ev.bagPass;
  };
  const forget = (ev: MappingEvaluation): void => {
    const at = evaluations.indexOf(ev);
    if (at >= 0) evaluations.splice(at, 1);
    orders.cache.delete(ev);
    indexes.cache.delete(ev);
    sets.cache.delete(ev);
  };
  return {
    allE,
    allA,
    evaluate,
    forget,
    matchOf,
    orderOf: orders.get,
    setOf: sets.get,
    indexesOf: indexes.get,
    rowsAgree,
    budgetExhausted: () => budget.exhausted,
  };
}

interface EvaluationScope {
  E: Side;
  A: Side;
  tol: Tolerance;
  setMode: boolean;
  budget: { left: number; exhausted: boolean };
  allE: Int32Array;
  allA: Int32Array;
}

/** A mapping hashed once: its match context, prepared matching, and whether a pass is still possible. */
function prepareEvaluation(scope: EvaluationScope, mapping: Mapping): MappingEvaluation {
  const { E, A, setMode } = scope;
  const ctx = createMatchContext(E, A, makePairs(E, A, mapping), scope.tol);
  ctx.budget = scope.budget;
  const prepared = prepareMatch(ctx, scope.allE, scope.allA, true);
  // The passes yield every aligned column's fingerprint: keep them for the column filter.
  for (const p of ctx.keyPairs) {
    const pair = ctx.pairs[p]!;
    const f = (fp: Int32Array) => ({ fpA: fp[p * 3]!, fpB: fp[p * 3 + 1]!, nulls: fp[p * 3 + 2]! });
    if (!E.summaries.has(`${pair.ei}:${pair.eScheme}`)) E.summaries.set(`${pair.ei}:${pair.eScheme}`, f(prepared.eFp));
    if (!A.summaries.has(`${pair.ai}:${pair.aScheme}`)) A.summaries.set(`${pair.ai}:${pair.aScheme}`, f(prepared.aFp));
  }
  const complete = E.m === A.m && mapping.length === E.m;
  // Before matching: a bag match is impossible when a key column's values differ, or a sampled row has no equal.
  const possible =
    setMode || (complete && E.n === A.n && !fingerprintsDiffer(ctx, prepared) && !sampleFindsMissingRow(ctx, prepared));
  return { mapping, ctx, prepared, match: null, complete, possible, bagPass: false };
}

/** Set semantics: the rows of either side with no equal row at all on the other. */
function setResultOf(
  ev: MappingEvaluation,
  match: ListMatch,
  allE: Int32Array,
  allA: Int32Array,
  setMode: boolean,
  eIndex: () => RowIndex,
): SetResult {
  if (!ev.complete) return { pass: false, missingE: new Int32Array(0), missingA: new Int32Array(0) };
  if (ev.bagPass) return { pass: true, missingE: new Int32Array(0), missingA: new Int32Array(0) };
  const freeE = unmatched(match.matchE, allE);
  const freeA = unmatched(match.matchA, allA);
  // Expected rows first: one without an equal actual row settles it before indexing the expected side.
  const missingE = rowsWithoutEqual(ev.ctx, ev.prepared.index, freeE);
  let missingA = freeA;
  if (missingE.length === 0 || setMode) missingA = rowsWithoutEqual(ev.ctx, eIndex(), freeA);
  return { pass: missingE.length === 0 && missingA.length === 0, missingE, missingA };
}
