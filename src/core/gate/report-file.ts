/**
 * A run report as the gate, `baseline record` and `diff` read it: validated
 * field by field (a problem names the file, the line and the field), and its
 * summary recomputed from its own cases. A summary that disagrees with the
 * cases is refused: the gate judges what the cases say, not a figure someone
 * edited.
 */
import { isMap, type Node } from 'yaml';
import { nodeAtPath, Source } from '../corpus/source.ts';
import { fail, messageOf, ok, type Outcome } from '../errors.ts';
import { computeBreakdowns, NO_ARM, rateOf, type BreakdownRow } from './breakdowns.ts';
import { ARMS, BIRD_DIFFICULTIES, CASE_OUTCOMES, DIFFICULTIES } from './outcome.ts';
import { reportVersionProblem } from './report-version.ts';
import { reliability, summarizeRun, SUMMARY_VERSION, type RunSummary } from './summary.ts';
import { notWholeRun } from './whole-run.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string';
const nullableText = (v: unknown) => v === null || typeof v === 'string';
const optionalText = (v: unknown) => v === undefined || typeof v === 'string';

/** The first problem of a parsed report's summary: [field path, message], or null. */
function summaryProblem(report: unknown): [string, string] | null {
  if (!isObject(report)) return ['', 'expected a JSON object (the report "sql-verdict run --out" writes).'];
  if (report.kind !== 'run')
    return [
      'kind',
      `kind must be "run" (the report "sql-verdict run --out" writes), got ${JSON.stringify(report.kind) ?? 'nothing'}.`,
    ];
  const s = report.summary;
  if (!isObject(s)) return ['summary', 'summary is missing or not an object.'];
  if (s.summary_version !== SUMMARY_VERSION)
    return [
      'summary.summary_version',
      `summary_version must be ${SUMMARY_VERSION}, got ${JSON.stringify(s.summary_version) ?? 'nothing'}.`,
    ];
  const corpus = s.corpus;
  if (!isObject(corpus)) return ['summary.corpus', 'summary.corpus is missing or not an object.'];
  if (!isText(corpus.name) || corpus.name === '')
    return ['summary.corpus.name', 'summary.corpus.name must be the corpus name.'];
  if (!(corpus.version === null || isText(corpus.version) || typeof corpus.version === 'number'))
    return ['summary.corpus.version', 'summary.corpus.version must be a string, a number or null.'];
  if (!Number.isSafeInteger(corpus.size) || (corpus.size as number) < 0)
    return ['summary.corpus.size', 'summary.corpus.size must be a whole number of cases.'];
  if (!isText(corpus.sha256) || !/^[0-9a-f]{64}$/.test(corpus.sha256))
    return ['summary.corpus.sha256', 'summary.corpus.sha256 must be 64 lower-case hex digits.'];
  const run = s.run;
  if (!isObject(run)) return ['summary.run', 'summary.run is missing or not an object.'];
  for (const field of ['agent', 'model', 'path', 'created_at'])
    if (!nullableText(run[field])) return [`summary.run.${field}`, `summary.run.${field} must be a string or null.`];
  const reliability = s.reliability;
  if (
    !isObject(reliability) ||
    typeof reliability.c !== 'number' ||
    !Number.isFinite(reliability.c) ||
    reliability.c < 0
  )
    return ['summary.reliability.c', 'summary.reliability.c must be a number ≥ 0 (the penalty of RS(c)).'];
  if (!Array.isArray(s.cases)) return ['summary.cases', 'summary.cases must be the list of per-case results.'];
  for (const [i, k] of s.cases.entries()) {
    const at = `summary.cases[${i}]`;
    if (!isObject(k)) return [at, `${at} must be an object.`];
    if (!isText(k.id) || k.id.trim() === '') return [`${at}.id`, `${at}.id must be a non-empty case id.`];
    if (!(CASE_OUTCOMES as readonly unknown[]).includes(k.outcome))
      return [
        `${at}.outcome`,
        `${at}.outcome (case ${k.id}) must be one of ${CASE_OUTCOMES.join(', ')}; got ${JSON.stringify(k.outcome) ?? 'nothing'}.`,
      ];
    if (!nullableText(k.query)) return [`${at}.query`, `${at}.query (case ${k.id}) must be the SQL text or null.`];
    if (k.arm !== undefined && !(ARMS as readonly unknown[]).includes(k.arm))
      return [`${at}.arm`, `${at}.arm (case ${k.id}) must be ${ARMS.join(' or ')} when present.`];
    // BIRD's labels are kept as they are in a report of a BIRD run.
    const difficulties: readonly unknown[] = [...DIFFICULTIES, ...BIRD_DIFFICULTIES];
    if (k.difficulty !== undefined && !difficulties.includes(k.difficulty))
      return [
        `${at}.difficulty`,
        `${at}.difficulty (case ${k.id}) must be one of ${difficulties.join(', ')} when present.`,
      ];
    for (const field of ['reason', 'reason_code', 'stratum', 'shape', 'fixture', 'severity', 'decline_reason'])
      if (!optionalText(k[field]))
        return [`${at}.${field}`, `${at}.${field} (case ${k.id}) must be text when present.`];
    if (k.tags !== undefined && !(Array.isArray(k.tags) && k.tags.every(isText)))
      return [`${at}.tags`, `${at}.tags (case ${k.id}) must be a list of strings when present.`];
  }
  return null;
}

/** The first place two JSON values differ, as a field path (`summary.answer_accuracy.correct`), or null. */
function firstDifference(a: unknown, b: unknown, at: string): string | null {
  if (Object.is(a, b)) return null;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${at} (${b.length} entries, the cases give ${a.length})`;
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${at}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (isObject(a) && isObject(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference(a[key], b[key], `${at}.${key}`);
      if (d) return d;
    }
    return null;
  }
  return `${at} (${JSON.stringify(b) ?? 'missing'}; the cases give ${JSON.stringify(a) ?? 'nothing'})`;
}

/** Drop the summary fields run report 1.2.0 added (breakdowns, ci95) from a recomputed summary. */
function withoutAddedIn12(summary: Json): void {
  delete summary.breakdowns;
  for (const figure of ['answer_accuracy', 'refusal_recall', 'over_refusal']) {
    const f = summary[figure];
    if (isObject(f)) delete f.ci95;
  }
}

/**
 * A report written while an arm's strata still carried rates (before they became counts only) states them:
 * expect the rates its counts give, so such a report is still read and an edited rate is still caught.
 */
function withStratumRates(expected: Json, stated: RunSummary): void {
  const rows = stated.breakdowns?.by_stratum;
  const mine = (expected.breakdowns as { by_stratum?: BreakdownRow[] } | undefined)?.by_stratum;
  if (!Array.isArray(rows) || !mine) return;
  if (!rows.some((r) => r?.key !== NO_ARM && (r?.accuracy?.rate != null || r?.success?.rate != null))) return;
  for (const r of mine)
    if (r.key !== NO_ARM) {
      r.accuracy = rateOf(r.accuracy.count, r.accuracy.total);
      r.success = rateOf(r.success.count, r.success.total);
    }
}

/**
 * A report written while a broken reference still counted in the breakdowns' accuracy and right rate
 * states those rows: expect them, so such a report is still read (any other edit is still caught).
 */
function withBrokenCounted(expected: Json, stated: RunSummary): void {
  if (!stated.cases.some((k) => k.outcome === 'broken_reference')) return;
  const legacy = JSON.parse(JSON.stringify(computeBreakdowns(stated.cases, true))) as Json;
  if (firstDifference(legacy.by_fixture, stated.breakdowns?.by_fixture, 'by_fixture') === null)
    expected.breakdowns = legacy;
}

/**
 * Likewise a report written while RS(c) still scored a broken reference 0 among its cases and
 * computed a decimal c in binary floating point (sum −0.30000000000000004 for −0.3).
 */
function withLegacyReliability(expected: Json, stated: RunSummary): void {
  const outcomes = expected.outcomes as RunSummary['outcomes'];
  const legacy = JSON.parse(
    JSON.stringify(reliability(outcomes, stated.cases.length, stated.reliability.c, true)),
  ) as Json;
  if (firstDifference(legacy, stated.reliability, 'reliability') === null) expected.reliability = legacy;
}

/** Validate a parsed report and return its summary, recomputed from its cases and checked against what it states. */
export function checkReportSummary(report: unknown): Outcome<RunSummary> {
  const problem = summaryProblem(report);
  if (problem) return fail('input.invalid', problem[1], { location: problem[0] });
  const s = (report as Json).summary as RunSummary;
  const recomputed = summarizeRun(s.cases, s.corpus, s.run, { reliabilityPenalty: s.reliability.c });
  if (!recomputed.ok)
    return fail('input.invalid', `summary.cases: ${recomputed.error.message}`, { location: 'summary.cases' });
  const expected = JSON.parse(JSON.stringify(recomputed.value)) as Json;
  withLegacyReliability(expected, s);
  // A report of version 1.1 or older has no breakdowns nor intervals: compare what it states.
  if (s.breakdowns === undefined) withoutAddedIn12(expected);
  else {
    withBrokenCounted(expected, s);
    withStratumRates(expected, s);
  }
  const difference = firstDifference(expected, s, 'summary');
  if (difference)
    return fail(
      'input.invalid',
      `the summary disagrees with the report's own cases at ${difference}: the report was edited or is corrupt; re-run "sql-verdict run" to get a consistent one.`,
      {
        location: difference.split(' ')[0]!,
      },
    );
  return ok(recomputed.value);
}

/** Line of a character offset (1-based). */
function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < Math.min(offset, text.length); i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

export interface ReadReportOptions {
  /** Refuse a report of some shards only (the gate, a baseline). */
  wholeRun?: boolean;
}

/** A report file's summary; every problem is `file:line (field f): message`, exit 2 for the CLI. */
export function readReportFile(file: string, text: string, options: ReadReportOptions = {}): Outcome<RunSummary> {
  const read = readRunReport(file, text, options);
  return read.ok ? ok(read.value.summary) : read;
}

/** What a run report says of a fixture it graded on (a bare summary says nothing: null). */
export interface GradedFixture {
  name: string;
  content_digest_before?: string;
  as_of?: string;
}

function gradedFixtures(value: unknown): GradedFixture[] | null {
  if (!isObject(value) || !Array.isArray(value.fixtures)) return null;
  return value.fixtures.flatMap((f: unknown) =>
    isObject(f) && typeof f.name === 'string'
      ? [
          {
            name: f.name,
            ...(typeof f.content_digest_before === 'string' ? { content_digest_before: f.content_digest_before } : {}),
            ...(typeof f.as_of === 'string' ? { as_of: f.as_of } : {}),
          },
        ]
      : [],
  );
}

/** readReportFile, and the fixtures the run was graded on (diff compares them). */
export function readRunReport(
  file: string,
  text: string,
  options: ReadReportOptions = {},
): Outcome<{ summary: RunSummary; fixtures: GradedFixture[] | null }> {
  if (text.trim() === '')
    return fail(
      'input.invalid',
      `${file}: the file is empty; expected the JSON report "sql-verdict run --out" writes.`,
      { location: file },
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (thrown) {
    const message = messageOf(thrown);
    const lc = /line (\d+) column \d+/.exec(message);
    const pos = /at position (\d+)/.exec(message);
    const line = lc ? Number(lc[1]) : pos ? lineOf(text, Number(pos[1])) : undefined;
    return fail('input.invalid', `${file}${line ? `:${line}` : ''}: not valid JSON (${message}).`, {
      location: line ? `${file}:${line}` : file,
    });
  }
  if (isObject(value) && value.baseline_version !== undefined && value.kind === undefined)
    return fail('input.invalid', `${file}: this is a baseline, not a run report; give it to --baseline.`, {
      location: file,
    });
  // A run report of a version this code does not know is not read as if it were one it knows.
  const version = isObject(value) && value.kind === 'run' ? reportVersionProblem(value.report_version) : null;
  if (version) return located(file, text, 'report_version', version);
  const partial = options.wholeRun ? notWholeRun(file, value) : null;
  if (partial) return { ok: false, error: partial };
  const checked = checkReportSummary(value);
  if (checked.ok) return ok({ summary: checked.value, fixtures: gradedFixtures(value) });
  return located(file, text, checked.error.location, checked.error.message);
}

/** A problem with a report's field as `file:line (field f): message` (the line where the field is, when it is). */
function located(file: string, text: string, field: string | undefined, message: string): Outcome<never> {
  let line: number | undefined;
  if (field) {
    const source = new Source(text);
    const root = source.doc.contents as Node | null;
    if (root && isMap(root)) {
      const node = nodeAtPath(root, `report.${field}`);
      if (node !== root) line = source.position(node)?.line;
    }
  }
  const where = `${file}${line ? `:${line}` : ''}${field ? ` (field ${field})` : ''}`;
  return fail('input.invalid', `${where}: ${message}`, { location: line ? `${file}:${line}` : file });
}
