/**
 * Time phrases of a question → date windows, most specific first: a phrase
 * feeds the first rule that matches it ("from March 2024 to June 2024" is one
 * window, not two months).
 */
import { addDays, addMonths, iso, monthWindow, numberOf, quarterWindow, yearWindow } from './normalize.ts';
import type { DateWindow, QuestionFilter } from './types.ts';
import type { Vocabulary } from './vocabulary/en.ts';

/** What the rules need beyond the match. */
export interface Clock {
  v: Vocabulary;
  /** YYYY-MM-DD: resolves "last quarter", "since March"; null leaves those windows unresolved. */
  ref: string | null;
}

/** A time phrase's window: null when it needs the reference date and there is none. */
export interface TimeRead {
  window: DateWindow | null;
  /** "last 30 days": the SQL may state it with CURRENT_DATE instead. */
  relative?: QuestionFilter['relative'];
}

export interface TimeRule {
  /** `months`: the vocabulary's month names, as a regex alternation. */
  pattern: (months: string) => RegExp;
  /** null: not a time phrase after all, and its words stay free for the other rules. */
  read: (m: RegExpExecArray, clock: Clock) => TimeRead | null;
}

const quarterWords: Record<string, number> = { first: 1, second: 2, third: 3, fourth: 4, q1: 1, q2: 2, q3: 3, q4: 4 };

const monthNo = (c: Clock, month: string) => c.v.months.indexOf(month) + 1;

function addMonthsDay(date: string, n: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return iso(y, m + n, d);
}

/** A day's window. */
const day = (d: string): TimeRead => ({ window: { start: d, end: addDays(d, 1) } });

/** "the last 30 days": the n units before the reference date, that day included. */
function lastUnits(ref: string, n: number, unit: string): DateWindow {
  const end = addDays(ref, 1);
  const start =
    unit === 'day'
      ? addDays(end, -n)
      : unit === 'week'
        ? addDays(end, -7 * n)
        : unit === 'month'
          ? addMonthsDay(end, -n)
          : addMonthsDay(end, -12 * n);
  return { start, end };
}

/** "last quarter": the calendar period before the one of the reference date (weeks start on Monday). */
function previousPeriod(ref: string, unit: string): DateWindow {
  const [y, mo] = ref.split('-').map(Number) as [number, number];
  if (unit === 'year') return yearWindow(y - 1);
  if (unit === 'month') return { start: addMonths(ref, -1), end: iso(y, mo, 1) };
  if (unit === 'quarter') {
    const q = Math.floor((mo - 1) / 3) + 1;
    return q === 1 ? quarterWindow(y - 1, 4) : quarterWindow(y, q - 1);
  }
  const dow = (new Date(`${ref}T00:00:00Z`).getUTCDay() + 6) % 7;
  const monday = addDays(ref, -dow);
  return { start: addDays(monday, -7), end: monday };
}

/** "this quarter": the calendar period of the reference date. */
function currentPeriod(ref: string, unit: string): DateWindow {
  const [y, mo] = ref.split('-').map(Number) as [number, number];
  return unit === 'year'
    ? yearWindow(y)
    : unit === 'month'
      ? monthWindow(y, mo)
      : quarterWindow(y, Math.floor((mo - 1) / 3) + 1);
}

/** "from March 2024 to June 2024" */
const monthRange: TimeRule = {
  pattern: (months) => new RegExp(`\\bfrom (${months}) (\\d{4}) (?:to|through|until) (${months}) (\\d{4})\\b`, 'g'),
  read: (m, c) => ({
    window: { start: iso(+m[2]!, monthNo(c, m[1]!), 1), end: monthWindow(+m[4]!, monthNo(c, m[3]!)).end },
  }),
};

/** "between 2024-01-01 and 2024-03-31": the last day included. */
const dateRange: TimeRule = {
  pattern: () => /\b(?:from|between) (\d{4}-\d{2}-\d{2}) (?:to|through|until|and) (\d{4}-\d{2}-\d{2})\b/g,
  read: (m) => ({ window: { start: m[1]!, end: addDays(m[2]!, 1) } }),
};

/** "since 2024-02-01"; "after 2024-02-01" starts the day after. */
const sinceDate: TimeRule = {
  pattern: () => /\b(?:since|from|after) (\d{4}-\d{2}-\d{2})\b/g,
  read: (m) => ({ window: { start: m[0].startsWith('after') ? addDays(m[1]!, 1) : m[1]!, end: null } }),
};

/** "before 2024-02-01"; "until 2024-02-01" includes the day. */
const untilDate: TimeRule = {
  pattern: () => /\b(?:before|until) (\d{4}-\d{2}-\d{2})\b/g,
  read: (m) => ({ window: { start: null, end: m[0].startsWith('until') ? addDays(m[1]!, 1) : m[1]! } }),
};

/** "on 2024-05-05" */
const onDate: TimeRule = {
  pattern: () => /\bon (\d{4}-\d{2}-\d{2})\b/g,
  read: (m) => day(m[1]!),
};

/** "from 2021 to 2023": both years included. */
const yearRange: TimeRule = {
  pattern: () => /\bfrom (\d{4}) (?:to|through|until) (\d{4})\b/g,
  read: (m) => ({ window: { start: iso(+m[1]!, 1, 1), end: iso(+m[2]! + 1, 1, 1) } }),
};

/** "on 5 March, 2024" */
const dayMonthYear: TimeRule = {
  pattern: (months) => new RegExp(`\\b(?:on )?(\\d{1,2}) (${months}),? (\\d{4})\\b`, 'g'),
  read: (m, c) => day(iso(+m[3]!, monthNo(c, m[2]!), +m[1]!)),
};

/** "on March 5, 2024" */
const monthDayYear: TimeRule = {
  pattern: (months) => new RegExp(`\\b(?:on )?(${months}) (\\d{1,2}),? (\\d{4})\\b`, 'g'),
  read: (m, c) => day(iso(+m[3]!, monthNo(c, m[1]!), +m[2]!)),
};

/** "in the first quarter of 2024" */
const quarterOfYear: TimeRule = {
  pattern: () => /\b(?:in |during )?(?:the )?(first|second|third|fourth) quarter of (\d{4})\b/g,
  read: (m) => ({ window: quarterWindow(+m[2]!, quarterWords[m[1]!]!) }),
};

/** "in Q3 2024", "Q3 of 2024" */
const qOfYear: TimeRule = {
  pattern: () => /\b(?:in |during )?(q[1-4]) (?:of )?(\d{4})\b/g,
  read: (m) => ({ window: quarterWindow(+m[2]!, quarterWords[m[1]!]!) }),
};

/** "since March 2024"; "since March" is in the reference date's year. */
const sinceMonth: TimeRule = {
  pattern: (months) => new RegExp(`\\bsince (${months})(?: (\\d{4}))?\\b`, 'g'),
  read: (m, c) => {
    const y = m[2] ? +m[2] : c.ref ? Number(c.ref.slice(0, 4)) : null;
    return { window: y === null ? null : { start: iso(y, monthNo(c, m[1]!), 1), end: null } };
  },
};

/** "in March 2024" */
const inMonth: TimeRule = {
  pattern: (months) => new RegExp(`\\b(?:in |during )(${months}) (\\d{4})\\b`, 'g'),
  read: (m, c) => ({ window: monthWindow(+m[2]!, monthNo(c, m[1]!)) }),
};

/** "in the last 30 days", "over the past three weeks" */
const lastNUnits: TimeRule = {
  pattern: () => /\b(?:in the |over the |during the )?(?:last|past|previous) (\d+|[a-z]+) (day|week|month|year)s\b/g,
  read: (m, c) => {
    const n = numberOf(m[1]!, c.v);
    if (n === null) return null;
    const unit = m[2]!;
    return { window: c.ref ? lastUnits(c.ref, n, unit) : null, relative: { n, unit } };
  },
};

/** "last quarter", "during the previous month" */
const lastUnit: TimeRule = {
  pattern: () =>
    /\b(?:(?:in |during |for )(?:the )?(?:last|previous|past)|(?:the )?(?:last|past)) (quarter|month|year|week)\b/g,
  read: (m, c) => ({ window: c.ref ? previousPeriod(c.ref, m[1]!) : null, relative: { n: 1, unit: m[1]! } }),
};

/** "this year", "this quarter", "year to date" */
const thisPeriod: TimeRule = {
  pattern: () => /\bthis (year|month|quarter)\b|\byear to date\b/g,
  read: (m, c) => ({ window: c.ref ? currentPeriod(c.ref, m[1] ?? 'year') : null }),
};

/** "before 2020", "before the year 2020" */
const beforeYear: TimeRule = {
  pattern: () => /\bbefore (?:the year )?((?:19|20)\d{2})\b/g,
  read: (m) => ({ window: { start: null, end: iso(+m[1]!, 1, 1) } }),
};

/** "since 2020" includes the year, "after 2020" does not. */
const afterYear: TimeRule = {
  pattern: () => /\b(?:after|since) (?:the year )?((?:19|20)\d{2})\b/g,
  read: (m) => ({
    window: { start: m[0].startsWith('since') ? iso(+m[1]!, 1, 1) : iso(+m[1]! + 1, 1, 1), end: null },
  }),
};

/** "in 2024", "for fiscal year 2024", a bare year (not the start of a date). */
const inYear: TimeRule = {
  pattern: () => /\b(?:(?:in|during|for|of) (?:the )?(?:calendar |fiscal )?(?:year )?)?((?:19|20)\d{2})\b(?!-\d)/g,
  read: (m) => ({ window: yearWindow(+m[1]!) }),
};

export const TIME_RULES: readonly TimeRule[] = [
  monthRange,
  dateRange,
  sinceDate,
  untilDate,
  onDate,
  yearRange,
  dayMonthYear,
  monthDayYear,
  quarterOfYear,
  qOfYear,
  sinceMonth,
  inMonth,
  lastNUnits,
  lastUnit,
  thisPeriod,
  beforeYear,
  afterYear,
  inYear,
];
