/**
 * Language side of the extraction: deterministic, explainable rules over the
 * vocabulary data. Every rule that fires adds a line to `trace`.
 */
import { canonicalTerm, mappedColumn, normValue, numberOf, showWindow } from './normalize.ts';
import { TIME_RULES } from './time-phrases.ts';
import type {
  AppRules,
  DateWindow,
  QuestionAggregation,
  QuestionFilter,
  QuestionOrdering,
  QuestionSpec,
} from './types.ts';
import type { Vocabulary } from './vocabulary/en.ts';
import { VOCABULARIES } from './vocabulary/en.ts';

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const alt = (xs: string[]) =>
  [...xs]
    .sort((a, b) => b.length - a.length)
    .map(esc)
    .join('|');

/** Longer phrases first, so "how many different" wins over "how many". */
const longestFirst = <T>(xs: T[], phrase: (x: T) => string) =>
  [...xs].sort((a, b) => phrase(b).length - phrase(a).length);

const numberWords = (v: Vocabulary) => Object.keys(v.numbers).join('|');

/** Marks character spans as used, so one phrase feeds one rule. */
class Spans {
  private used: [number, number][] = [];
  free(a: number, b: number) {
    return this.used.every(([x, y]) => b <= x || a >= y);
  }
  take(a: number, b: number) {
    this.used.push([a, b]);
  }
  /** Take the span if it is free; whether it was. */
  claim(a: number, b: number) {
    if (!this.free(a, b)) return false;
    this.take(a, b);
    return true;
  }
}

function* matches(re: RegExp, text: string) {
  re.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    yield m;
    if (m[0].length === 0) re.lastIndex++;
  }
}

const endOf = (m: RegExpExecArray) => m.index + m[0].length;

/** Words that can follow a phrase as its target ("average list price of ..."). */
function targetAfter(text: string, from: number, v: Vocabulary): string | null {
  const rest = text.slice(from).replace(/^[\s-]+/, '');
  const words: string[] = [];
  for (const w of rest.split(/\s+/)) {
    const clean = w.replace(/[^a-z0-9_-]/g, '');
    if (
      !clean ||
      v.stopwords.includes(clean) ||
      /^\d/.test(clean) ||
      ['were', 'was', 'did', 'does', 'is', 'are', 'per', 'by'].includes(clean)
    ) {
      if (words.length) break;
      if (['of', 'the', 'a', 'an', 'our', 'all'].includes(clean)) continue;
      break;
    }
    words.push(clean);
    if (words.length === 3 || /[,.?;:]$/.test(w)) break;
  }
  return words.length ? words.join(' ') : null;
}

/** The noun phrase just before a position ("a list price" before "above 50" → "list price"). */
function termBefore(text: string, at: number, v: Vocabulary): string | null {
  const words = text.slice(0, at).trim().split(/\s+/).reverse();
  const out: string[] = [];
  for (const w of words) {
    const clean = w.replace(/[^a-z0-9_-]/g, '');
    if (
      !clean ||
      v.stopwords.includes(clean) ||
      /[,.?;:]$/.test(w) ||
      ['had', 'have', 'has', 'with', 'whose', 'where', 'cost', 'costs', 'spent', 'spend', 'placed'].includes(clean)
    )
      break;
    out.unshift(clean);
    if (out.length === 2) break;
  }
  return out.length ? out.join(' ') : null;
}

export interface ExtractOptions {
  /** YYYY-MM-DD; resolves "last quarter", "since March", "last 30 days". */
  referenceDate?: string | null;
}

/** One question being read: its text, what the rules found so far and the spans they used. */
interface Reading {
  /** Lower case, synonyms replaced, padded with a space on each side. */
  text: string;
  v: Vocabulary;
  rules: AppRules;
  ref: string | null;
  spans: Spans;
  filters: QuestionFilter[];
  aggregations: QuestionAggregation[];
  groupBy: QuestionSpec['groupBy'];
  ordering: QuestionOrdering | null;
  /** Where a "top N" / "bottom N" ranking ends: a "by X" right after it names the ranking metric, not a grouping. */
  rankingEnd: number | null;
  trace: string[];
}

type Rule = (r: Reading) => void;

/** Lower case, straight quotes, single spaces. */
function normalizedText(question: string): string {
  return ` ${question
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/\s+/g, ' ')} `;
}

/** R_app synonyms, replaced before any rule reads the text. */
function withSynonyms(text: string, rules: AppRules, trace: string[]): string {
  for (const [syn, canon] of Object.entries(rules.synonyms ?? {})) {
    const re = new RegExp(`\\b${esc(syn.toLowerCase())}\\b`, 'g');
    if (re.test(text)) {
      text = text.replace(re, canon.toLowerCase());
      trace.push(`synonym "${syn}" → "${canon}" (R_app)`);
    }
  }
  return text;
}

/** One time filter per span, and none for a window an earlier phrase already gave. */
function addTime(r: Reading, m: RegExpExecArray, window: DateWindow | null, relative: QuestionFilter['relative']) {
  if (!r.spans.claim(m.index, endOf(m))) return;
  if (
    window &&
    r.filters.some(
      (f) => f.kind === 'time' && f.window && f.window.start === window.start && f.window.end === window.end,
    )
  )
    return;
  const phrase = m[0].trim();
  r.filters.push({ kind: 'time', phrase, term: null, column: null, operator: '=', values: [], window, relative });
  r.trace.push(
    `time window "${phrase}" → ${showWindow(window)}${relative ? ` (relative: last ${relative.n} ${relative.unit})` : ''}`,
  );
}

/** Time windows, most specific first (time-phrases.ts). */
const timeWindows: Rule = (r) => {
  const months = alt(r.v.months);
  const clock = { v: r.v, ref: r.ref };
  for (const rule of TIME_RULES)
    for (const m of matches(rule.pattern(months), r.text)) {
      const read = rule.read(m, clock);
      if (read) addTime(r, m, read.window, read.relative ?? null);
    }
};

/** Explicit sort order: "in descending order", "highest first"; the first one found is the ordering. */
const explicitOrder: Rule = (r) => {
  for (const o of longestFirst(r.v.explicitOrder, (o) => o.phrase)) {
    const re = new RegExp(`\\b${esc(o.phrase)}\\b${o.phrase.endsWith(' to') ? ' [a-z]+' : ''}`, 'g');
    for (const m of matches(re, r.text)) {
      if (!r.spans.claim(m.index, endOf(m))) continue;
      if (!r.ordering) {
        r.ordering = { direction: o.direction ?? 'ASC', n: null, phrase: o.phrase, explicit: true };
        r.trace.push(`explicit order "${o.phrase}" → ORDER BY ${o.direction ?? '(any direction)'}`);
      }
    }
  }
};

/** Comparisons: "over 100", "at least five". */
const comparisons: Rule = (r) => {
  const { text, v, rules } = r;
  for (const c of longestFirst(v.comparisons, (c) => c.phrase)) {
    const re = new RegExp(`\\b${esc(c.phrase)} ([$€£]?\\d[\\d,]*(?:\\.\\d+)?|${numberWords(v)})\\b`, 'g');
    for (const m of matches(re, text)) {
      if (!r.spans.free(m.index, endOf(m))) continue;
      const n = numberOf(m[1]!, v);
      // "at least one order" is existence, and "exactly one week" a duration: not numeric predicates.
      if (
        (n === 1 && c.operator === '>=') ||
        /^ (?:day|week|month|year|quarter|hour|minute)s?\b/.test(text.slice(endOf(m)))
      )
        continue;
      r.spans.take(m.index, endOf(m));
      const value = n !== null ? String(n) : normValue(m[1]!);
      const term = termBefore(text, m.index, v);
      const phrase = m[0].trim();
      const column = term ? mappedColumn(term, rules) : null;
      r.filters.push({ kind: 'comparison', phrase, term, column, operator: c.operator, values: [value] });
      r.trace.push(`comparison "${phrase}" → ${term ?? '?'} ${c.operator} ${value}`);
    }
  }
};

/** Signs: "negative balance" → balance < 0. */
const signs: Rule = (r) => {
  for (const m of matches(/\b(negative|positive) ([a-z_]+)/g, r.text)) {
    if (!r.spans.claim(m.index, endOf(m))) continue;
    const op = m[1] === 'negative' ? '<' : '>';
    const column = mappedColumn(m[2]!, r.rules);
    r.filters.push({ kind: 'comparison', phrase: m[0], term: m[2]!, column, operator: op, values: ['0'] });
    r.trace.push(`sign "${m[0]}" → ${m[2]} ${op} 0`);
  }
};

/** The term of a null check: both words when R_app maps them or the second is an attribute noun ("category code"). */
function nullTerm(words: string[], r: Reading): string {
  return words.length === 2 && !mappedColumn(words.join(' '), r.rules) && !r.v.attributeNouns.includes(words[1]!)
    ? words[0]!
    : words.join(' ');
}

/** "Products without a category form their own group": the rest of the sentence keeps the missing values. */
function keepsMissingAsGroup(text: string, at: number): boolean {
  const sentenceEnd = text.indexOf('.', at);
  return /\b(own group|group of (?:its|their) own|as a group)\b/.test(
    text.slice(at, sentenceEnd < 0 ? undefined : sentenceEnd),
  );
}

/** Null checks: "without a category" (IS NULL), "leave out ... without a category" (IS NOT NULL). */
const nullChecks: Rule = (r) => {
  const { text, v } = r;
  for (const m of matches(new RegExp(`\\b(${alt(v.nullPhrases)}) ([a-z_]+(?: [a-z_]+)?)`, 'g'), text)) {
    if (!r.spans.free(m.index, endOf(m))) continue;
    const words = m[2]!.split(' ').filter((w) => !v.stopwords.includes(w));
    if (!words.length) continue;
    const term = nullTerm(words, r);
    r.spans.take(m.index, endOf(m));
    const phrase = m[0].trim();
    if (keepsMissingAsGroup(text, m.index)) {
      r.trace.push(`"${phrase}" keeps the missing values as a group: not a filter`);
      continue;
    }
    const sentence = text.slice(Math.max(0, text.lastIndexOf('.', m.index)), m.index);
    const excluded = /\b(leave out|leaving out|exclude|excluding|ignore|ignoring|except|skip|omit)\b/.test(sentence);
    const operator = excluded ? 'IS NOT NULL' : 'IS NULL';
    r.filters.push({ kind: 'null', phrase, term, column: mappedColumn(term, r.rules), operator, values: [] });
    r.trace.push(`null check "${phrase}" → ${term} ${operator}${excluded ? ' (excluded)' : ''}`);
  }
};

/** Negated values: "non-cancelled" → status <> 'cancelled' (R_app), "non-member" even without R_app. */
const negatedValues: Rule = (r) => {
  for (const m of matches(/\b(?:non-|non |not |excluding |except )([a-z][a-z_-]+)/g, r.text)) {
    const word = m[1]!;
    const known = r.rules.values?.[word];
    if (!known && !m[0].startsWith('non')) continue;
    if (!r.spans.claim(m.index, endOf(m))) continue;
    const column = known?.column ?? null;
    const value = known?.value ?? word;
    const phrase = m[0].trim();
    r.filters.push({ kind: 'value', phrase, term: column, column, operator: '<>', values: [normValue(value)] });
    r.trace.push(`negated value "${phrase}" → ${column ?? '?'} <> '${value}'`);
  }
};

/** R_app value terms: "cancelled" → status = 'cancelled'; a value a filter already holds only completes its column. */
const valueTerms: Rule = (r) => {
  for (const [word, vt] of Object.entries(r.rules.values ?? {}).sort(([a], [b]) => b.length - a.length)) {
    for (const m of matches(new RegExp(`\\b${esc(word.toLowerCase())}\\b`, 'g'), r.text)) {
      if (!r.spans.claim(m.index, endOf(m))) continue;
      const op = (vt.operator ?? '=') as QuestionFilter['operator'];
      const value = normValue(vt.value);
      const same = r.filters.find(
        (f) =>
          f.kind === 'value' && f.operator === op && f.values[0] === value && (!f.column || f.column === vt.column),
      );
      if (same) {
        same.column ??= vt.column;
        same.term ??= vt.column;
        continue;
      }
      r.filters.push({
        kind: 'value',
        phrase: word,
        term: vt.column,
        column: vt.column,
        operator: op,
        values: [value],
      });
      r.trace.push(`value term "${word}" → ${vt.column} ${op} '${vt.value}' (R_app)`);
    }
  }
};

const VALUE = `('[^']+'|"[^"]+"|[a-z0-9][a-z0-9_-]*)`;

/** Words that read as a value after an attribute noun but are not one ("region had", "status so far"). */
const NOT_VALUES = [
  'had',
  'has',
  'have',
  'brought',
  'made',
  'sold',
  'from',
  'at',
  'over',
  'under',
  'than',
  'not',
  'any',
  'own',
  'group',
  'so',
  'far',
];

/** Attribute phrases, and which group of the match is the term and which the value. */
const ATTRIBUTE_PATTERNS: { re: (attrs: string) => RegExp; term: number; value: number }[] = [
  // "in the north region"
  { re: (attrs) => new RegExp(`\\b(?:in|from|for|within|of) (?:the )?${VALUE} (${attrs})\\b`, 'g'), term: 2, value: 1 },
  // "with status paid", "where the region is emea"
  {
    re: (attrs) =>
      new RegExp(`\\b(?:with|whose|where|having)(?: the| a)? (${attrs}) (?:is |= ?|of |equal to )?${VALUE}`, 'g'),
    term: 1,
    value: 2,
  },
  // "region is 'EMEA'"
  { re: (attrs) => new RegExp(`\\b(${attrs}) (?:is|=|equals) ${VALUE}`, 'g'), term: 1, value: 2 },
  // "region 'EMEA'"
  { re: (attrs) => new RegExp(`\\b(${attrs}) ('[^']+'|"[^"]+")`, 'g'), term: 1, value: 2 },
];

/** Attribute values: "in the north region", "with status paid", "region is 'EMEA'". */
const attributeValues: Rule = (r) => {
  const nouns = [...r.v.attributeNouns, ...Object.keys(r.rules.columns ?? {}).map((k) => k.toLowerCase())];
  const attrs = alt([...new Set(nouns)]);
  const blocked = new Set([...r.v.stopwords, ...NOT_VALUES]);
  for (const p of ATTRIBUTE_PATTERNS)
    for (const m of matches(p.re(attrs), r.text)) {
      const value = normValue(m[p.value]!);
      if (!value || blocked.has(value) || !r.spans.claim(m.index, endOf(m))) continue;
      const term = canonicalTerm(m[p.term]!, r.rules);
      const phrase = m[0].trim();
      r.filters.push({
        kind: 'value',
        phrase,
        term,
        column: mappedColumn(term, r.rules),
        operator: '=',
        values: [value],
      });
      r.trace.push(`attribute value "${phrase}" → ${term} = '${value}'`);
    }
};

/** A quoted value no attribute claimed: "named 'Ann'" → ? = 'ann'. */
const quotedValues: Rule = (r) => {
  for (const m of matches(/('[^']+'|"[^"]+")/g, r.text)) {
    if (!r.spans.claim(m.index, endOf(m))) continue;
    r.filters.push({
      kind: 'value',
      phrase: m[0],
      term: null,
      column: null,
      operator: '=',
      values: [normValue(m[1]!)],
    });
    r.trace.push(`quoted value ${m[0]} → ? = '${normValue(m[1]!)}'`);
  }
};

/** The count a few words before a superlative: "the five customers who spent the most". A year is not a count. */
function countBefore(r: Reading, at: number): number | null {
  const before = r.text
    .slice(Math.max(0, at - 40), at)
    .split(/\s+/)
    .filter(Boolean)
    .slice(-5);
  for (const w of before.reverse()) {
    const k = numberOf(w.replace(/[^a-z0-9]/g, ''), r.v);
    if (k !== null && !/^(19|20)\d\d$/.test(w)) return k;
  }
  return null;
}

/** One direction's superlatives; an explicit order without a count takes the count. */
function superlative(r: Reading, words: string[], direction: 'ASC' | 'DESC') {
  const re = new RegExp(`\\b(?:(top|bottom) (\\d+|${numberWords(r.v)})\\b|(${alt(words)})\\b)`, 'g');
  for (const m of matches(re, r.text)) {
    if (!r.spans.claim(m.index, endOf(m))) continue;
    if (m[1]) r.rankingEnd ??= endOf(m);
    const n = (m[2] ? numberOf(m[2], r.v) : null) ?? countBefore(r, m.index);
    // "bottom 3" sets the direction for the rest of this pass too.
    if (m[1]) direction = m[1] === 'bottom' ? 'ASC' : 'DESC';
    if (r.ordering && r.ordering.explicit && r.ordering.n === null) {
      r.ordering = { ...r.ordering, n, direction: r.ordering.direction };
    } else if (!r.ordering) {
      r.ordering = { direction, n, phrase: m[0], explicit: false };
    }
    r.trace.push(`superlative "${m[0]}" → ORDER BY ${direction}${n !== null ? ` LIMIT ${n}` : ' (or MAX/MIN)'}`);
  }
}

/** Superlatives: "top 5", "five customers ... the most", "the highest" ("maximum" and "minimum" are aggregations). */
const superlatives: Rule = (r) => {
  superlative(
    r,
    r.v.descending.filter((w) => w !== 'maximum' && w !== 'last'),
    'DESC',
  );
  superlative(
    r,
    r.v.ascending.filter((w) => w !== 'minimum' && w !== 'first'),
    'ASC',
  );
};

/** Aggregations: "total" → SUM, "how many" → COUNT ... */
const aggregationPhrases: Rule = (r) => {
  const { text, v, rules } = r;
  for (const a of longestFirst(v.aggregations, (a) => a.phrase)) {
    for (const m of matches(new RegExp(`\\b${esc(a.phrase)}\\b`, 'g'), text)) {
      if (!r.spans.claim(m.index, endOf(m))) continue;
      // "average number of orders": the count is what is averaged, not an answer of its own.
      if (a.func === 'COUNT' && /\b(average|mean|total)\s+$/.test(text.slice(0, m.index))) continue;
      const target = targetAfter(text, endOf(m), v);
      const column = target ? mappedColumn(target, rules) : null;
      r.aggregations.push({ func: a.func, distinct: !!a.distinct, phrase: a.phrase, target, column });
      r.trace.push(
        `aggregation "${a.phrase}" → ${a.func}${a.distinct ? '(DISTINCT …)' : ''}${target ? ` of "${target}"` : ''}`,
      );
    }
  }
};

/** R_app metrics: "revenue" → SUM(amount); an aggregation already found for it only gets its column. */
const metricTerms: Rule = (r) => {
  for (const [term, metric] of Object.entries(r.rules.metrics ?? {})) {
    if (!new RegExp(`\\b${esc(term.toLowerCase())}\\b`).test(r.text)) continue;
    const func = metric.func.toUpperCase() as QuestionAggregation['func'];
    if (r.aggregations.some((a) => a.func === func && (a.target === null || a.target.includes(term.toLowerCase())))) {
      const same = r.aggregations.find((a) => a.func === func);
      if (same) same.column ??= metric.column ?? null;
      continue;
    }
    r.aggregations.push({ func, distinct: false, phrase: term, target: term, column: metric.column ?? null });
    r.trace.push(`metric "${term}" → ${func}(${metric.column ?? '…'}) (R_app)`);
  }
};

/** The ranking metric runs to the next clause word or break ("by number of orders in 2024" → "number of orders"). */
function metricWords(text: string, from: number): string {
  const words: string[] = [];
  for (const w of text.slice(from).split(/\s+/)) {
    const clean = w.replace(/[^a-z0-9_']/g, '');
    if (
      !clean ||
      words.length === 4 ||
      /^(in|for|from|during|since|per|each|and|with|on|at|over|between|who|that|which|where|when|than)$/.test(clean)
    )
      break;
    words.push(clean);
    if (/[,.;:?]$/.test(w)) break;
  }
  return words.join(' ');
}

/**
 * "Top 5 customers by revenue": a "by" at most a few words (the ranked entity) after the ranking, with no clause
 * break between, names the ranking metric. Whether it did.
 */
function rankingMetric(r: Reading, g: string, m: RegExpExecArray): boolean {
  if (!r.ordering || r.rankingEnd === null || m.index < r.rankingEnd) return false;
  const between = r.text.slice(r.rankingEnd, m.index);
  if (/[,.;:?]/.test(between) || between.trim().split(/\s+/).filter(Boolean).length > 3) return false;
  const metric = metricWords(r.text, m.index + g.length + 1) || m[1]!;
  r.spans.take(m.index, m.index + g.length);
  r.ordering = { ...r.ordering, metric };
  r.trace.push(
    `ranking "${r.ordering.phrase} … by ${metric}" → ORDER BY ${metric} ${r.ordering.direction} (the ranking metric, not a grouping)`,
  );
  r.rankingEnd = null;
  return true;
}

/**
 * The grouping key after the phrase: two words when R_app maps them or the second is a key noun ("customer tier");
 * null when the word is no key (a stopword, a short word, the start of an aggregation: "per total").
 */
function groupTerm(r: Reading, m: RegExpExecArray): string | null {
  const { v, rules } = r;
  // "per calendar month": the key is the word after the adjective.
  const adjective = m[1] === 'calendar' || m[1] === 'fiscal';
  const first = adjective && m[2] ? m[2] : m[1]!;
  const next = adjective ? undefined : m[2];
  if (v.stopwords.includes(first) || first.length < 3 || v.aggregations.some((a) => a.phrase.split(' ')[0] === first))
    return null;
  const second =
    next &&
    !v.stopwords.includes(next) &&
    !['from', 'to', 'with', 'who', 'where', 'when', 'since', 'so', 'than', 'what', 'over', 'between'].includes(next)
      ? next
      : null;
  const two = second ? `${first} ${second}` : null;
  return two &&
    (mappedColumn(two, rules) ||
      /^(tier|segment|channel|category|region|type|code|id|name|level|status|date|month|year|group)$/.test(second!))
    ? two
    : first;
}

/** Grouping: "per region", "for each month", "by channel". */
const groupings: Rule = (r) => {
  const { text, v, rules } = r;
  for (const g of longestFirst(v.grouping, (g) => g)) {
    for (const m of matches(new RegExp(`\\b${esc(g)} (?:the |a |an )?([a-z_]+)(?: ([a-z_]+))?`, 'g'), text)) {
      if (!r.spans.free(m.index, m.index + g.length)) continue;
      const prev =
        text
          .slice(0, m.index)
          .trim()
          .split(/\s+/)
          .pop()
          ?.replace(/[^a-z]/g, '') ?? '';
      if (g === 'by' && (v.byNotGrouping.includes(prev) || m[1] === 'how' || /^\d/.test(m[1]!))) continue;
      if (g === 'by' && rankingMetric(r, g, m)) continue;
      if (g === 'each' && (prev === 'for' || prev === 'in')) continue;
      const term = groupTerm(r, m);
      if (term === null) continue;
      r.spans.take(m.index, m.index + g.length + 1 + term.length);
      const t = canonicalTerm(term, rules);
      r.groupBy.push({ term: t, column: mappedColumn(t, rules), phrase: `${g} ${term}` });
      r.trace.push(`grouping "${g} ${term}" → GROUP BY ${mappedColumn(t, rules) ?? t}`);
    }
  }
};

/** The rules in the order they claim words: the more specific phrase first. */
const RULES: readonly Rule[] = [
  timeWindows,
  explicitOrder,
  comparisons,
  signs,
  nullChecks,
  negatedValues,
  valueTerms,
  attributeValues,
  quotedValues,
  superlatives,
  aggregationPhrases,
  metricTerms,
  groupings,
];

/** Whether the question asks for rows: "list ...", "which ...", "give their names". */
function asksForRows(r: Reading): boolean {
  return new RegExp(`^ (?:${alt(r.v.listing)})\\b`).test(r.text) || /\bgive (?:their|its|the)\b/.test(r.text);
}

/** Extract the semantic specification of a question (Q_u or Q_e). */
export function extractQuestion(question: string, rules: AppRules = {}, opts: ExtractOptions = {}): QuestionSpec {
  const trace: string[] = [];
  const r: Reading = {
    text: withSynonyms(normalizedText(question), rules, trace),
    v: VOCABULARIES[rules.language ?? 'en'] ?? VOCABULARIES.en!,
    rules,
    ref: opts.referenceDate ?? rules.reference_date ?? null,
    spans: new Spans(),
    filters: [],
    aggregations: [],
    groupBy: [],
    ordering: null,
    rankingEnd: null,
    trace,
  };
  for (const rule of RULES) rule(r);
  const listing = asksForRows(r);
  if (listing) trace.push('listing: the question asks for rows');
  for (const f of r.filters) if (f.term && !f.column) f.column = mappedColumn(f.term, rules);
  return {
    text: question,
    aggregations: r.aggregations,
    filters: r.filters,
    groupBy: r.groupBy,
    ordering: r.ordering,
    listing,
    trace,
  };
}

/** Whether the question yields a specification the rules can check. */
export function hasSpec(q: QuestionSpec): boolean {
  return q.aggregations.length + q.filters.length + q.groupBy.length > 0 || q.ordering !== null || q.listing;
}

/** Constraints of a spec as short comparable strings (for drift). */
export function constraintsOf(q: QuestionSpec): Map<string, string> {
  const out = new Map<string, string>();
  for (const a of q.aggregations)
    out.set(
      `agg:${a.func}${a.distinct ? ':distinct' : ''}`,
      `${a.func}${a.distinct ? ' DISTINCT' : ''}${a.target ? ` of ${a.target}` : ''}`,
    );
  for (const f of q.filters) {
    if (f.kind === 'time')
      out.set(
        `time:${showWindow(f.window)}:${f.relative ? `${f.relative.n}${f.relative.unit}` : ''}`,
        `time window ${f.phrase} ${showWindow(f.window)}`,
      );
    else
      out.set(
        `filter:${f.column ?? f.term ?? ''}:${f.operator}:${f.values.join(',')}`,
        `${f.column ?? f.term ?? '?'} ${f.operator}${f.values.length ? ` ${f.values.join(', ')}` : ''}`,
      );
  }
  for (const g of q.groupBy) out.set(`group:${g.column ?? g.term}`, `group by ${g.column ?? g.term}`);
  if (q.ordering)
    out.set(
      `order:${q.ordering.direction}:${q.ordering.n ?? ''}`,
      `order ${q.ordering.direction}${q.ordering.n !== null ? ` limit ${q.ordering.n}` : ''}`,
    );
  return out;
}
