/**
 * Alignment of the question's filters with the SQL's predicates and the
 * filter-alignment status of the seed: fully applied, fully applied with
 * extras, partially applied, not applied — with the evidence.
 */
import { addDays, monthWindow, normValue, sameWindow, showWindow, termMatches, yearWindow } from './normalize.ts';
import type {
  AppRules,
  DateWindow,
  ExtraFilter,
  FilterAlignment,
  FilterMatch,
  FilterStatus,
  QuestionFilter,
  QuestionSpec,
  SqlFilter,
  SqlSpec,
} from './types.ts';

const ISO = /^\d{4}-\d{2}-\d{2}/;
const EQ = new Set(['=', 'IN', 'LIKE', 'ILIKE', 'IS']);
const NEQ = new Set(['<>', '!=', 'NOT IN', 'NOT LIKE', 'NOT ILIKE', 'IS NOT']);
const RELATIVE = /current_date|current_timestamp|now\s*\(|today\s*\(|localtimestamp|date\s*\(\s*'now'/i;

/** The date interval one SQL predicate implies, if it constrains a date. */
export function predicateWindow(f: SqlFilter): DateWindow | null {
  const subj = f.subject.toLowerCase();
  const yearFn =
    /^[a-z_.]*\b\w*(year|yr)\w*$/.test(subj) ||
    /extract\s*\(\s*year\b|^year\s*\(|date_part\s*\(\s*'year'|strftime\s*\(\s*'%y'\s*,|datepart\s*\(\s*'?year/.test(
      subj,
    );
  const monthFn = /date_trunc\s*\(\s*'month'|strftime\s*\(\s*'%y-%m'\s*,/.test(subj);
  const v = f.values;
  if (yearFn && v.length && /^\d{4}$/.test(v[0]!)) {
    const y = Number(v[0]);
    if (f.operator === '=') return yearWindow(y);
    if (f.operator === '>=') return { start: yearWindow(y).start, end: null };
    if (f.operator === '>') return { start: yearWindow(y + 1).start, end: null };
    if (f.operator === '<') return { start: null, end: yearWindow(y).start };
    if (f.operator === '<=') return { start: null, end: yearWindow(y).end };
    if (f.operator === 'BETWEEN' && /^\d{4}$/.test(v[1] ?? ''))
      return { start: yearWindow(y).start, end: yearWindow(Number(v[1])).end };
  }
  if ((monthFn || /^\d{4}-\d{2}$/.test(v[0] ?? '')) && f.operator === '=' && v.length) {
    const m = /^(\d{4})-(\d{2})/.exec(v[0]!);
    if (m) return monthWindow(Number(m[1]), Number(m[2]));
  }
  if ((f.operator === 'LIKE' || f.operator === 'ILIKE') && v.length) {
    const m = /^(\d{4})(?:-(\d{2}))?-?%$/.exec(v[0]!);
    if (m) return m[2] ? monthWindow(Number(m[1]), Number(m[2])) : yearWindow(Number(m[1]));
  }
  if (!v.length || !ISO.test(v[0]!)) return null;
  const d = v[0]!.slice(0, 10);
  // A timestamp literal past midnight is treated as its day (good enough for windows stated in days).
  switch (f.operator) {
    case '>=':
      return { start: d, end: null };
    case '>':
      return { start: v[0]!.length > 10 && !/ 00:00:00/.test(v[0]!) ? d : addDays(d, 1), end: null };
    case '<':
      return { start: null, end: d };
    case '<=':
      return { start: null, end: addDays(d, 1) };
    case '=':
      return { start: d, end: addDays(d, 1) };
    case 'BETWEEN':
      return ISO.test(v[1] ?? '') ? { start: d, end: addDays(v[1]!.slice(0, 10), 1) } : null;
    default:
      return null;
  }
}

function columnKey(f: SqlFilter): string {
  if (f.column) return f.column;
  const m = /([a-z_][a-z0-9_]*)\s*\)*\s*$/i.exec(f.subject.replace(/\)\s*$/, ''));
  return (m?.[1] ?? f.subject).toLowerCase();
}

function intersect(a: DateWindow, b: DateWindow): DateWindow {
  const start = a.start && b.start ? (a.start > b.start ? a.start : b.start) : (a.start ?? b.start);
  const end = a.end && b.end ? (a.end < b.end ? a.end : b.end) : (a.end ?? b.end);
  return { start, end };
}

const sqlLiteral = (v: string) => `'${v.replace(/'/g, "''")}'`;

interface Ctx {
  spec: SqlSpec;
  /** Lower-case SQL text (whole statement, nested queries included). */
  text: string;
  rules: AppRules;
  used: Set<number>;
}

type Match = Omit<FilterMatch, 'source' | 'question_filter'>;

interface DatedPredicates {
  dated: { f: SqlFilter; i: number; w: DateWindow | null }[];
  /** Per column, the intersection of its windows ("d >= '2024-01-01' AND d < '2025-01-01'"). */
  groups: Map<string, { w: DateWindow; idx: number[] }>;
  /** The columns' windows first, then each predicate's alone. */
  candidates: { w: DateWindow; idx: number[] }[];
}

function datedPredicates(c: Ctx): DatedPredicates {
  const dated = c.spec.filters.map((f, i) => ({ f, i, w: predicateWindow(f) })).filter((x) => x.w);
  const groups = new Map<string, { w: DateWindow; idx: number[] }>();
  for (const x of dated) {
    const k = columnKey(x.f);
    const g = groups.get(k);
    if (g) {
      g.w = intersect(g.w, x.w!);
      g.idx.push(x.i);
    } else groups.set(k, { w: x.w!, idx: [x.i] });
  }
  const candidates = [...groups.values(), ...dated.map((x) => ({ w: x.w!, idx: [x.i] }))];
  return { dated, groups, candidates };
}

/** Mark the predicates used; their expressions. */
function take(c: Ctx, idx: number[]): string[] {
  idx.forEach((i) => c.used.add(i));
  return idx.map((i) => c.spec.filters[i]!.expr);
}

function sameWindowMatch(w: DateWindow, d: DatedPredicates, c: Ctx): Match | null {
  const hit = d.candidates.find((g) => sameWindow(g.w, w));
  if (!hit) return null;
  return { predicates: take(c, hit.idx), result: 'matched', note: `window ${showWindow(w)} matches`, uncertain: false };
}

/** "last 30 days" against CURRENT_DATE: a relative predicate naming the unit (and the count, unless it is 1). */
function relativeMatch(relative: { n: number; unit: string }, c: Ctx): Match | null {
  const rel = c.spec.filters
    .map((f, i) => ({ f, i }))
    .filter(
      ({ f }) =>
        RELATIVE.test(f.expr) &&
        (relative.n === 1 || f.expr.includes(String(relative.n))) &&
        f.expr.toLowerCase().includes(relative.unit),
    );
  if (!rel.length) return null;
  const idx = rel.map(({ i }) => i);
  return {
    predicates: take(c, idx),
    result: 'matched',
    note: `relative window "last ${relative.n} ${relative.unit}" against the current date`,
    uncertain: false,
  };
}

/** No reference date resolved the window: any date predicate will do, with less confidence. */
function unresolvedMatch(d: DatedPredicates, c: Ctx): Match {
  const any = c.spec.filters
    .map((f, i) => ({ f, i }))
    .filter(({ f, i }) => predicateWindow(f) || RELATIVE.test(f.expr) || d.dated.some((x) => x.i === i));
  const idx = any.map(({ i }) => i);
  if (idx.length)
    return {
      predicates: take(c, idx),
      result: 'matched',
      note: 'window not resolved (no reference date): any date predicate is accepted',
      uncertain: true,
    };
  return {
    predicates: [],
    result: 'missing',
    note: 'no date predicate (window not resolved: no reference date)',
    uncertain: true,
  };
}

/** A wider SQL window, when the SQL also names the question's start or year (the expressions split it by date). */
function coveringMatch(w: DateWindow, d: DatedPredicates, c: Ctx): Match | null {
  const covers = (x: DateWindow) =>
    (!x.start || (w.start !== null && x.start <= w.start)) && (!x.end || (w.end !== null && x.end >= w.end));
  const yearOf = w.start?.slice(0, 4) ?? w.end?.slice(0, 4) ?? '';
  const wide = d.candidates.find((g) => covers(g.w));
  if (
    !wide ||
    !(
      c.text.includes(w.start ?? '\u0000') ||
      new RegExp(`\\b${yearOf}\\b`).test(
        c.text.replace(/'[^']*'/g, (x) => (x.includes(w.start ?? '\u0000') ? x : '')),
      ) ||
      c.text.includes(`${yearOf}-`)
    )
  )
    return null;
  return {
    predicates: take(c, wide.idx),
    result: 'matched',
    note: `SQL window ${showWindow(wide.w)} covers ${showWindow(w)}, which the expressions split by date`,
    uncertain: true,
  };
}

/** The SQL restricts the dates, to another window. */
function otherWindowMatch(w: DateWindow, d: DatedPredicates, c: Ctx): Match | null {
  if (!d.groups.size) return null;
  const g = [...d.groups.values()][0]!;
  return {
    predicates: take(c, g.idx),
    result: 'mismatched',
    note: `SQL window ${showWindow(g.w)} differs from ${showWindow(w)}`,
    uncertain: false,
  };
}

/** No date predicate in the outer WHERE: the window's bound (or its year) elsewhere in the SQL is weak evidence. */
function outsideWhereMatch(w: DateWindow, c: Ctx): Match {
  const year =
    w.start &&
    w.end &&
    w.start.endsWith('-01-01') &&
    w.end.endsWith('-01-01') &&
    Number(w.end.slice(0, 4)) - Number(w.start.slice(0, 4)) === 1
      ? w.start.slice(0, 4)
      : null;
  const bound = w.start ?? w.end!;
  if (c.text.includes(bound) || (year && new RegExp(`\\b${year}\\b`).test(c.text)))
    return {
      predicates: [],
      result: 'matched',
      note: `${year ?? bound} appears outside the outer WHERE (nested query or expression)`,
      uncertain: true,
    };
  return {
    predicates: [],
    result: 'missing',
    note: `no predicate restricts the dates to ${showWindow(w)}`,
    uncertain: false,
  };
}

/** A time filter: the same window, the same relative window, else weaker evidence or a mismatch. */
function matchTime(q: QuestionFilter, c: Ctx): Match {
  const d = datedPredicates(c);
  const exact = q.window ? sameWindowMatch(q.window, d, c) : null;
  if (exact) return exact;
  const relative = q.relative ? relativeMatch(q.relative, c) : null;
  if (relative) return relative;
  if (!q.window) return unresolvedMatch(d, c);
  return coveringMatch(q.window, d, c) ?? otherWindowMatch(q.window, d, c) ?? outsideWhereMatch(q.window, c);
}

function matchValue(q: QuestionFilter, c: Ctx): Omit<FilterMatch, 'source' | 'question_filter'> {
  const want = q.values[0] ?? '';
  const negated = q.operator === '<>';
  const family = negated ? NEQ : EQ;
  const opposite = negated ? EQ : NEQ;
  const hasValue = (f: SqlFilter) =>
    f.values.some((x) => x === want || (f.operator.includes('LIKE') && x.replace(/%/g, '') === want));
  const onColumn = (f: SqlFilter) =>
    !q.column && !q.term ? true : termMatches(q.column ?? q.term!, f.column, f.subject, c.rules);
  const idx = c.spec.filters.map((f, i) => ({ f, i })).filter(({ f, i }) => !c.used.has(i) && hasValue(f));
  const same =
    idx.find(({ f }) => family.has(f.operator) && onColumn(f)) ?? idx.find(({ f }) => family.has(f.operator));
  if (same) {
    c.used.add(same.i);
    const onCol = onColumn(same.f);
    return {
      predicates: [same.f.expr],
      result: 'matched',
      note: onCol
        ? 'value and operator match'
        : `value matches on ${same.f.subject}, not on the named ${q.column ?? q.term}`,
      uncertain: !onCol,
    };
  }
  const opp = idx.find(({ f }) => opposite.has(f.operator));
  if (opp) {
    c.used.add(opp.i);
    return {
      predicates: [opp.f.expr],
      result: 'mismatched',
      note: `the SQL ${negated ? 'keeps only' : 'excludes'} '${want}' (${opp.f.operator}); the question ${negated ? 'excludes' : 'asks for'} it`,
      uncertain: false,
    };
  }
  if (q.column || q.term) {
    const col = c.spec.filters
      .map((f, i) => ({ f, i }))
      .find(
        ({ f, i }) =>
          !c.used.has(i) &&
          f.values.length &&
          (family.has(f.operator) || opposite.has(f.operator)) &&
          termMatches(q.column ?? q.term!, f.column, f.subject, c.rules),
      );
    if (col) {
      c.used.add(col.i);
      return {
        predicates: [col.f.expr],
        result: 'mismatched',
        note: `${col.f.subject} is compared with ${col.f.values.join(', ')}, the question says '${want}'`,
        uncertain: false,
      };
    }
  }
  if (
    c.text.includes(sqlLiteral(want)) ||
    (want && new RegExp(`'[^']*${want.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[^']*'`).test(c.text))
  )
    return {
      predicates: [],
      result: 'matched',
      note: `'${want}' appears outside the outer WHERE (nested query or expression)`,
      uncertain: true,
    };
  return {
    predicates: [],
    result: 'missing',
    note: `no predicate ${negated ? 'excludes' : 'selects'} '${want}'`,
    uncertain: false,
  };
}

const DIRECTION: Record<string, number> = { '>': 1, '>=': 1, '<': -1, '<=': -1, '=': 0 };

function matchComparison(q: QuestionFilter, c: Ctx): Omit<FilterMatch, 'source' | 'question_filter'> {
  const want = q.values[0] ?? '';
  const cands = c.spec.filters
    .map((f, i) => ({ f, i }))
    .filter(({ f, i }) => !c.used.has(i) && f.operator in DIRECTION && f.values.includes(want));
  const exact = cands.find(({ f }) => f.operator === q.operator);
  if (exact) {
    c.used.add(exact.i);
    return { predicates: [exact.f.expr], result: 'matched', note: 'operator and value match', uncertain: false };
  }
  const near = cands.find(({ f }) => DIRECTION[f.operator] === DIRECTION[q.operator]);
  if (near) {
    c.used.add(near.i);
    return {
      predicates: [near.f.expr],
      result: 'matched',
      note: `boundary differs: SQL ${near.f.operator}, question ${q.operator}`,
      uncertain: true,
    };
  }
  const wrong = cands[0];
  if (wrong) {
    c.used.add(wrong.i);
    return {
      predicates: [wrong.f.expr],
      result: 'mismatched',
      note: `SQL ${wrong.f.operator} ${want}, question ${q.operator} ${want}`,
      uncertain: false,
    };
  }
  if (q.column || q.term) {
    const col = c.spec.filters
      .map((f, i) => ({ f, i }))
      .find(
        ({ f, i }) =>
          !c.used.has(i) && f.operator in DIRECTION && termMatches(q.column ?? q.term!, f.column, f.subject, c.rules),
      );
    if (col) {
      c.used.add(col.i);
      return {
        predicates: [col.f.expr],
        result: 'mismatched',
        note: `${col.f.expr}: the question says ${q.operator} ${want}`,
        uncertain: false,
      };
    }
  }
  if (new RegExp(`[<>]=?\\s*${want.replace('.', '\\.')}\\b`).test(c.text))
    return {
      predicates: [],
      result: 'matched',
      note: `a comparison with ${want} appears outside the outer WHERE`,
      uncertain: true,
    };
  return { predicates: [], result: 'missing', note: `no predicate ${q.operator} ${want}`, uncertain: false };
}

function matchNull(q: QuestionFilter, c: Ctx): Omit<FilterMatch, 'source' | 'question_filter'> {
  const want = q.operator === 'IS NULL' ? 'IS' : 'IS NOT';
  const nulls = c.spec.filters
    .map((f, i) => ({ f, i }))
    .filter(({ f, i }) => !c.used.has(i) && (f.operator === 'IS' || f.operator === 'IS NOT') && f.values[0] === 'null');
  const named = nulls.filter(({ f }) => termMatches(q.column ?? q.term ?? '', f.column, f.subject, c.rules));
  const pool = named.length ? named : nulls.length === 1 ? nulls : [];
  const hit = pool.find(({ f }) => f.operator === want);
  if (hit) {
    c.used.add(hit.i);
    return {
      predicates: [hit.f.expr],
      result: 'matched',
      note: named.length
        ? `${q.operator} matches`
        : `${q.operator} on ${hit.f.subject} (term "${q.term}" not matched by name)`,
      uncertain: !named.length,
    };
  }
  if (pool[0]) {
    c.used.add(pool[0].i);
    return {
      predicates: [pool[0].f.expr],
      result: 'mismatched',
      note: `the SQL says ${pool[0].f.operator} NULL, the question ${q.operator}`,
      uncertain: false,
    };
  }
  if (c.text.includes(want === 'IS' ? ' is null' : ' is not null'))
    return {
      predicates: [],
      result: 'matched',
      note: `${q.operator} appears outside the outer WHERE`,
      uncertain: true,
    };
  return { predicates: [], result: 'missing', note: `no ${q.operator} predicate on ${q.term}`, uncertain: false };
}

export function describeFilter(q: QuestionFilter): string {
  if (q.kind === 'time') return `"${q.phrase}" ${showWindow(q.window)}`;
  return `"${q.phrase}" → ${q.column ?? q.term ?? '?'} ${q.operator}${q.values.length ? ` ${q.values.join(', ')}` : ''}`;
}

export function matchFilter(q: QuestionFilter, c: Ctx) {
  return q.kind === 'time'
    ? matchTime(q, c)
    : q.kind === 'value'
      ? matchValue(q, c)
      : q.kind === 'comparison'
        ? matchComparison(q, c)
        : matchNull(q, c);
}

function benignRule(f: SqlFilter, rules: AppRules): string | null {
  for (const b of rules.benign_filters ?? []) {
    if (
      (f.column ?? '').toLowerCase() !== b.column.toLowerCase() &&
      !new RegExp(`\\b${b.column.toLowerCase()}\\b`).test(f.subject.toLowerCase())
    )
      continue;
    if (
      b.operator &&
      b.operator.toUpperCase() !== f.operator &&
      !(b.operator.toUpperCase() === 'IS NULL' && f.operator === 'IS') &&
      !(b.operator.toUpperCase() === 'IS NOT NULL' && f.operator === 'IS NOT')
    )
      continue;
    return b.reason ?? `benign filter on ${b.column} (R_app)`;
  }
  return null;
}

const mentioned = (value: string, text: string) => {
  if (value.length < 2 || /^\d+(\.\d+)?$/.test(value)) return false;
  const e = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^a-z0-9])${e}(s|es)?($|[^a-z0-9])`, 'i').test(text);
};

/** Filters: status from the counts (documented in docs/stef.md). */
export function filterScore(
  status: FilterStatus,
  share: number,
  extras: ExtraFilter[],
): { score: number; leniency: 0 | 1 } {
  const counted = extras.filter((e) => e.kind !== 'unverifiable');
  switch (status) {
    case 'fully_applied':
      return { score: 5, leniency: 0 };
    case 'fully_applied_with_extras':
      return counted.every((e) => e.benign) ? { score: 5, leniency: 1 } : { score: 4, leniency: 0 };
    case 'partially_applied':
      return { score: share >= 0.5 ? 3 : 2, leniency: 0 };
    case 'not_applied':
      return { score: 0, leniency: 0 };
  }
}

type Required = { f: QuestionFilter; source: FilterMatch['source']; note?: string };

/** The question's filters; a time window Q_u leaves unresolved takes the next window Q_e states. */
function requiredFilters(q: QuestionSpec, e: QuestionSpec | null): Required[] {
  const enrichedTime = e?.filters.filter((f) => f.kind === 'time' && f.window) ?? [];
  return q.filters.map((f) => {
    if (f.kind === 'time' && !f.window && enrichedTime.length)
      return { f: enrichedTime.shift()!, source: 'enriched', note: `resolves "${f.phrase}"` };
    return { f, source: 'question' };
  });
}

/** Each required filter's match, in the question's order. */
function matchRequired(required: Required[], c: Ctx): FilterMatch[] {
  // Constraints with a window or value first, so a loose match does not take a predicate a precise one needs.
  const order = [...required.keys()].sort(
    (a, b) =>
      Number(!required[a]!.f.window && required[a]!.f.kind === 'time') -
      Number(!required[b]!.f.window && required[b]!.f.kind === 'time'),
  );
  const results: FilterMatch[] = [];
  for (const i of order) {
    const r = required[i]!;
    const m = matchFilter(r.f, c);
    results[i] = {
      source: r.source,
      question_filter: describeFilter(r.f),
      ...m,
      note: r.note ? `${r.note}; ${m.note}` : m.note,
    };
  }
  return results;
}

/** A predicate on a value the question names; a negated one contradicts it unless the question negates it too. */
function mentionMatch(f: SqlFilter, qText: string): FilterMatch {
  const neg = NEQ.has(f.operator);
  const opposite =
    neg && !/\b(non-?|not|excluding|except|other than)\s*\w*\s*$/.test(qText.split(f.values[0]!)[0] ?? '');
  return {
    source: 'mention',
    question_filter: `"${f.values.join(', ')}" mentioned in the question`,
    predicates: [f.expr],
    result: opposite ? 'mismatched' : 'matched',
    note: opposite
      ? `the SQL excludes '${f.values[0]}' (${f.operator}); the question mentions it`
      : "the predicate's value is named in the question",
    uncertain: false,
  };
}

/** SQL predicates whose literal value the user's question mentions are asked for. */
function mentionMatches(q: QuestionSpec, c: Ctx): FilterMatch[] {
  const qText = q.text.toLowerCase();
  const out: FilterMatch[] = [];
  c.spec.filters.forEach((f, i) => {
    if (c.used.has(i) || !f.values.length || f.operator === 'IS' || f.operator === 'IS NOT') return;
    if (!f.values.every((x) => mentioned(x, qText)) || benignRule(f, c.rules)) return;
    c.used.add(i);
    out.push(mentionMatch(f, qText));
  });
  return out;
}

/** A predicate only the enriched question asks for: it matches one of Q_e's own constraints, or Q_e names its values. */
function askedOnlyByEnriched(f: SqlFilter, e: QuestionSpec | null, enrichedOnly: QuestionFilter[], c: Ctx): boolean {
  const sub: Ctx = { spec: { ...c.spec, filters: [f] }, text: '', rules: c.rules, used: new Set() };
  if (enrichedOnly.some((x) => matchFilter(x, sub).result === 'matched')) return true;
  return !!e && f.values.length > 0 && f.values.every((x) => mentioned(x, e.text.toLowerCase()));
}

/** Why an unmatched predicate is there: benign by R_app, not judged, drift, or unasked. */
function extraOf(f: SqlFilter, e: QuestionSpec | null, enrichedOnly: QuestionFilter[], c: Ctx): ExtraFilter {
  const benign = benignRule(f, c.rules);
  if (benign) return { predicate: f.expr, benign: true, kind: 'benign', reason: benign };
  if (
    !f.values.length &&
    f.operator !== 'IS' &&
    f.operator !== 'IS NOT' &&
    !predicateWindow(f) &&
    !RELATIVE.test(f.expr)
  )
    return {
      predicate: f.expr,
      benign: false,
      kind: 'unverifiable',
      reason: 'subquery or column-to-column predicate: not judged by the rules',
    };
  if (askedOnlyByEnriched(f, e, enrichedOnly, c))
    return {
      predicate: f.expr,
      benign: false,
      kind: 'drift',
      reason: 'asked only by the enriched question, not by the user (drift)',
    };
  return {
    predicate: f.expr,
    benign: false,
    kind: 'unasked',
    reason: 'not asked in the question and not benign by R_app',
  };
}

/** The predicates no question filter or mention accounts for. */
function extraFilters(q: QuestionSpec, e: QuestionSpec | null, c: Ctx): ExtraFilter[] {
  const qKeys = new Set(q.filters.map((f) => describeFilter(f)));
  const enrichedOnly = (e?.filters ?? []).filter(
    (f) => !qKeys.has(describeFilter(f)) && !(f.kind === 'time' && q.filters.some((x) => x.kind === 'time')),
  );
  const extras: ExtraFilter[] = [];
  c.spec.filters.forEach((f, i) => {
    if (!c.used.has(i)) extras.push(extraOf(f, e, enrichedOnly, c));
  });
  return extras;
}

function statusOf(hit: number, total: number, extras: ExtraFilter[]): FilterStatus {
  const counted = extras.filter((x) => x.kind !== 'unverifiable');
  return hit < total
    ? hit === 0
      ? 'not_applied'
      : 'partially_applied'
    : counted.length
      ? 'fully_applied_with_extras'
      : 'fully_applied';
}

/**
 * Align the question's filters (Q_u; Q_e resolves windows Q_u left open, and
 * its added constraints are drift) with the SQL's predicates.
 */
export function alignFilters(
  q: QuestionSpec,
  e: QuestionSpec | null,
  spec: SqlSpec,
  sqlText: string,
  rules: AppRules,
): FilterAlignment {
  const c: Ctx = { spec, text: sqlText.toLowerCase(), rules, used: new Set() };
  const matches = [...matchRequired(requiredFilters(q, e), c), ...mentionMatches(q, c)];
  const extras = extraFilters(q, e, c);
  const total = matches.length;
  const hit = matches.filter((m) => m.result === 'matched').length;
  const status = statusOf(hit, total, extras);
  const { score, leniency } = filterScore(status, total ? hit / total : 1, extras);
  return { status, score, leniency, matches, extras };
}

export { normValue };
