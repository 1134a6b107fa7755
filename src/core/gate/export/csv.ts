/**
 * CSV of cases, RFC 4180: comma separated, CRLF line ends, fields quoted
 * when they hold a comma, a quote, CR or LF, quotes doubled. A cell that a
 * spreadsheet would run as a formula (leading = + - @, tab or CR) is
 * prefixed with an apostrophe (OWASP "CSV injection"); the agent's SQL is
 * untrusted text, and "-- comment" or "=HYPERLINK(...)" must stay text.
 */
import type { RunSummary } from '../summary.ts';

export const CSV_COLUMNS = [
  'id',
  'outcome',
  'passed',
  'arm',
  'stratum',
  'shape',
  'difficulty',
  'fixture',
  'severity',
  'reason_code',
  'reason',
  'decline_reason',
  'query',
] as const;

export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(summary: RunSummary): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const k of summary.cases) {
    // A broken reference is not graded (SPEC 4): neither passed nor failed, the cell is empty.
    const passed = k.outcome === 'broken_reference' ? null : k.outcome === 'correct' || k.outcome === 'correct_refusal';
    const row: Record<(typeof CSV_COLUMNS)[number], string | boolean | null | undefined> = {
      id: k.id,
      outcome: k.outcome,
      passed,
      arm: k.arm,
      stratum: k.stratum,
      shape: k.shape,
      difficulty: k.difficulty,
      fixture: k.fixture,
      severity: k.severity,
      reason_code: k.reason_code,
      reason: k.reason,
      decline_reason: k.decline_reason,
      query: k.query,
    };
    lines.push(CSV_COLUMNS.map((c) => csvCell(row[c])).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
