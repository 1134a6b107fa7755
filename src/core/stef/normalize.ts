/** Normalization shared by both sides: values, terms, column names, dates. */
import type { AppRules, DateWindow } from './types.ts';
import type { Vocabulary } from './vocabulary/en.ts';

/** A literal as canonical SQL or question text → a comparable value: unquoted, lower case, single spaces, plain numbers. */
export function normValue(raw: string): string {
  let s = raw.trim();
  const typed = /^(?:date|timestamp|timestamptz|time)\s+'(.*)'$/is.exec(s);
  if (typed) s = typed[1]!;
  const cast = /^cast\s*\(\s*'(.*)'\s+as\s+\w+\s*\)$/is.exec(s);
  if (cast) s = cast[1]!;
  if ((s.startsWith("'") && s.endsWith("'")) || (s.startsWith('"') && s.endsWith('"')))
    s = s.slice(1, -1).replace(/''/g, "'");
  s = s.trim().replace(/\s+/g, ' ').toLowerCase();
  if (/^[$€£]?-?\d[\d,]*(\.\d+)?$/.test(s)) {
    const n = Number(s.replace(/[$€£,]/g, ''));
    if (Number.isFinite(n)) return String(n);
  }
  const slash = /^(\d{4})\/(\d{1,2})\/(\d{1,2})$/.exec(s);
  if (slash) return `${slash[1]}-${slash[2]!.padStart(2, '0')}-${slash[3]!.padStart(2, '0')}`;
  return s;
}

/** A count in digits or in words ("30", "five"); null when it is neither. */
export function numberOf(word: string, v: Vocabulary): number | null {
  if (/^\d+$/.test(word)) return Number(word);
  return v.numbers[word] ?? null;
}

/** Singular form of one English word (enough for matching column names). */
export function singular(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && /(ses|xes|ches|shes)$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us')) return w.slice(0, -1);
  return w;
}

/** Tokens of a term or a column name: "customerSegment", "customer_segment", "customer segments" → [customer, segment]. */
export function tokens(s: string): string[] {
  return s
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map(singular);
}

/** The column R_app maps a business term to, if any (after synonyms). */
export function mappedColumn(term: string, rules: AppRules): string | null {
  const t = canonicalTerm(term, rules);
  const cols = rules.columns ?? {};
  for (const [k, v] of Object.entries(cols)) if (canonicalTerm(k, rules) === t) return v;
  return null;
}

export function canonicalTerm(term: string, rules: AppRules): string {
  const t = tokens(term).join(' ');
  for (const [k, v] of Object.entries(rules.synonyms ?? {})) if (tokens(k).join(' ') === t) return tokens(v).join(' ');
  return t;
}

/** Whether a question term names an SQL column or expression: R_app mapping first, else shared tokens. */
export function termMatches(term: string, column: string | null, sqlText: string, rules: AppRules): boolean {
  const mapped = mappedColumn(term, rules);
  const target = tokens(sqlText);
  if (mapped) {
    const m = tokens(mapped);
    return m.every((x) => target.includes(x));
  }
  const t = tokens(canonicalTerm(term, rules));
  if (!t.length) return false;
  const c = column ? tokens(column) : target;
  return t.some((x) => x.length > 2 && c.includes(x));
}

// ---- dates: ISO strings, UTC arithmetic ----

export function iso(y: number, m: number, d: number): string {
  return new Date(Date.UTC(y, m - 1, d)).toISOString().slice(0, 10);
}

export function addDays(date: string, n: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

export function addMonths(date: string, n: number): string {
  const [y, m] = date.split('-').map(Number) as [number, number];
  return iso(y, m + n, 1);
}

export function yearWindow(y: number): DateWindow {
  return { start: iso(y, 1, 1), end: iso(y + 1, 1, 1) };
}

export function monthWindow(y: number, m: number): DateWindow {
  return { start: iso(y, m, 1), end: iso(y, m + 1, 1) };
}

export function quarterWindow(y: number, q: number): DateWindow {
  return { start: iso(y, 3 * (q - 1) + 1, 1), end: iso(y, 3 * q + 1, 1) };
}

export function sameWindow(a: DateWindow, b: DateWindow): boolean {
  return a.start === b.start && a.end === b.end;
}

export function showWindow(w: DateWindow | null | undefined): string {
  if (!w) return 'unresolved';
  return `[${w.start ?? '-∞'}, ${w.end ?? '∞'})`;
}
