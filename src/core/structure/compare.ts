/**
 * clause_match: a clause-by-clause comparison of two queries with a typed
 * edit script per clause (sqlglot's diff, at clause granularity).
 *
 * Both queries are canonicalized first (rules/), so presentation never
 * counts: keyword and identifier case, AND/OR operand order, mirrored
 * comparisons, IN-list order, `!=`/`<>`, JOIN … ON vs comma + WHERE. Aliases
 * are resolved before comparing: table aliases to their tables (the
 * table-alias rule; self-join aliases are aligned by occurrence), column
 * aliases and ordinals in ORDER BY / GROUP BY / HAVING to the expression they
 * name; a column alias in the select list never counts.
 *
 * Nested queries are compared recursively (set-operation arms, CTEs,
 * subqueries); inside a predicate a subquery is shown as ‹subquery N› so a
 * difference inside it is reported once, in `subqueries`.
 */
import type { Dialect } from './grammar.ts';
import type { Cte, Expr, FromItem, Ident, OrderItem, Query, Select } from './ir.ts';
import { conjuncts, forEachExpr, holdsQuery, mapExpr, mapItems, mapQuery, mapSelectExprs, patch } from './ir.ts';
import { canonicalizeQuery } from './canonicalize.ts';
import { hashSeed } from '../neighbours/prng.ts';
import { memoByTree } from './memo.ts';
import { printExpr, printExprBare, printFrom, printQuery } from './print.ts';
import { renameQualifier } from './rules/table-alias.ts';
import { mapAllExprs, mapAllIdents } from './rules/walk.ts';

export { CLAUSE_LABEL, CLAUSES, type ClauseName } from './clauses.ts';
import { CLAUSE_LABEL, CLAUSES, type ClauseName } from './clauses.ts';

export type EditOp = 'insert' | 'remove' | 'update' | 'move' | 'keep';

/**
 * One step of the edit script that turns the expected query into the actual
 * one. insert: only the actual query has it; remove: only the expected one;
 * update: both have a counterpart that differs; move: same item, other
 * position (select list only; does not break a match); keep: identical.
 */
export interface EditItem {
  op: EditOp;
  clause: ClauseName;
  /** The expected side's item (canonical SQL), for remove/update/move/keep. */
  expected?: string;
  /** The actual side's item, for insert/update/move/keep. */
  actual?: string;
  /** What differs, in words a reviewer understands. */
  text: string;
  /** Where in a nested query ("subquery 1", "arm 2", "CTE totals"), outermost first; absent at top level. */
  path?: string[];
}

export interface NestedMatch {
  label: string;
  expected: string | null;
  actual: string | null;
  /** The nested comparison, when both sides exist. */
  match: ClauseMatch | null;
}

export interface ClauseDiff {
  clause: ClauseName;
  /** True when no insert, remove or update edit (moves allowed). */
  match: boolean;
  present: { expected: boolean; actual: boolean };
  /** The clause's items (canonical SQL), expected side. */
  expected: string[];
  actual: string[];
  /** The edit script, keeps included. */
  edits: EditItem[];
  /** Share of the clause's items that differ, 0..1 (nested clauses: mean nested divergence). */
  divergence: number;
  nested?: NestedMatch[];
}

export interface ClauseMatch {
  /** Every clause matches. */
  match: boolean;
  clauses: Record<ClauseName, ClauseDiff>;
  /** All edits other than keep, nested ones included (with their path), in clause order. */
  edits: EditItem[];
}

/* ------------------------------------------------------------------ */
/* Preparing a scope                                                   */
/* ------------------------------------------------------------------ */

interface Scope {
  select: Select;
  /** Nested queries of this scope, in order of appearance (placeholders ‹subquery N›). */
  subqueries: { kind: 'derived' | 'expression'; query: Query; label: string }[];
  /** Canonical SQL shown to the reviewer (‹subquery N› for nested queries). */
  text: (e: Expr) => string;
  /** Matching key: the text with columns of a single-table scope qualified (`name` ≡ `singer.name` over singer alone). */
  key: (e: Expr) => string;
}

const lc = (s: string) => s.toLowerCase();

/** ORDER BY / GROUP BY / HAVING references to output aliases and ordinals → the expressions they name. */
export function resolveOutputRefs(s: Select): Select {
  const byAlias = new Map<string, Expr>();
  for (const c of s.columns) if (c.alias) byAlias.set(lc(c.alias.value), c.expr);
  const byRef = (e: Expr, ordinals: boolean): Expr => {
    if (ordinals && e.kind === 'number' && /^\d+$/.test(e.text)) {
      const item = s.columns[Number(e.text) - 1];
      if (item && item.expr.kind !== 'star') return item.expr;
    }
    return mapExpr(e, (x) => {
      if (x.kind === 'column' && !x.table) {
        const target = byAlias.get(lc(x.name.value));
        if (target && !(target.kind === 'column' && lc(target.name.value) === lc(x.name.value))) return target;
      }
      return x;
    });
  };
  // Shares what names no output column (a query without such references comes back as it is).
  return patch(s, {
    groupBy: mapItems(s.groupBy, (g) => byRef(g, true)),
    having: s.having ? byRef(s.having, false) : null,
    orderBy: mapItems(s.orderBy, (o) => patch(o, { expr: byRef(o.expr, true) })),
  });
}

function scopeOf(select: Select, dialect: Dialect): Scope {
  const subqueries: Scope['subqueries'] = [];
  const seen = new Map<Query, string>();
  for (const f of select.from) {
    if (f.source.kind === 'derived') {
      const label = `subquery ${subqueries.length + 1}`;
      subqueries.push({ kind: 'derived', query: f.source.query, label });
      seen.set(f.source.query, label);
    }
  }
  const label = (q: Query) => {
    let l = seen.get(q);
    if (!l) {
      l = `subquery ${subqueries.length + 1}`;
      subqueries.push({ kind: 'expression', query: q, label: l });
      seen.set(q, l);
    }
    return l;
  };
  // Register expression subqueries in clause order so numbering is stable.
  mapSelectExprs(select, (e) => {
    forEachExpr(e, (x) => {
      if (x.kind === 'subquery' || x.kind === 'exists') label(x.query);
      else if (x.kind === 'in' && x.query) label(x.query);
    });
    return e;
  });
  const placeholder = (q: Query): Expr => ({ kind: 'raw', sql: `‹${label(q)}›` });
  // Each item's text is asked for several times (items, keys, join graph): printed once per node.
  const texts = new Map<Expr, string>();
  const text = (e: Expr): string => {
    let t = texts.get(e);
    if (t === undefined) texts.set(e, (t = printMasked(e)));
    return t;
  };
  const printMasked = (e: Expr): string => {
    // Most items hold no nested query: the printer's text as it is (kept for shared nodes).
    if (!holdsQuery(e)) return printExprBare(e, dialect);
    const masked = mapExpr({ ...e, parens: false } as Expr, (x) => {
      if (x.kind === 'subquery') return { kind: 'raw', sql: `(‹${label(x.query)}›)` };
      if (x.kind === 'exists') return { kind: 'raw', sql: `${x.not ? 'NOT EXISTS' : 'EXISTS'} (‹${label(x.query)}›)` };
      if (x.kind === 'in' && x.query) return { ...x, query: null, values: [placeholder(x.query)] };
      return x;
    });
    return printExpr(masked, dialect);
  };
  const only = select.from.length === 1 ? select.from[0]! : null;
  const single = only && only.source.kind === 'table' ? (only.alias ?? only.source.name) : null;
  const keys = new Map<Expr, string>();
  const qualified = (x: Expr): Expr => (x.kind === 'column' && !x.table ? { ...x, table: single } : x);
  const key = (e: Expr): string => {
    if (!single) return text(e);
    let k = keys.get(e);
    if (k === undefined) keys.set(e, (k = printMasked(mapExpr(e, qualified))));
    return k;
  };
  return { select, subqueries, text, key };
}

/** Rename the actual scope's remaining aliases to the expected scope's (self-joins, derived tables), by occurrence. */
function alignAliases(e: Select, a: Select): Select {
  const keyOf = (f: FromItem) => (f.source.kind === 'table' ? `t:${lc(f.source.name.value)}` : `d:${f.source.kind}`);
  const groups = (s: Select) => {
    const m = new Map<string, Ident[]>();
    for (const f of s.from) if (f.alias) m.set(keyOf(f), [...(m.get(keyOf(f)) ?? []), f.alias]);
    return m;
  };
  const ge = groups(e);
  const ga = groups(a);
  const renames: [string, Ident][] = [];
  for (const [key, actualAliases] of ga) {
    const expectedAliases = ge.get(key) ?? [];
    actualAliases.forEach((al, i) => {
      const target = expectedAliases[i];
      if (target && lc(target.value) !== lc(al.value)) renames.push([al.value, target]);
    });
  }
  if (!renames.length) return a;
  // Two steps through temporary names so that swaps (t1↔t2) work.
  let cur: Select | null = a;
  const temp = renames.map(([from], i) => [from, { value: `__align_${i}`, quoted: false }] as const);
  for (const [from, to] of temp) cur = cur && renameQualifier(cur, from, to);
  for (let i = 0; i < renames.length && cur; i++) cur = renameQualifier(cur, `__align_${i}`, renames[i]![1]);
  if (!cur) return a;
  const byTemp = new Map(renames.map(([from, to]) => [lc(from), to]));
  return {
    ...cur,
    from: cur.from.map((f) =>
      f.alias && byTemp.has(lc(f.alias.value)) ? { ...f, alias: byTemp.get(lc(f.alias.value))! } : f,
    ),
  };
}

/* ------------------------------------------------------------------ */
/* Item diffs                                                          */
/* ------------------------------------------------------------------ */

interface Item {
  text: string;
  /** What identity is decided on (defaults to text). */
  key?: string;
  expr: Expr | null;
  /** The names (lower case) the item's own FROM binds: its aliases, or table names where unaliased. */
  bindings?: ReadonlySet<string>;
}

const keyOf = (i: Item) => i.key ?? i.text;

function tokens(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[a-z_][a-z0-9_.]*|\d+(\.\d+)?|'[^']*'|"[^"]*"|[<>=!]+/g) ?? []);
}

function jaccard(ta: Set<string>, tb: Set<string>): number {
  let inter = 0;
  for (const t of ta) if (tb.has(t)) inter++;
  const union = ta.size + tb.size - inter;
  return union === 0 ? 0 : inter / union;
}

/** The column a predicate or item is about (for pairing updates). */
function anchor(e: Expr | null): string | null {
  if (!e) return null;
  const x = { ...e, parens: false } as Expr;
  if (x.kind === 'binary' || x.kind === 'in' || x.kind === 'between') {
    const left = x.kind === 'binary' ? x.left : x.arg;
    if (left.kind === 'column') return `col:${lc(left.table?.value ?? '')}.${lc(left.name.value)}`;
    if (left.kind === 'func') return `fn:${printExpr(left)}`;
  }
  if (x.kind === 'func' && x.args.length)
    return `args:${x.args.map((a) => printExpr(a)).join(',')}${x.over ? ':over' : ''}`;
  if (x.kind === 'column') return `name:${lc(x.name.value)}`;
  return null;
}

/** The function a predicate tests (`COUNT(*) > 2` → count), for a weaker pairing. */
function leftFunction(e: Expr | null): string | null {
  if (!e) return null;
  const x = { ...e, parens: false } as Expr;
  const left = x.kind === 'binary' ? x.left : x.kind === 'in' || x.kind === 'between' ? x.arg : null;
  return left?.kind === 'func' ? lc(left.name) : null;
}

/**
 * What pairing asks of an item beyond its text, worked out once per item: a
 * shared side's items (a reference's) meet every candidate's, each against
 * each of the other side's leftovers.
 */
interface Traits {
  anchor?: string | null;
  leftFunction?: string | null;
  tokens?: Set<string>;
  /** The text with every column qualifier dropped. */
  stripped?: string;
  /** Each column's qualifier (lower case), null when unqualified. */
  qualifiers?: (string | null)[];
}

const itemTraits = new WeakMap<Item, Traits>();

function traits(i: Item): Traits {
  let t = itemTraits.get(i);
  if (!t) itemTraits.set(i, (t = {}));
  return t;
}

function similarity(a: Item, b: Item): number {
  const ta = traits(a);
  const tb = traits(b);
  const ka = (ta.anchor ??= anchor(a.expr));
  if (ka && ka === (tb.anchor ??= anchor(b.expr))) return 1;
  if (a.expr?.kind === 'func' && b.expr?.kind === 'func' && lc(a.expr.name) === lc(b.expr.name)) return 0.8;
  const fa = (ta.leftFunction ??= leftFunction(a.expr));
  if (fa && fa === (tb.leftFunction ??= leftFunction(b.expr))) return 0.7;
  return jaccard((ta.tokens ??= tokens(a.text)), (tb.tokens ??= tokens(b.text)));
}

/**
 * Equal up to column qualifiers, where only one side qualifies: `cylinders`
 * over `cars_data, car_names` can only be `cars_data.cylinders` if the query
 * runs (SQLite and DuckDB reject an ambiguous name), so it matches it.
 */
function equalUpToQualifiers(a: Item, b: Item): boolean {
  const strip = (e: Expr) =>
    printExpr(
      mapExpr({ ...e, parens: false } as Expr, (x) => (x.kind === 'column' && x.table ? { ...x, table: null } : x)),
    );
  const ta = traits(a);
  const tb = traits(b);
  if ((ta.stripped ??= strip(a.expr!)) !== (tb.stripped ??= strip(b.expr!))) return false;
  const cols = (e: Expr) => {
    const out: (string | null)[] = [];
    forEachExpr(e, (x) => void (x.kind === 'column' && out.push(x.table ? lc(x.table.value) : null)));
    return out;
  };
  const ca = (ta.qualifiers ??= cols(a.expr!));
  const cb = (tb.qualifiers ??= cols(b.expr!));
  // A qualifier its own FROM does not bind is an outer (correlated) reference: an unqualified name there
  // means a column of the inner FROM, never it (`t2.b = t.b` is not `b = b` under `FROM t AS t2`).
  const local = (q: string, i: Item) => !i.bindings || i.bindings.has(q);
  return (
    ca.length === cb.length &&
    ca.every((q, i) => {
      const r = cb[i] ?? null;
      if (q === null) return r === null || local(r, b);
      return r === null ? local(q, a) : q === r;
    })
  );
}

function describeUpdate(clause: ClauseName, e: Item, a: Item): string {
  const ex = e.expr ? ({ ...e.expr, parens: false } as Expr) : null;
  const ax = a.expr ? ({ ...a.expr, parens: false } as Expr) : null;
  if (ex?.kind === 'func' && ax?.kind === 'func' && lc(ex.name) !== lc(ax.name) && sameArgs(ex, ax))
    return `${e.text} became ${a.text}`;
  return `${CLAUSE_LABEL[clause]}: \`${e.text}\` became \`${a.text}\``;
}

function sameArgs(a: Extract<Expr, { kind: 'func' }>, b: Extract<Expr, { kind: 'func' }>): boolean {
  return (
    a.args.map((x) => printExpr(x)).join(',') === b.args.map((x) => printExpr(x)).join(',') && a.distinct === b.distinct
  );
}

/** The items neither side kept: similar ones pair up as updates, the rest are removes and inserts. */
function pairLeftovers(
  clause: ClauseName,
  expected: Item[],
  actual: Item[],
  keptE: Set<number>,
  usedA: Set<number>,
): EditItem[] {
  const label = CLAUSE_LABEL[clause];
  const edits: EditItem[] = [];
  const restE = expected.map((e, i) => ({ e, i })).filter(({ i }) => !keptE.has(i));
  const restA = actual.map((a, j) => ({ a, j })).filter(({ j }) => !usedA.has(j));
  const candidates: { i: number; j: number; s: number }[] = [];
  for (const { e, i } of restE) for (const { a, j } of restA) candidates.push({ i, j, s: similarity(e, a) });
  candidates.sort((x, y) => y.s - x.s || x.i - y.i || x.j - y.j);
  const pairedE = new Set<number>();
  const pairedA = new Set<number>();
  for (const c of candidates) {
    if (c.s < 0.5 || pairedE.has(c.i) || pairedA.has(c.j)) continue;
    pairedE.add(c.i);
    pairedA.add(c.j);
    const e = expected[c.i]!;
    const a = actual[c.j]!;
    edits.push({ op: 'update', clause, expected: e.text, actual: a.text, text: describeUpdate(clause, e, a) });
  }
  for (const { e, i } of restE)
    if (!pairedE.has(i))
      edits.push({ op: 'remove', clause, expected: e.text, text: `${label} is missing \`${e.text}\`` });
  for (const { a, j } of restA)
    if (!pairedA.has(j)) edits.push({ op: 'insert', clause, actual: a.text, text: `${label} adds \`${a.text}\`` });
  return edits;
}

/** Multiset diff: identical items keep, similar leftovers update, the rest insert/remove. */
function diffItems(clause: ClauseName, expected: Item[], actual: Item[], opts: { ordered?: boolean } = {}): EditItem[] {
  const label = CLAUSE_LABEL[clause];
  const edits: EditItem[] = [];
  const usedA = new Set<number>();
  const keptE = new Set<number>();
  expected.forEach((e, i) => {
    const j = actual.findIndex((a, k) => !usedA.has(k) && keyOf(a) === keyOf(e));
    if (j >= 0) {
      usedA.add(j);
      keptE.add(i);
      if (opts.ordered && i !== j)
        edits.push({
          op: 'move',
          clause,
          expected: e.text,
          actual: actual[j]!.text,
          text: `${label}: \`${e.text}\` moved from position ${i + 1} to ${j + 1}`,
        });
      else
        edits.push({
          op: 'keep',
          clause,
          expected: e.text,
          actual: actual[j]!.text,
          text: `${label} keeps \`${e.text}\``,
        });
    }
  });
  expected.forEach((e, i) => {
    if (keptE.has(i) || !e.expr) return;
    const j = actual.findIndex((a, k) => !usedA.has(k) && a.expr !== null && equalUpToQualifiers(e, a));
    if (j < 0) return;
    usedA.add(j);
    keptE.add(i);
    edits.push({
      op: 'keep',
      clause,
      expected: e.text,
      actual: actual[j]!.text,
      text: `${label} keeps \`${e.text}\` (written \`${actual[j]!.text}\`)`,
    });
  });
  edits.push(...pairLeftovers(clause, expected, actual, keptE, usedA));
  return edits;
}

/** Position-wise diff for ORDER BY keys (order matters). */
function diffOrder(expected: { item: Item; o: OrderItem }[], actual: { item: Item; o: OrderItem }[]): EditItem[] {
  const clause: ClauseName = 'order_by';
  const edits: EditItem[] = [];
  const dir = (o: OrderItem) => o.dir ?? 'ASC';
  const full = (x: { item: Item; o: OrderItem }) =>
    `${x.item.text} ${dir(x.o)}${x.o.nulls ? ` NULLS ${x.o.nulls}` : ''}`;
  const fullKey = (x: { item: Item; o: OrderItem }) =>
    `${keyOf(x.item)} ${dir(x.o)}${x.o.nulls ? ` NULLS ${x.o.nulls}` : ''}`;
  const n = Math.max(expected.length, actual.length);
  for (let i = 0; i < n; i++) {
    const e = expected[i];
    const a = actual[i];
    if (e && a) {
      if (fullKey(e) === fullKey(a))
        edits.push({ op: 'keep', clause, expected: full(e), actual: full(a), text: `ORDER BY keeps \`${full(e)}\`` });
      else if (keyOf(e.item) === keyOf(a.item))
        edits.push({
          op: 'update',
          clause,
          expected: full(e),
          actual: full(a),
          text: `ORDER BY \`${e.item.text}\` became ${dir(a.o)}${a.o.nulls ? ` NULLS ${a.o.nulls}` : ''} (was ${dir(e.o)}${e.o.nulls ? ` NULLS ${e.o.nulls}` : ''})`,
        });
      else
        edits.push({
          op: 'update',
          clause,
          expected: full(e),
          actual: full(a),
          text: `ORDER BY key ${i + 1}: \`${full(e)}\` became \`${full(a)}\``,
        });
    } else if (e) edits.push({ op: 'remove', clause, expected: full(e), text: `ORDER BY is missing \`${full(e)}\`` });
    else if (a) edits.push({ op: 'insert', clause, actual: full(a), text: `ORDER BY adds \`${full(a)}\`` });
  }
  return edits;
}

function finish(
  clause: ClauseName,
  expected: string[],
  actual: string[],
  edits: EditItem[],
  present?: ClauseDiff['present'],
): ClauseDiff {
  const changed = edits.filter((x) => x.op === 'insert' || x.op === 'remove' || x.op === 'update').length;
  const total = edits.length;
  return {
    clause,
    match: changed === 0,
    present: present ?? { expected: expected.length > 0, actual: actual.length > 0 },
    expected,
    actual,
    edits,
    divergence: total === 0 ? 0 : changed / total,
  };
}

/* ------------------------------------------------------------------ */
/* Clauses of one SELECT                                               */
/* ------------------------------------------------------------------ */

const INNER_KINDS = new Set(['FIRST', 'COMMA', 'INNER', 'CROSS']);

function fromName(f: FromItem, scope: Scope, dialect: Dialect): string {
  switch (f.source.kind) {
    case 'table':
      return printFrom([{ ...f, alias: null, join: 'FIRST', on: null, using: null }], dialect);
    case 'derived':
      return `(‹${scope.subqueries.find((s) => s.query === (f.source as { query: Query }).query)?.label ?? 'subquery'}›)`;
    case 'values':
      return valuesName(
        printFrom([{ ...f, alias: null, columnAliases: [], join: 'FIRST', on: null, using: null }], dialect),
        f.source.rows,
      );
    default:
      return printExpr(f.source.call, dialect);
  }
}

/**
 * A VALUES list is named by its content, so that two lists with other rows are different items of the
 * FROM clause (they were both "(VALUES …)", and clause_match called them the same). A long list is named
 * by its row count and a hash of its text (FNV-1a), to keep explanations short.
 */
function valuesName(text: string, rows: readonly unknown[]): string {
  if (text.length <= 120) return text;
  return `(VALUES ‹${rows.length} rows, #${hashSeed(text).toString(16).padStart(8, '0')}›)`;
}

/** The names (lower case) a SELECT's own FROM binds: its aliases, or table names where unaliased. */
function fromBindings(s: Select): Set<string> {
  return new Set(
    s.from.flatMap((f) => (f.alias ? [lc(f.alias.value)] : f.source.kind === 'table' ? [lc(f.source.name.value)] : [])),
  );
}

/** Qualifiers a predicate refers to. */
function qualifiers(e: Expr): Set<string> {
  const out = new Set<string>();
  forEachExpr(e, (x) => void ((x.kind === 'column' || x.kind === 'star') && x.table && out.add(lc(x.table.value))));
  return out;
}

interface JoinGraph {
  tables: { name: string; kind: string }[];
  predicates: Expr[];
  /** WHERE conjuncts that are not join predicates. */
  filters: Expr[];
}

function joinGraph(s: Select, scope: Scope, dialect: Dialect): JoinGraph {
  const tables = s.from.map((f) => ({
    name: fromName(f, scope, dialect),
    kind: INNER_KINDS.has(f.join) ? 'INNER' : f.join,
  }));
  const bindings = fromBindings(s);
  const predicates: Expr[] = [];
  for (const f of s.from) {
    predicates.push(...conjuncts(f.on));
    if (f.using) for (const u of f.using) predicates.push({ kind: 'raw', sql: `USING (${u.value})` });
  }
  const allInner = s.from.every((f) => INNER_KINDS.has(f.join));
  const filters: Expr[] = [];
  for (const c of conjuncts(s.where)) {
    const q = qualifiers(c);
    const isJoin =
      allInner &&
      s.from.length > 1 &&
      q.size >= 2 &&
      [...q].every((x) => bindings.has(x)) &&
      c.kind === 'binary' &&
      c.left.kind === 'column' &&
      c.right.kind === 'column';
    (isJoin ? predicates : filters).push(c);
  }
  return { tables, predicates, filters };
}

function windowCalls(s: Select): Expr[] {
  const out: Expr[] = [];
  const visit = (e: Expr) =>
    forEachExpr(e, (x) => {
      if (x.kind === 'func' && x.over) out.push(x);
    });
  s.columns.forEach((c) => visit(c.expr));
  s.orderBy.forEach((o) => visit(o.expr));
  return out;
}

interface Side {
  query: Query;
  select: Select;
  scope: Scope;
  setop: Extract<Query, { kind: 'setop' }> | null;
}

const sides = new Map<Dialect, WeakMap<Query, Side>>();

/**
 * One query prepared for comparison, once per tree: a reference is compared
 * with every candidate for it, and its tree (canonical, then comparison form)
 * is the same object each time.
 */
function side(q: Query, dialect: Dialect): Side {
  let memo = sides.get(dialect);
  if (!memo) sides.set(dialect, (memo = new WeakMap()));
  let s = memo.get(q);
  if (!s) memo.set(q, (s = prepareSide(q, dialect)));
  return s;
}

function prepareSide(q: Query, dialect: Dialect): Side {
  const setop = q.kind === 'setop' ? q : null;
  let first: Query = q;
  while (first.kind === 'setop') first = first.arms[0]!;
  const select = resolveOutputRefs(first);
  const scope = scopeOf(select, dialect);
  // A set operation's ORDER BY / LIMIT / OFFSET lie outside the first SELECT: their subqueries are numbered
  // now, in the order compareSides reads them, so that a shared side never changes once made.
  if (setop) {
    for (const o of setop.orderBy) {
      scope.text(o.expr);
      scope.key(o.expr);
    }
    for (const x of [setop.limit, setop.offset]) if (x) scope.text(x);
  }
  return { query: q, select, scope, setop };
}

/** What one side brings to each clause: its items and their texts. */
interface SideItems {
  select: Item[];
  graph: JoinGraph;
  joinPredicates: Item[];
  /** The JOIN clause's items as shown: tables with their join type, then the join predicates. */
  joinTexts: string[];
  where: Item[];
  groupBy: Item[];
  having: Item[];
  order: { item: Item; o: OrderItem }[];
  limit: string[];
  distinct: string[];
  windows: Item[];
}

const sideItems = new WeakMap<Side, SideItems>();

/** A side's items, once per side (a shared side, a reference's, once for all its candidates). */
function itemsOf(S: Side, dialect: Dialect): SideItems {
  let out = sideItems.get(S);
  if (out) return out;
  const s = S.select;
  const { text, key } = S.scope;
  // Read in the order the clauses are compared: a subquery first met here is numbered in that order.
  const bindings = fromBindings(s);
  const items = (xs: Expr[]): Item[] => xs.map((x) => ({ text: text(x), key: key(x), expr: x, bindings }));
  const select = items(s.columns.map((c) => c.expr));
  const graph = joinGraph(s, S.scope, dialect);
  const joinPredicates = items(graph.predicates);
  const tableText = (t: { name: string; kind: string }) => (t.kind === 'INNER' ? t.name : `${t.kind} ${t.name}`);
  const joinTexts = [...graph.tables.map(tableText), ...graph.predicates.map(text)];
  const where = items(graph.filters);
  const groupBy = items(s.groupBy);
  const having = items(conjuncts(s.having));
  // ORDER BY / LIMIT / OFFSET of a set operation are the whole query's.
  const order = (S.setop ? S.setop.orderBy : s.orderBy).map((o) => ({
    item: { text: text(o.expr), key: key(o.expr), expr: o.expr, bindings },
    o,
  }));
  const tail = S.setop ?? s;
  const limit = [
    ...(tail.limit ? [`LIMIT ${text(tail.limit)}`] : []),
    ...(tail.offset ? [`OFFSET ${text(tail.offset)}`] : []),
  ];
  const distinct = s.distinct
    ? [s.distinct.on ? `DISTINCT ON (${s.distinct.on.map(text).join(', ')})` : 'DISTINCT']
    : [];
  const windows = items(windowCalls(s));
  out = { select, graph, joinPredicates, joinTexts, where, groupBy, having, order, limit, distinct, windows };
  sideItems.set(S, out);
  return out;
}

const texts = (xs: Item[]) => xs.map((x) => x.text);

/** JOIN: tables with join types, and join predicates (ON, or WHERE equalities between two FROM items). */
function compareJoins(ei: SideItems, ai: SideItems, e: Select, a: Select): ClauseDiff {
  const ge = ei.graph;
  const ga = ai.graph;
  const joinEdits: EditItem[] = [];
  const usedA = new Set<number>();
  const keptE = new Set<number>();
  ge.tables.forEach((t, i) => {
    const j = ga.tables.findIndex((x, k) => !usedA.has(k) && x.name === t.name);
    if (j < 0) return;
    usedA.add(j);
    keptE.add(i);
    const other = ga.tables[j]!;
    if (other.kind === t.kind)
      joinEdits.push({
        op: 'keep',
        clause: 'join',
        expected: t.name,
        actual: other.name,
        text: `JOIN keeps table \`${t.name}\``,
      });
    else
      joinEdits.push({
        op: 'update',
        clause: 'join',
        expected: `${t.kind} ${t.name}`,
        actual: `${other.kind} ${other.name}`,
        text: `JOIN type of \`${t.name}\` became ${other.kind} (was ${t.kind})`,
      });
  });
  ge.tables.forEach((t, i) => {
    if (!keptE.has(i))
      joinEdits.push({ op: 'remove', clause: 'join', expected: t.name, text: `JOIN is missing table \`${t.name}\`` });
  });
  ga.tables.forEach((t, j) => {
    if (!usedA.has(j))
      joinEdits.push({ op: 'insert', clause: 'join', actual: t.name, text: `JOIN adds table \`${t.name}\`` });
  });
  joinEdits.push(
    ...diffItems('join', ei.joinPredicates, ai.joinPredicates).map((x) => ({
      ...x,
      text: x.text.replace(/^JOIN (is missing|adds|keeps) /, 'JOIN $1 condition '),
    })),
  );
  const joinExpected = [...ei.joinTexts];
  const joinActual = [...ai.joinTexts];
  return finish('join', joinExpected, joinActual, joinEdits, {
    expected: e.from.length > 1,
    actual: a.from.length > 1,
  });
}

function compareLimits(le: string[], la: string[]): ClauseDiff {
  const limitEdits: EditItem[] = [];
  for (const kw of ['LIMIT', 'OFFSET']) {
    const x = le.find((s) => s.startsWith(kw));
    const y = la.find((s) => s.startsWith(kw));
    if (x && y)
      limitEdits.push(
        x === y
          ? { op: 'keep', clause: 'limit_offset', expected: x, actual: y, text: `LIMIT/OFFSET keeps \`${x}\`` }
          : { op: 'update', clause: 'limit_offset', expected: x, actual: y, text: `${x} became ${y}` },
      );
    else if (x) limitEdits.push({ op: 'remove', clause: 'limit_offset', expected: x, text: `${x} is missing` });
    else if (y) limitEdits.push({ op: 'insert', clause: 'limit_offset', actual: y, text: `${y} was added` });
  }
  return finish('limit_offset', le, la, limitEdits);
}

function compareDistinct(de: string[], da: string[]): ClauseDiff {
  const distinctEdits: EditItem[] = [];
  if (de[0] && da[0])
    distinctEdits.push(
      de[0] === da[0]
        ? { op: 'keep', clause: 'distinct', expected: de[0], actual: da[0], text: 'DISTINCT in both' }
        : { op: 'update', clause: 'distinct', expected: de[0], actual: da[0], text: `${de[0]} became ${da[0]}` },
    );
  else if (de[0])
    distinctEdits.push({ op: 'remove', clause: 'distinct', expected: de[0], text: `${de[0]} is missing` });
  else if (da[0]) distinctEdits.push({ op: 'insert', clause: 'distinct', actual: da[0], text: `${da[0]} was added` });
  return finish('distinct', de, da, distinctEdits);
}

function compareSides(E: Side, A0: Side, dialect: Dialect, path: string[]): ClauseMatch {
  const aligned = alignAliases(E.select, A0.select);
  const A: Side = aligned === A0.select ? A0 : { ...A0, select: aligned, scope: scopeOf(aligned, dialect) };
  const e = E.select;
  const a = A.select;
  const ei = itemsOf(E, dialect);
  const ai = itemsOf(A, dialect);
  const clauses = {} as Record<ClauseName, ClauseDiff>;

  // SELECT: the projection as a multiset (aliases ignored), order reported as moves.
  clauses.select = finish(
    'select',
    texts(ei.select),
    texts(ai.select),
    diffItems('select', ei.select, ai.select, { ordered: true }),
  );

  clauses.join = compareJoins(ei, ai, e, a);
  clauses.where = finish('where', texts(ei.where), texts(ai.where), diffItems('where', ei.where, ai.where));
  clauses.group_by = finish(
    'group_by',
    texts(ei.groupBy),
    texts(ai.groupBy),
    diffItems('group_by', ei.groupBy, ai.groupBy),
  );
  clauses.having = finish('having', texts(ei.having), texts(ai.having), diffItems('having', ei.having, ai.having));

  const orderEdits = diffOrder(ei.order, ai.order);
  clauses.order_by = finish(
    'order_by',
    orderEdits.flatMap((x) => (x.expected ? [x.expected] : [])),
    orderEdits.flatMap((x) => (x.actual ? [x.actual] : [])),
    orderEdits,
  );

  clauses.limit_offset = compareLimits([...ei.limit], [...ai.limit]);

  clauses.distinct = compareDistinct([...ei.distinct], [...ai.distinct]);

  clauses.window = finish('window', texts(ei.windows), texts(ai.windows), diffItems('window', ei.windows, ai.windows));

  clauses.set_operators = compareSetOps(E, A, dialect, path);
  clauses.ctes = compareCtes(E.query, A.query, dialect, path);
  clauses.subqueries = compareSubqueries(E.scope, A.scope, dialect, path);

  const edits: EditItem[] = [];
  for (const c of CLAUSES) {
    for (const x of clauses[c].edits) if (x.op !== 'keep') edits.push(path.length ? { ...x, path } : x);
    for (const n of clauses[c].nested ?? []) if (n.match) edits.push(...n.match.edits);
  }
  return { match: CLAUSES.every((c) => clauses[c].match), clauses, edits };
}

/** A nested clause (set operators, CTEs, subqueries): one unit per arm / CTE / subquery. */
interface NestedUnit {
  edit: EditItem;
  nested: NestedMatch;
  /** The unit itself changed (operator, presence), beyond what is nested. */
  changed: boolean;
}

function nestedDiff(clause: ClauseName, units: NestedUnit[], expected: string[], actual: string[]): ClauseDiff {
  const parts = units.map((u) => (u.changed || !u.nested.match ? 1 : clauseDivergence(u.nested.match)));
  const divergence = parts.length ? parts.reduce((s, x) => s + x, 0) / parts.length : 0;
  const match = units.every((u) => !u.changed && u.nested.match?.match !== false);
  return {
    clause,
    match,
    present: { expected: expected.length > 0, actual: actual.length > 0 },
    expected,
    actual,
    edits: units.map((u) => u.edit),
    divergence,
    nested: units.map((u) => u.nested),
  };
}

/** Mean divergence over the clauses present on either side (0 = identical). */
export function clauseDivergence(m: ClauseMatch): number {
  const present = CLAUSES.filter((c) => m.clauses[c].present.expected || m.clauses[c].present.actual);
  if (!present.length) return 0;
  return present.reduce((s, c) => s + m.clauses[c].divergence, 0) / present.length;
}

function compareSetOps(E: Side, A: Side, dialect: Dialect, path: string[]): ClauseDiff {
  const clause: ClauseName = 'set_operators';
  const opsE = E.setop?.ops ?? [];
  const opsA = A.setop?.ops ?? [];
  const armsE = E.setop?.arms ?? [];
  const armsA = A.setop?.arms ?? [];
  const units: NestedUnit[] = [];
  const n = Math.max(opsE.length, opsA.length);
  for (let i = 0; i < n; i++) {
    const oe = opsE[i];
    const oa = opsA[i];
    const armE = armsE[i + 1];
    const armA = armsA[i + 1];
    const label = `arm ${i + 2}`;
    const textE = armE ? `${oe} ${printQuery(armE, dialect)}` : null;
    const textA = armA ? `${oa} ${printQuery(armA, dialect)}` : null;
    if (oe && oa) {
      const nested = {
        label,
        expected: textE,
        actual: textA,
        match: compareQueryAt(armE!, armA!, dialect, [...path, label]),
      };
      const edit: EditItem =
        oe === oa
          ? { op: 'keep', clause, expected: oe, actual: oa, text: `${oe} in both` }
          : { op: 'update', clause, expected: oe, actual: oa, text: `${oe} became ${oa}` };
      units.push({ edit, nested, changed: oe !== oa });
    } else if (oe) {
      units.push({
        edit: { op: 'remove', clause, expected: textE!, text: `Set operators: \`${textE}\` is missing` },
        nested: { label, expected: textE, actual: null, match: null },
        changed: true,
      });
    } else if (oa) {
      units.push({
        edit: { op: 'insert', clause, actual: textA!, text: `Set operators: adds \`${textA}\`` },
        nested: { label, expected: null, actual: textA, match: null },
        changed: true,
      });
    }
  }
  return nestedDiff(clause, units, opsE, opsA);
}

function compareCtes(qe: Query, qa: Query, dialect: Dialect, path: string[]): ClauseDiff {
  const clause: ClauseName = 'ctes';
  const ce: Cte[] = qe.with?.ctes ?? [];
  const ca: Cte[] = qa.with?.ctes ?? [];
  const units: NestedUnit[] = [];
  const body = (c: Cte) => printQuery(c.query, dialect);
  const used = new Set<number>();
  for (const c of ce) {
    let j = ca.findIndex((x, k) => !used.has(k) && lc(x.name.value) === lc(c.name.value));
    if (j < 0) j = ca.findIndex((x, k) => !used.has(k) && body(x) === body(c));
    const label = `CTE ${c.name.value}`;
    if (j < 0) {
      units.push({
        edit: { op: 'remove', clause, expected: c.name.value, text: `WITH is missing CTE \`${c.name.value}\`` },
        nested: { label, expected: body(c), actual: null, match: null },
        changed: true,
      });
      continue;
    }
    used.add(j);
    const d = ca[j]!;
    const m = compareQueryAt(c.query, d.query, dialect, [...path, label]);
    const renamed = lc(c.name.value) !== lc(d.name.value);
    const text = renamed
      ? `CTE \`${c.name.value}\` is named \`${d.name.value}\``
      : `WITH keeps CTE \`${c.name.value}\``;
    units.push({
      edit: { op: 'keep', clause, expected: c.name.value, actual: d.name.value, text },
      nested: { label, expected: body(c), actual: body(d), match: m },
      changed: false,
    });
  }
  ca.forEach((d, j) => {
    if (used.has(j)) return;
    units.push({
      edit: { op: 'insert', clause, actual: d.name.value, text: `WITH adds CTE \`${d.name.value}\`` },
      nested: { label: `CTE ${d.name.value}`, expected: null, actual: body(d), match: null },
      changed: true,
    });
  });
  return nestedDiff(
    clause,
    units,
    ce.map((c) => c.name.value),
    ca.map((c) => c.name.value),
  );
}

/**
 * CTEs are named subqueries: when the actual query names a CTE differently
 * but its body equals an expected CTE's, references to it are renamed so the
 * rest of the comparison sees the same name (an alias resolved).
 */
function alignCteNames(qe: Query, qa: Query, dialect: Dialect): Query {
  const ce = qe.with?.ctes ?? [];
  const ca = qa.with?.ctes ?? [];
  if (!ce.length || !ca.length) return qa;
  const names = new Set(ce.map((c) => lc(c.name.value)));
  const renames = new Map<string, Ident>();
  for (const d of ca) {
    if (names.has(lc(d.name.value))) continue;
    const match = ce.find(
      (c) =>
        !ca.some((x) => lc(x.name.value) === lc(c.name.value)) &&
        printQuery(c.query, dialect) === printQuery(d.query, dialect),
    );
    if (match) renames.set(lc(d.name.value), match.name);
  }
  if (!renames.size) return qa;
  const renameTables = (q: Query): Query =>
    mapQuery(q, (s) => {
      let out: Select = {
        ...s,
        from: s.from.map((f) => {
          if (f.source.kind !== 'table' || f.source.schema) return f;
          const to = renames.get(lc(f.source.name.value));
          return to ? { ...f, source: { ...f.source, name: to } } : f;
        }),
      };
      for (const [from, to] of renames) {
        if (out.from.some((f) => f.alias && lc(f.alias.value) === from)) continue;
        out = renameQualifier(out, from, to) ?? out;
      }
      return out;
    });
  const renamed = renameTables({ ...qa, with: null } as Query);
  return {
    ...renamed,
    with: {
      ...qa.with!,
      ctes: ca.map((d) => ({ ...d, name: renames.get(lc(d.name.value)) ?? d.name, query: renameTables(d.query) })),
    },
  };
}

function compareSubqueries(se: Scope, sa: Scope, dialect: Dialect, path: string[]): ClauseDiff {
  const clause: ClauseName = 'subqueries';
  const units: NestedUnit[] = [];
  const n = Math.max(se.subqueries.length, sa.subqueries.length);
  for (let i = 0; i < n; i++) {
    const x = se.subqueries[i];
    const y = sa.subqueries[i];
    const label = x?.label ?? y!.label;
    const tx = x ? printQuery(x.query, dialect) : null;
    const ty = y ? printQuery(y.query, dialect) : null;
    if (x && y) {
      const m = compareQueryAt(x.query, y.query, dialect, [...path, label]);
      const n = m.edits.filter((e) => e.op !== 'move').length;
      const edit: EditItem = m.match
        ? { op: 'keep', clause, expected: tx!, actual: ty!, text: `${label} is the same` }
        : {
            op: 'update',
            clause,
            expected: tx!,
            actual: ty!,
            text: `${label} differs (${n} edit${n === 1 ? '' : 's'} inside)`,
          };
      units.push({ edit, nested: { label, expected: tx, actual: ty, match: m }, changed: false });
    } else if (x) {
      units.push({
        edit: { op: 'remove', clause, expected: tx!, text: `${label} is missing: \`${tx}\`` },
        nested: { label, expected: tx, actual: null, match: null },
        changed: true,
      });
    } else if (y) {
      units.push({
        edit: { op: 'insert', clause, actual: ty!, text: `adds ${label}: \`${ty}\`` },
        nested: { label, expected: null, actual: ty, match: null },
        changed: true,
      });
    }
  }
  return nestedDiff(
    clause,
    units,
    se.subqueries.map((s) => s.label),
    sa.subqueries.map((s) => s.label),
  );
}

function compareQueryAt(e: Query, a: Query, dialect: Dialect, path: string[]): ClauseMatch {
  return compareSides(side(e, dialect), side(alignCteNames(e, a, dialect), dialect), dialect, path);
}

/**
 * clause_match for two parsed queries. Both are canonicalized here; pass
 * already-canonical trees with `{canonical: true}` to skip that.
 */
export function compareClauses(
  expected: Query,
  actual: Query,
  dialect: Dialect = 'duckdb',
  opts: { canonical?: boolean; quotedIdentifierCase?: boolean } = {},
): ClauseMatch {
  const e = opts.canonical ? expected : canonicalizeQuery(expected, dialect).query;
  const a = opts.canonical ? actual : canonicalizeQuery(actual, dialect).query;
  const quotedCase = opts.quotedIdentifierCase === true;
  return compareQueryAt(comparisonForm(e, dialect, quotedCase), comparisonForm(a, dialect, quotedCase), dialect, []);
}

/**
 * What the comparison ignores beyond the canonical text. DuckDB and SQLite resolve
 * identifiers case-insensitively even when quoted, so identifiers compare in
 * lower case (a quoted `Name` is `name`). PostgreSQL (`quotedCase`) folds only
 * unquoted identifiers: there a quoted `"Name"` is another column than `name`,
 * and `"name"` is `name`. In SQLite a double-quoted word that
 * names no column is a string, and text-to-SQL output uses "France" and
 * 'France' interchangeably: they compare equal here (normalized_sql_match,
 * which is strict, still tells them apart).
 */
function comparisonForm(q: Query, dialect: Dialect, quotedCase = false): Query {
  // Once per canonical tree: a reference's is shared by every candidate compared with it.
  return memoByTree(`comparison:${dialect}${quotedCase ? ':quoted-case' : ''}`, q, () => {
    const out = mapAllIdents(q, quotedCase ? foldUnquotedIdent : lowerIdent);
    return dialect === 'sqlite' ? mapAllExprs(out, singleQuoted) : out;
  });
}

const PLAIN = /^[a-z_][a-z0-9_]*$/;

function lowerIdent(id: Ident): Ident {
  const value = id.value.toLowerCase();
  const quoted = !PLAIN.test(value);
  return value === id.value && quoted === id.quoted ? id : { value, quoted };
}

/** PostgreSQL's rule: unquoted identifiers fold to lower case, quoted ones keep their spelling. */
function foldUnquotedIdent(id: Ident): Ident {
  if (!id.quoted) return lowerIdent(id);
  const quoted = !PLAIN.test(id.value);
  return quoted === id.quoted ? id : { value: id.value, quoted };
}

const singleQuoted = (e: Expr): Expr => (e.kind === 'string' && e.quote === '"' ? { ...e, quote: "'" } : e);
