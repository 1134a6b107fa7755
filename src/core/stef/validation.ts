/**
 * Validation against ground truth: ROC AUC of Φ separating correct from
 * wrong answers, agreement at a threshold, and the mechanical mutations that
 * make wrong-by-construction variants of a reference query.
 */
import type { Dialect, Expr, Query, Select } from '../structure/index.ts';
import { parseSql, printQuery } from '../structure/index.ts';
import { andAll, cloneTree, conjuncts, forEachExpr } from '../structure/ir.ts';

/** ROC AUC by the Mann–Whitney statistic (ties count one half). */
export function rocAuc(scores: { score: number; positive: boolean }[]): number | null {
  const pos = scores.filter((s) => s.positive).map((s) => s.score);
  const neg = scores.filter((s) => !s.positive).map((s) => s.score);
  if (!pos.length || !neg.length) return null;
  let sum = 0;
  for (const p of pos) for (const n of neg) sum += p > n ? 1 : p === n ? 0.5 : 0;
  return sum / (pos.length * neg.length);
}

export const MUTATIONS = [
  'drop_where_conjunct',
  'swap_aggregate',
  'change_limit',
  'drop_group_key',
  'flip_order',
  'change_literal',
] as const;
export type Mutation = (typeof MUTATIONS)[number];

const outer = (q: Query): Select | null => (q.kind === 'select' ? q : null);

function mutateSelect(s: Select, m: Mutation): boolean {
  switch (m) {
    case 'drop_where_conjunct': {
      const parts = conjuncts(s.where).filter(
        (e) => !(e.kind === 'binary' && e.left.kind === 'column' && e.right.kind === 'column'),
      );
      if (!parts.length) return false;
      const drop = parts[0]!;
      s.where = andAll(conjuncts(s.where).filter((e) => e !== drop));
      return true;
    }
    case 'swap_aggregate': {
      const swap: Record<string, string> = { sum: 'avg', avg: 'sum', count: 'sum', max: 'min', min: 'max' };
      let done = false;
      for (const c of s.columns)
        forEachExpr(c.expr, (e) => {
          if (done || e.kind !== 'func' || !e.aggregate || e.over) return;
          const to = swap[e.name.toLowerCase()];
          if (!to) return;
          if (e.name.toLowerCase() === 'count' && e.args[0]?.kind === 'star') return;
          e.name = to;
          e.distinct = false;
          done = true;
        });
      return done;
    }
    case 'change_limit': {
      if (s.limit?.kind !== 'number') return false;
      s.limit = { ...s.limit, text: String(Number(s.limit.text) + 2) };
      return true;
    }
    case 'drop_group_key': {
      if (!s.groupBy.length) return false;
      const key = s.groupBy[0]!;
      const text = JSON.stringify(key);
      s.groupBy = s.groupBy.slice(1);
      const kept = s.columns.filter((c) => JSON.stringify(c.expr) !== text);
      if (kept.length === s.columns.length || !kept.length) return false;
      s.columns = kept;
      s.orderBy = s.orderBy.filter((o) => JSON.stringify(o.expr) !== text);
      return true;
    }
    case 'flip_order': {
      if (!s.orderBy.length) return false;
      s.orderBy = s.orderBy.map((o, i) => (i === 0 ? { ...o, dir: o.dir === 'DESC' ? 'ASC' : 'DESC' } : o));
      return true;
    }
    case 'change_literal': {
      let done = false;
      const visit = (e: Expr) => {
        if (done) return;
        if (e.kind === 'string' && !/^\d{4}-/.test(e.value)) {
          e.value = `${e.value}_x`;
          done = true;
        } else if (e.kind === 'typed' && /^\d{4}-/.test(e.value)) {
          e.value = `${Number(e.value.slice(0, 4)) - 1}${e.value.slice(4)}`;
          done = true;
        } else if (e.kind === 'number' && /^(19|20)\d\d$/.test(e.text)) {
          e.text = String(Number(e.text) - 1);
          done = true;
        }
      };
      for (const c of conjuncts(s.where)) forEachExpr(c, (e) => visit(e));
      return done;
    }
  }
}

/** A wrong-by-construction variant of `sql`, or null when the mutation does not apply to its outermost SELECT. */
export function mutateSql(sql: string, m: Mutation, dialect: Dialect = 'duckdb'): string | null {
  const p = parseSql(sql, dialect);
  if (!p.ok) return null;
  const q = cloneTree(p.value.query);
  const s = outer(q);
  if (!s || !mutateSelect(s, m)) return null;
  return printQuery(q, dialect);
}
