/**
 * Calendar arithmetic for decoding engine values into the text forms of the
 * value model (proleptic Gregorian calendar, astronomical year numbering).
 */

const MICROS_PER_DAY = 86_400_000_000n;

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

function formatYear(year: number): string {
  if (year >= 0 && year <= 9999) return pad(year, 4);
  return (year < 0 ? '-' : '+') + pad(Math.abs(year), 6);
}

/** Days since 1970-01-01 → "YYYY-MM-DD" (H. Hinnant's civil_from_days). */
export function dateFromEpochDays(days: number): string {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return `${formatYear(year)}-${pad(month, 2)}-${pad(day, 2)}`;
}

/** Microseconds within a day → "HH:MM:SS[.ffffff]" (fraction trimmed, omitted when zero). */
export function timeFromMicros(micros: bigint): string {
  const totalSeconds = micros / 1_000_000n;
  const fraction = Number(micros % 1_000_000n);
  const h = Number(totalSeconds / 3600n);
  const m = Number((totalSeconds / 60n) % 60n);
  const s = Number(totalSeconds % 60n);
  const base = `${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}`;
  return fraction === 0 ? base : `${base}.${pad(fraction, 6).replace(/0+$/, '')}`;
}

/** Microseconds since the epoch → "YYYY-MM-DD HH:MM:SS[.ffffff]". */
export function timestampFromEpochMicros(micros: bigint): string {
  let days = micros / MICROS_PER_DAY;
  let rest = micros % MICROS_PER_DAY;
  if (rest < 0n) {
    rest += MICROS_PER_DAY;
    days -= 1n;
  }
  return `${dateFromEpochDays(Number(days))} ${timeFromMicros(rest)}`;
}

// Years outside 0000–9999 take a sign and at least six digits (DATE reaches year 5881580).
const DATE_TEXT = /^([+-]\d{6,7}|\d{4})-(\d{2})-(\d{2})$/;
// Up to nine fraction digits: DuckDB's TIMESTAMP_NS is read as its text, nanoseconds kept.
const TIMESTAMP_TEXT = /^([+-]\d{6,7}|\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(\+00)?$/;

export function isDateText(text: string): boolean {
  return DATE_TEXT.test(text) || text === 'infinity' || text === '-infinity';
}

export function isTimestampText(text: string): boolean {
  return TIMESTAMP_TEXT.test(text) || text === 'infinity' || text === '-infinity';
}

/**
 * The date part and the time-of-day in microseconds of a timestamp text, or
 * null when the text is not a timestamp. Used to decide whether a timestamp
 * is exactly midnight of a date.
 */
export function splitTimestamp(text: string): { date: string; micros: number; nanos: number } | null {
  const m = TIMESTAMP_TEXT.exec(text);
  if (!m) return null;
  const digits = m[7] ? m[7].slice(1).padEnd(9, '0') : '000000000';
  const micros = ((Number(m[4]) * 60 + Number(m[5])) * 60 + Number(m[6])) * 1_000_000 + Number(digits.slice(0, 6));
  return { date: `${m[1]}-${m[2]}-${m[3]}`, micros, nanos: Number(digits.slice(6)) };
}
