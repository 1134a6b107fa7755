/**
 * A run report opened to be looked at (the app's "open a CLI report"): the
 * file `sql-verdict run --out` (or `--json`) writes, or its JSONL form. The
 * summary goes through the same check as the gate's (`readReportFile`:
 * recomputed from its own cases, a problem names file, line and field); the
 * parts the results views read besides the summary (the case reports, the
 * corpus and run identity, the self-check) are checked here, so a report
 * that opens shows exactly what the CLI graded.
 *
 * The JSONL form is one JSON value per line: either the whole report on one
 * line (`jq -c . report.json`), or the report without its cases followed by
 * one case report per line (`jq -c 'del(.cases)' r.json; jq -c '.cases[]' r.json`).
 */
import { decodeUtf8Strict } from '../corpus/utf8.ts';
import { fail, ok, type Outcome } from '../errors.ts';
import type { RunReport } from '../run/grade-run.ts';
import { checkReportSummary, readReportFile } from './report-file.ts';
import { reportVersionProblem } from './report-version.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface OpenedReport {
  report: RunReport;
  form: 'json' | 'jsonl';
}

/** The first problem of the parts the results views read besides the summary: [field, message, case index?]. */
function shapeProblem(report: Json): [string, string, number?] | null {
  const version = reportVersionProblem(report.report_version);
  if (version) return ['report_version', version];
  const corpus = report.corpus;
  if (!isObject(corpus))
    return ['corpus', 'corpus (the graded corpus: name, file, sha256, size) is missing or not an object.'];
  if (typeof corpus.name !== 'string') return ['corpus.name', 'corpus.name must be the corpus name.'];
  if (typeof corpus.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(corpus.sha256))
    return ['corpus.sha256', 'corpus.sha256 must be 64 lower-case hex digits.'];
  const run = report.run;
  if (!isObject(run)) return ['run', 'run (the graded run: file, sha256, agent, model) is missing or not an object.'];
  if (typeof run.file !== 'string') return ['run.file', 'run.file must be the run file name.'];
  const check = report.self_check;
  if (
    !isObject(check) ||
    typeof check.passed !== 'boolean' ||
    !Number.isSafeInteger(check.checked) ||
    !Array.isArray(check.findings)
  )
    return ['self_check', 'self_check must be {passed, checked, findings} (the oracle self-check of the run).'];
  if (!Array.isArray(report.fixtures)) return ['fixtures', 'fixtures must be the list of fixture digests.'];
  const meta = report.run_metadata;
  if (!isObject(meta) || typeof meta.elapsed_ms !== 'number' || typeof meta.started_at !== 'string')
    return ['run_metadata', 'run_metadata must carry started_at and elapsed_ms.'];
  if (!Array.isArray(report.cases)) return ['cases', 'cases must be the list of case reports.'];
  const summaryCases = (report.summary as { cases: { id: string; outcome: string }[] }).cases;
  if (report.cases.length !== summaryCases.length)
    return [
      'cases',
      `cases has ${report.cases.length} case reports but summary.cases has ${summaryCases.length}: the report was cut or edited.`,
    ];
  for (const [i, c] of report.cases.entries()) {
    const at = `cases[${i}]`;
    if (!isObject(c)) return [at, `${at} must be a case report object.`, i];
    const expected = summaryCases[i]!;
    if (c.id !== expected.id)
      return [
        `${at}.id`,
        `${at}.id is ${JSON.stringify(c.id) ?? 'missing'} but summary.cases[${i}] is case ${expected.id}: the cases are out of order or edited.`,
        i,
      ];
    if (c.outcome !== expected.outcome)
      return [
        `${at}.outcome`,
        `${at}.outcome (case ${expected.id}) is ${JSON.stringify(c.outcome) ?? 'missing'} but the summary says ${expected.outcome}.`,
        i,
      ];
    if (typeof c.fixture !== 'string')
      return [`${at}.fixture`, `${at}.fixture (case ${expected.id}) must be the fixture name.`, i];
    if (typeof c.question !== 'string')
      return [`${at}.question`, `${at}.question (case ${expected.id}) must be the question text.`, i];
    if (c.report !== null && !isObject(c.report))
      return [`${at}.report`, `${at}.report (case ${expected.id}) must be the evaluation report or null.`, i];
    if (!Array.isArray(c.review_flags))
      return [`${at}.review_flags`, `${at}.review_flags (case ${expected.id}) must be a list.`, i];
  }
  return null;
}

/** JSONL: the report's head line and one line per case (or the whole report on one line). */
function fromJsonl(file: string, text: string): Outcome<{ report: Json; caseLines: number[]; headLine: number }> {
  let head: Json | null = null;
  let headLine = 0;
  const cases: unknown[] = [];
  const caseLines: number[] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (thrown) {
      return fail(
        'input.invalid',
        `${file}:${i + 1}: not valid JSON (${thrown instanceof Error ? thrown.message : String(thrown)}); a JSONL report has one JSON object per line.`,
        {
          location: `${file}:${i + 1}`,
        },
      );
    }
    if (isObject(value) && value.kind === 'run') {
      if (head)
        return fail(
          'input.invalid',
          `${file}:${i + 1}: a second run report (the first is on line ${headLine}); open one report at a time.`,
          { location: `${file}:${i + 1}` },
        );
      head = value;
      headLine = i + 1;
      continue;
    }
    if (!head)
      return fail(
        'input.invalid',
        `${file}:${i + 1}: the first line must be the run report (kind "run"), then one case report per line.`,
        { location: `${file}:${i + 1}` },
      );
    cases.push(value);
    caseLines.push(i + 1);
  }
  if (!head)
    return fail('input.invalid', `${file}: the file is empty; expected the report "sql-verdict run --out" writes.`, {
      location: file,
    });
  if (cases.length && Array.isArray(head.cases) && head.cases.length)
    return fail(
      'input.invalid',
      `${file}:${headLine} (field cases): the report line has its cases and ${cases.length} case line(s) follow; give one or the other.`,
      { location: `${file}:${headLine}` },
    );
  return ok({ report: cases.length || !Array.isArray(head.cases) ? { ...head, cases } : head, caseLines, headLine });
}

/** Open a run report (JSON or JSONL) for the results views; every problem names file, line and field. */
export function openRunReport(file: string, bytes: Uint8Array): Outcome<OpenedReport> {
  const decoded = decodeUtf8Strict(bytes);
  if (!decoded.ok)
    return fail('input.invalid', `${file}:${decoded.line}: not UTF-8 at byte ${decoded.offset} (${decoded.reason}).`, {
      location: `${file}:${decoded.line}`,
    });
  const text = decoded.text.replace(/^\uFEFF/, '');
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  // A pretty-printed report starts with a lone "{"; JSONL has a whole object on each line.
  const jsonl =
    /\.jsonl$/i.test(file) ||
    (lines.length > 1 && lines.every((l) => l.trim().startsWith('{') && l.trim().endsWith('}')));
  if (!jsonl) {
    const summary = readReportFile(file, text);
    if (!summary.ok) return summary;
    const report = JSON.parse(text) as Json;
    const problem = shapeProblem(report);
    if (problem) return fail('input.invalid', `${file} (field ${problem[0]}): ${problem[1]}`, { location: file });
    return ok({ report: report as unknown as RunReport, form: 'json' });
  }
  const read = fromJsonl(file, text);
  if (!read.ok) return read;
  const { report, caseLines, headLine } = read.value;
  const summary = checkReportSummary(report);
  if (!summary.ok) {
    const field = summary.error.location;
    return fail('input.invalid', `${file}:${headLine}${field ? ` (field ${field})` : ''}: ${summary.error.message}`, {
      location: `${file}:${headLine}`,
    });
  }
  const problem = shapeProblem(report);
  if (problem) {
    const line = problem[2] !== undefined ? (caseLines[problem[2]] ?? headLine) : headLine;
    return fail('input.invalid', `${file}:${line} (field ${problem[0]}): ${problem[1]}`, {
      location: `${file}:${line}`,
    });
  }
  return ok({ report: report as unknown as RunReport, form: 'jsonl' });
}
