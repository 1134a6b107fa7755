/**
 * Language side of the extraction: deterministic, explainable rules over the
 * vocabulary data. Every rule that fires adds a line to `trace`.
 */
import {
  addDays,
  addMonths,
  canonicalTerm,
  iso,
  mappedColumn,
  monthWindow,
  normValue,
  quarterWindow,
  showWindow,
  yearWindow,
} from './normalize.ts';
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

/** Marks character spans as used, so one phrase feeds one rule. */
class Spans {
  private used: [number, number][] = [];
  free(a: number, b: number) {
    return this.used.every(([x, y]) => b <= x || a >= y);
  }
  take(a: number, b: number) {
    this.used.push([a, b]);
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

const quarterWords: Record<string, number> = { first: 1, second: 2, third: 3, fourth: 4, q1: 1, q2: 2, q3: 3, q4: 4 };

function numberOf(word: string, v: Vocabulary): number | null {
  if (/^\d+$/.test(word)) return Number(word);
  return v.numbers[word] ?? null;
}

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

/** Extract the semantic specification of a question (Q_u or Q_e). */
export function extractQuestion(question: string, rules: AppRules = {}, opts: ExtractOptions = {}): QuestionSpec {
  const v = VOCABULARIES[rules.language ?? 'en'] ?? VOCABULARIES.en!;
  const ref = opts.referenceDate ?? rules.reference_date ?? null;
  const trace: string[] = [];
  let text = ` ${question
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/\s+/g, ' ')} `;
  for (const [syn, canon] of Object.entries(rules.synonyms ?? {})) {
    const re = new RegExp(`\\b${esc(syn.toLowerCase())}\\b`, 'g');
    if (re.test(text)) {
      text = text.replace(re, canon.toLowerCase());
      trace.push(`synonym "${syn}" → "${canon}" (R_app)`);
    }
  }
  const spans = new Spans();
  const filters: QuestionFilter[] = [];
  const aggregations: QuestionAggregation[] = [];
  const groupBy: QuestionSpec['groupBy'] = [];
  let ordering: QuestionOrdering | null = null;
  const months = alt(v.months);
  const monthNo = (m: string) => v.months.indexOf(m) + 1;
  const refYear = ref ? Number(ref.slice(0, 4)) : null;

  const time = (
    phrase: string,
    window: DateWindow | null,
    a: number,
    b: number,
    relative: QuestionFilter['relative'] = null,
  ) => {
    if (!spans.free(a, b)) return;
    spans.take(a, b);
    if (
      window &&
      filters.some(
        (f) => f.kind === 'time' && f.window && f.window.start === window.start && f.window.end === window.end,
      )
    )
      return;
    filters.push({
      kind: 'time',
      phrase: phrase.trim(),
      term: null,
      column: null,
      operator: '=',
      values: [],
      window,
      relative,
    });
    trace.push(
      `time window "${phrase.trim()}" → ${showWindow(window)}${relative ? ` (relative: last ${relative.n} ${relative.unit})` : ''}`,
    );
  };

  // ---- time windows, most specific first ----
  for (const m of matches(
    new RegExp(`\\bfrom (${months}) (\\d{4}) (?:to|through|until) (${months}) (\\d{4})\\b`, 'g'),
    text,
  ))
    time(
      m[0],
      { start: iso(+m[2]!, monthNo(m[1]!), 1), end: monthWindow(+m[4]!, monthNo(m[3]!)).end },
      m.index,
      m.index + m[0].length,
    );
  for (const m of matches(
    /\b(?:from|between) (\d{4}-\d{2}-\d{2}) (?:to|through|until|and) (\d{4}-\d{2}-\d{2})\b/g,
    text,
  ))
    time(m[0], { start: m[1]!, end: addDays(m[2]!, 1) }, m.index, m.index + m[0].length);
  for (const m of matches(/\b(?:since|from|after) (\d{4}-\d{2}-\d{2})\b/g, text))
    time(
      m[0],
      { start: m[0].startsWith('after') ? addDays(m[1]!, 1) : m[1]!, end: null },
      m.index,
      m.index + m[0].length,
    );
  for (const m of matches(/\b(?:before|until) (\d{4}-\d{2}-\d{2})\b/g, text))
    time(
      m[0],
      { start: null, end: m[0].startsWith('until') ? addDays(m[1]!, 1) : m[1]! },
      m.index,
      m.index + m[0].length,
    );
  for (const m of matches(/\bon (\d{4}-\d{2}-\d{2})\b/g, text))
    time(m[0], { start: m[1]!, end: addDays(m[1]!, 1) }, m.index, m.index + m[0].length);
  for (const m of matches(/\bfrom (\d{4}) (?:to|through|until) (\d{4})\b/g, text))
    time(m[0], { start: iso(+m[1]!, 1, 1), end: iso(+m[2]! + 1, 1, 1) }, m.index, m.index + m[0].length);
  for (const m of matches(new RegExp(`\\b(?:on )?(\\d{1,2}) (${months}),? (\\d{4})\\b`, 'g'), text)) {
    const d = iso(+m[3]!, monthNo(m[2]!), +m[1]!);
    time(m[0], { start: d, end: addDays(d, 1) }, m.index, m.index + m[0].length);
  }
  for (const m of matches(new RegExp(`\\b(?:on )?(${months}) (\\d{1,2}),? (\\d{4})\\b`, 'g'), text)) {
    const d = iso(+m[3]!, monthNo(m[1]!), +m[2]!);
    time(m[0], { start: d, end: addDays(d, 1) }, m.index, m.index + m[0].length);
  }
  for (const m of matches(/\b(?:in |during )?(?:the )?(first|second|third|fourth) quarter of (\d{4})\b/g, text))
    time(m[0], quarterWindow(+m[2]!, quarterWords[m[1]!]!), m.index, m.index + m[0].length);
  for (const m of matches(/\b(?:in |during )?(q[1-4]) (?:of )?(\d{4})\b/g, text))
    time(m[0], quarterWindow(+m[2]!, quarterWords[m[1]!]!), m.index, m.index + m[0].length);
  for (const m of matches(new RegExp(`\\bsince (${months})(?: (\\d{4}))?\\b`, 'g'), text)) {
    const y = m[2] ? +m[2] : refYear;
    time(m[0], y === null ? null : { start: iso(y, monthNo(m[1]!), 1), end: null }, m.index, m.index + m[0].length);
  }
  for (const m of matches(new RegExp(`\\b(?:in |during )(${months}) (\\d{4})\\b`, 'g'), text))
    time(m[0], monthWindow(+m[2]!, monthNo(m[1]!)), m.index, m.index + m[0].length);
  for (const m of matches(
    /\b(?:in the |over the |during the )?(?:last|past|previous) (\d+|[a-z]+) (day|week|month|year)s\b/g,
    text,
  )) {
    const n = numberOf(m[1]!, v);
    if (n === null) continue;
    const unit = m[2]!;
    let window: DateWindow | null = null;
    if (ref) {
      const end = addDays(ref, 1);
      const start =
        unit === 'day'
          ? addDays(end, -n)
          : unit === 'week'
            ? addDays(end, -7 * n)
            : unit === 'month'
              ? addMonthsDay(end, -n)
              : addMonthsDay(end, -12 * n);
      window = { start, end };
    }
    time(m[0], window, m.index, m.index + m[0].length, { n, unit });
  }
  for (const m of matches(
    /\b(?:(?:in |during |for )(?:the )?(?:last|previous|past)|(?:the )?(?:last|past)) (quarter|month|year|week)\b/g,
    text,
  )) {
    let window: DateWindow | null = null;
    if (ref) {
      const [y, mo] = ref.split('-').map(Number) as [number, number];
      const unit = m[1]!;
      if (unit === 'year') window = yearWindow(y - 1);
      else if (unit === 'month') window = { start: addMonths(ref, -1), end: iso(y, mo, 1) };
      else if (unit === 'quarter') {
        const q = Math.floor((mo - 1) / 3) + 1;
        window = q === 1 ? quarterWindow(y - 1, 4) : quarterWindow(y, q - 1);
      } else {
        const dow = (new Date(`${ref}T00:00:00Z`).getUTCDay() + 6) % 7;
        const monday = addDays(ref, -dow);
        window = { start: addDays(monday, -7), end: monday };
      }
    }
    time(m[0], window, m.index, m.index + m[0].length, { n: 1, unit: m[1]! });
  }
  for (const m of matches(/\bthis (year|month|quarter)\b|\byear to date\b/g, text)) {
    let window: DateWindow | null = null;
    if (ref) {
      const [y, mo] = ref.split('-').map(Number) as [number, number];
      const unit = m[1] ?? 'year';
      window =
        unit === 'year'
          ? yearWindow(y)
          : unit === 'month'
            ? monthWindow(y, mo)
            : quarterWindow(y, Math.floor((mo - 1) / 3) + 1);
    }
    time(m[0], window, m.index, m.index + m[0].length);
  }
  for (const m of matches(/\bbefore (?:the year )?((?:19|20)\d{2})\b/g, text))
    time(m[0], { start: null, end: iso(+m[1]!, 1, 1) }, m.index, m.index + m[0].length);
  for (const m of matches(/\b(?:after|since) (?:the year )?((?:19|20)\d{2})\b/g, text))
    time(
      m[0],
      { start: m[0].startsWith('since') ? iso(+m[1]!, 1, 1) : iso(+m[1]! + 1, 1, 1), end: null },
      m.index,
      m.index + m[0].length,
    );
  for (const m of matches(
    /\b(?:(?:in|during|for|of) (?:the )?(?:calendar |fiscal )?(?:year )?)?((?:19|20)\d{2})\b(?!-\d)/g,
    text,
  ))
    time(m[0], yearWindow(+m[1]!), m.index, m.index + m[0].length);

  // ---- explicit sort order ----
  for (const o of [...v.explicitOrder].sort((a, b) => b.phrase.length - a.phrase.length)) {
    for (const m of matches(
      new RegExp(`\\b${esc(o.phrase)}\\b${o.phrase.endsWith(' to') ? ' [a-z]+' : ''}`, 'g'),
      text,
    )) {
      if (!spans.free(m.index, m.index + m[0].length)) continue;
      spans.take(m.index, m.index + m[0].length);
      if (!ordering) {
        ordering = { direction: o.direction ?? 'ASC', n: null, phrase: o.phrase, explicit: true };
        trace.push(`explicit order "${o.phrase}" → ORDER BY ${o.direction ?? '(any direction)'}`);
      }
    }
  }

  // ---- comparisons: "over 100", "at least five" ----
  const numberWords = Object.keys(v.numbers).join('|');
  for (const c of [...v.comparisons].sort((a, b) => b.phrase.length - a.phrase.length)) {
    const re = new RegExp(`\\b${esc(c.phrase)} ([$€£]?\\d[\\d,]*(?:\\.\\d+)?|${numberWords})\\b`, 'g');
    for (const m of matches(re, text)) {
      if (!spans.free(m.index, m.index + m[0].length)) continue;
      const n = numberOf(m[1]!, v);
      // "at least one order" is existence, and "exactly one week" a duration: not numeric predicates.
      if (
        (n === 1 && c.operator === '>=') ||
        /^ (?:day|week|month|year|quarter|hour|minute)s?\b/.test(text.slice(m.index + m[0].length))
      )
        continue;
      spans.take(m.index, m.index + m[0].length);
      const value = n !== null ? String(n) : normValue(m[1]!);
      const term = termBefore(text, m.index, v);
      filters.push({
        kind: 'comparison',
        phrase: m[0].trim(),
        term,
        column: term ? mappedColumn(term, rules) : null,
        operator: c.operator,
        values: [value],
      });
      trace.push(`comparison "${m[0].trim()}" → ${term ?? '?'} ${c.operator} ${value}`);
    }
  }

  for (const m of matches(/\b(negative|positive) ([a-z_]+)/g, text)) {
    if (!spans.free(m.index, m.index + m[0].length)) continue;
    spans.take(m.index, m.index + m[0].length);
    const op = m[1] === 'negative' ? '<' : '>';
    filters.push({
      kind: 'comparison',
      phrase: m[0],
      term: m[2]!,
      column: mappedColumn(m[2]!, rules),
      operator: op,
      values: ['0'],
    });
    trace.push(`sign "${m[0]}" → ${m[2]} ${op} 0`);
  }

  // ---- null checks: "without a category" (IS NULL), "leave out ... without a category" (IS NOT NULL) ----
  for (const m of matches(new RegExp(`\\b(${alt(v.nullPhrases)}) ([a-z_]+(?: [a-z_]+)?)`, 'g'), text)) {
    if (!spans.free(m.index, m.index + m[0].length)) continue;
    const words = m[2]!.split(' ').filter((w) => !v.stopwords.includes(w));
    if (!words.length) continue;
    const term =
      words.length === 2 && !mappedColumn(words.join(' '), rules) && !v.attributeNouns.includes(words[1]!)
        ? words[0]!
        : words.join(' ');
    spans.take(m.index, m.index + m[0].length);
    const sentence = text.slice(Math.max(0, text.lastIndexOf('.', m.index)), m.index);
    const sentenceEnd = text.indexOf('.', m.index);
    if (
      /\b(own group|group of (?:its|their) own|as a group)\b/.test(
        text.slice(m.index, sentenceEnd < 0 ? undefined : sentenceEnd),
      )
    ) {
      trace.push(`"${m[0].trim()}" keeps the missing values as a group: not a filter`);
      continue;
    }
    const excluded = /\b(leave out|leaving out|exclude|excluding|ignore|ignoring|except|skip|omit)\b/.test(sentence);
    const operator = excluded ? 'IS NOT NULL' : 'IS NULL';
    filters.push({ kind: 'null', phrase: m[0].trim(), term, column: mappedColumn(term, rules), operator, values: [] });
    trace.push(`null check "${m[0].trim()}" → ${term} ${operator}${excluded ? ' (excluded)' : ''}`);
  }

  // ---- R_app value terms and negations: "cancelled" → status = 'cancelled'; "non-cancelled" → status <> 'cancelled' ----
  for (const m of matches(/\b(?:non-|non |not |excluding |except )([a-z][a-z_-]+)/g, text)) {
    const word = m[1]!;
    const known = rules.values?.[word];
    if (!known && !m[0].startsWith('non')) continue;
    if (!spans.free(m.index, m.index + m[0].length)) continue;
    spans.take(m.index, m.index + m[0].length);
    filters.push({
      kind: 'value',
      phrase: m[0].trim(),
      term: known?.column ?? null,
      column: known?.column ?? null,
      operator: '<>',
      values: [normValue(known?.value ?? word)],
    });
    trace.push(`negated value "${m[0].trim()}" → ${known?.column ?? '?'} <> '${known?.value ?? word}'`);
  }
  for (const [word, vt] of Object.entries(rules.values ?? {}).sort(([a], [b]) => b.length - a.length)) {
    for (const m of matches(new RegExp(`\\b${esc(word.toLowerCase())}\\b`, 'g'), text)) {
      if (!spans.free(m.index, m.index + m[0].length)) continue;
      spans.take(m.index, m.index + m[0].length);
      const op = (vt.operator ?? '=') as QuestionFilter['operator'];
      const value = normValue(vt.value);
      const same = filters.find(
        (f) =>
          f.kind === 'value' && f.operator === op && f.values[0] === value && (!f.column || f.column === vt.column),
      );
      if (same) {
        same.column ??= vt.column;
        same.term ??= vt.column;
        continue;
      }
      filters.push({
        kind: 'value',
        phrase: word,
        term: vt.column,
        column: vt.column,
        operator: op,
        values: [normValue(vt.value)],
      });
      trace.push(`value term "${word}" → ${vt.column} ${op} '${vt.value}' (R_app)`);
    }
  }

  // ---- attribute values: "in the north region", "with status paid", "region is 'EMEA'" ----
  const attrs = alt([
    ...new Set([...v.attributeNouns, ...Object.keys(rules.columns ?? {}).map((k) => k.toLowerCase())]),
  ]);
  const valueRe = `('[^']+'|"[^"]+"|[a-z0-9][a-z0-9_-]*)`;
  const blocked = new Set([
    ...v.stopwords,
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
  ]);
  const attrValue = (term: string, raw: string, phrase: string, a: number, b: number) => {
    const value = normValue(raw);
    if (!value || blocked.has(value) || !spans.free(a, b)) return;
    spans.take(a, b);
    const t = canonicalTerm(term, rules);
    filters.push({
      kind: 'value',
      phrase: phrase.trim(),
      term: t,
      column: mappedColumn(t, rules),
      operator: '=',
      values: [value],
    });
    trace.push(`attribute value "${phrase.trim()}" → ${t} = '${value}'`);
  };
  for (const m of matches(new RegExp(`\\b(?:in|from|for|within|of) (?:the )?${valueRe} (${attrs})\\b`, 'g'), text))
    attrValue(m[2]!, m[1]!, m[0], m.index, m.index + m[0].length);
  for (const m of matches(
    new RegExp(`\\b(?:with|whose|where|having)(?: the| a)? (${attrs}) (?:is |= ?|of |equal to )?${valueRe}`, 'g'),
    text,
  ))
    attrValue(m[1]!, m[2]!, m[0], m.index, m.index + m[0].length);
  for (const m of matches(new RegExp(`\\b(${attrs}) (?:is|=|equals) ${valueRe}`, 'g'), text))
    attrValue(m[1]!, m[2]!, m[0], m.index, m.index + m[0].length);
  for (const m of matches(new RegExp(`\\b(${attrs}) ('[^']+'|"[^"]+")`, 'g'), text))
    attrValue(m[1]!, m[2]!, m[0], m.index, m.index + m[0].length);
  for (const m of matches(/('[^']+'|"[^"]+")/g, text)) {
    if (!spans.free(m.index, m.index + m[0].length)) continue;
    spans.take(m.index, m.index + m[0].length);
    filters.push({ kind: 'value', phrase: m[0], term: null, column: null, operator: '=', values: [normValue(m[1]!)] });
    trace.push(`quoted value ${m[0]} → ? = '${normValue(m[1]!)}'`);
  }

  // ---- superlatives: "top 5", "five customers ... the most", "the highest" ----
  // Where a "top N" / "bottom N" ranking ends: a "by X" right after it names the ranking metric, not a grouping.
  let rankingEnd: number | null = null;
  const sup = (words: string[], direction: 'ASC' | 'DESC') => {
    for (const m of matches(new RegExp(`\\b(?:(top|bottom) (\\d+|${numberWords})\\b|(${alt(words)})\\b)`, 'g'), text)) {
      if (!spans.free(m.index, m.index + m[0].length)) continue;
      spans.take(m.index, m.index + m[0].length);
      if (m[1]) rankingEnd ??= m.index + m[0].length;
      let n = m[2] ? numberOf(m[2], v) : null;
      if (n === null) {
        const before = text
          .slice(Math.max(0, m.index - 40), m.index)
          .split(/\s+/)
          .filter(Boolean)
          .slice(-5);
        for (const w of before.reverse()) {
          const k = numberOf(w.replace(/[^a-z0-9]/g, ''), v);
          if (k !== null && !/^(19|20)\d\d$/.test(w)) {
            n = k;
            break;
          }
        }
      }
      if (m[1]) direction = m[1] === 'bottom' ? 'ASC' : 'DESC';
      if (ordering && ordering.explicit && ordering.n === null) {
        ordering = { ...ordering, n, direction: ordering.direction };
      } else if (!ordering) {
        ordering = { direction, n, phrase: m[0], explicit: false };
      }
      trace.push(`superlative "${m[0]}" → ORDER BY ${direction}${n !== null ? ` LIMIT ${n}` : ' (or MAX/MIN)'}`);
    }
  };
  sup(
    v.descending.filter((w) => w !== 'maximum' && w !== 'last'),
    'DESC',
  );
  sup(
    v.ascending.filter((w) => w !== 'minimum' && w !== 'first'),
    'ASC',
  );

  // ---- aggregations: "total" → SUM, "how many" → COUNT ... ----
  for (const a of [...v.aggregations].sort((x, y) => y.phrase.length - x.phrase.length)) {
    for (const m of matches(new RegExp(`\\b${esc(a.phrase)}\\b`, 'g'), text)) {
      if (!spans.free(m.index, m.index + m[0].length)) continue;
      spans.take(m.index, m.index + m[0].length);
      if (a.func === 'COUNT' && /\b(average|mean|total)\s+$/.test(text.slice(0, m.index))) continue;
      const target = targetAfter(text, m.index + m[0].length, v);
      aggregations.push({
        func: a.func,
        distinct: !!a.distinct,
        phrase: a.phrase,
        target,
        column: target ? mappedColumn(target, rules) : null,
      });
      trace.push(
        `aggregation "${a.phrase}" → ${a.func}${a.distinct ? '(DISTINCT …)' : ''}${target ? ` of "${target}"` : ''}`,
      );
    }
  }
  for (const [term, metric] of Object.entries(rules.metrics ?? {})) {
    if (!new RegExp(`\\b${esc(term.toLowerCase())}\\b`).test(text)) continue;
    const func = metric.func.toUpperCase() as QuestionAggregation['func'];
    if (aggregations.some((a) => a.func === func && (a.target === null || a.target.includes(term.toLowerCase())))) {
      const same = aggregations.find((a) => a.func === func);
      if (same) same.column ??= metric.column ?? null;
      continue;
    }
    aggregations.push({ func, distinct: false, phrase: term, target: term, column: metric.column ?? null });
    trace.push(`metric "${term}" → ${func}(${metric.column ?? '…'}) (R_app)`);
  }

  // ---- grouping: "per region", "for each month", "by channel" ----
  for (const g of [...v.grouping].sort((a, b) => b.length - a.length)) {
    for (const m of matches(new RegExp(`\\b${esc(g)} (?:the |a |an )?([a-z_]+)(?: ([a-z_]+))?`, 'g'), text)) {
      if (!spans.free(m.index, m.index + g.length)) continue;
      const prev =
        text
          .slice(0, m.index)
          .trim()
          .split(/\s+/)
          .pop()
          ?.replace(/[^a-z]/g, '') ?? '';
      if (g === 'by' && (v.byNotGrouping.includes(prev) || m[1] === 'how' || /^\d/.test(m[1]!))) continue;
      if (g === 'by' && ordering && rankingEnd !== null && m.index >= rankingEnd) {
        // "Top 5 customers by revenue": at most a few words (the ranked entity) between the ranking and "by", no clause break.
        const between = text.slice(rankingEnd, m.index);
        if (!/[,.;:?]/.test(between) && between.trim().split(/\s+/).filter(Boolean).length <= 3) {
          // The metric runs to the next clause word or break ("by number of orders in 2024" → "number of orders").
          const words: string[] = [];
          for (const w of text.slice(m.index + g.length + 1).split(/\s+/)) {
            const clean = w.replace(/[^a-z0-9_']/g, '');
            if (
              !clean ||
              words.length === 4 ||
              /^(in|for|from|during|since|per|each|and|with|on|at|over|between|who|that|which|where|when|than)$/.test(
                clean,
              )
            )
              break;
            words.push(clean);
            if (/[,.;:?]$/.test(w)) break;
          }
          const metric = words.join(' ') || m[1]!;
          spans.take(m.index, m.index + g.length);
          ordering = { ...ordering, metric };
          trace.push(
            `ranking "${ordering.phrase} … by ${metric}" → ORDER BY ${metric} ${ordering.direction} (the ranking metric, not a grouping)`,
          );
          rankingEnd = null;
          continue;
        }
      }
      if (g === 'each' && (prev === 'for' || prev === 'in')) continue;
      const adjective = m[1] === 'calendar' || m[1] === 'fiscal';
      const first = adjective && m[2] ? m[2] : m[1]!;
      if (adjective) m[2] = undefined as unknown as string;
      if (
        v.stopwords.includes(first) ||
        first.length < 3 ||
        v.aggregations.some((a) => a.phrase.split(' ')[0] === first)
      )
        continue;
      const second =
        m[2] &&
        !v.stopwords.includes(m[2]) &&
        !['from', 'to', 'with', 'who', 'where', 'when', 'since', 'so', 'than', 'what', 'over', 'between'].includes(m[2])
          ? m[2]
          : null;
      const two = second ? `${first} ${second}` : null;
      const term =
        two &&
        (mappedColumn(two, rules) ||
          /^(tier|segment|channel|category|region|type|code|id|name|level|status|date|month|year|group)$/.test(second!))
          ? two
          : first;
      spans.take(m.index, m.index + g.length + 1 + term.length);
      const t = canonicalTerm(term, rules);
      groupBy.push({ term: t, column: mappedColumn(t, rules), phrase: `${g} ${term}` });
      trace.push(`grouping "${g} ${term}" → GROUP BY ${mappedColumn(t, rules) ?? t}`);
    }
  }

  const listing = new RegExp(`^ (?:${alt(v.listing)})\\b`).test(text) || /\bgive (?:their|its|the)\b/.test(text);
  if (listing) trace.push('listing: the question asks for rows');
  for (const f of filters) if (f.term && !f.column) f.column = mappedColumn(f.term, rules);
  return { text: question, aggregations, filters, groupBy, ordering, listing, trace };
}

function addMonthsDay(date: string, n: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return iso(y, m + n, d);
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
