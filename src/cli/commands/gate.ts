import { readFileSync } from 'node:fs';
import path from 'node:path';
import { recordBaseline, parseBaseline, parsePolicy } from '../../core/gate/baseline.ts';
import { sha256Hex } from '../../core/digest/sha256.ts';
import { DEFAULT_GATE_POLICY, type GatePolicy } from '../../core/gate/policy.ts';
import { readRunReport, type ReadReportOptions } from '../../core/gate/report-file.ts';
import { diffRuns, fixtureDifferences } from '../../core/gate/diff.ts';
import { pointsText } from '../../core/gate/interval.ts';
import { junitDetailsOf, toJUnit } from '../../core/gate/export/junit.ts';
import { toMarkdown } from '../../core/gate/export/markdown.ts';
import { readBaselineFile } from '../../core/gate/baseline-file.ts';
import { applyGate, type GateOptions } from '../../core/gate/gate.ts';
import { boundarySweep, sweepText } from '../../core/gate/sweep.ts';
import type { RunSummary } from '../../core/gate/summary.ts';
import { parseFlags } from '../args.ts';
import { CliError, EXIT } from '../cli-error.ts';
import { readTextFile } from '../inputs.ts';
import type { Io } from '../io.ts';
import { prettyJson } from '../json.ts';
import { outputs } from '../outputs.ts';

export const GATE_HELP = `Usage: sql-verdict gate --report R --baseline B [--policy FILE] [--json] [--markdown FILE] [--junit FILE]

Apply the release gate to a run report against its recorded baseline and print the
arithmetic: answer accuracy at most 2 points below the baseline; the corpus never
shrinks and no baseline case disappears; refusal recall floor max(0.85, baseline −
0.075) in whole cases; over-refusal at most 3 of 20 (scaled); another path or model, or
no model at all, is refused. The thresholds are the documented policy, or those of
--policy FILE (JSON naming every threshold; its SHA-256 is printed and recorded); a
baseline recorded under another policy is refused. The report's summary is recomputed
from its cases; a report whose summary disagrees is refused. "-" as --markdown or
--junit writes it on stdout (the verdict lines go to stderr).
Exit status: 0 pass, 1 blocked, 2 refused or bad input.`;

export const BASELINE_HELP = `Usage: sql-verdict baseline record --report R --out B [--suite NAME] [--policy FILE] [--sweep FILE] [--force]

Record a baseline from a run report: suite, path, model, corpus digest, case ids, the
figures, the date and the gate policy (the documented one, or --policy FILE). Only this
explicit command writes a baseline; the gate never does. "--out -" prints it on stdout.
An existing B that differs from the new baseline is not replaced (exit 2, nothing
written): re-recording drops the floor the gate compares with, so it takes --force.
Next to it (B with .sweep.json, or --sweep FILE; with "--out -" only when --sweep is given)
it writes the gate's boundary sweep under that policy: for answer accuracy, refusal recall
and over-refusal, the gate's decision at every count of misses k = 0..n, and the
probability of passing for a per-question miss rate p, with the caveats that come with
that projection.`;

export const DIFF_HELP = `Usage: sql-verdict diff --report A --report B [--json] [--fail-on-regression]

Compare two runs of the same corpus case by case (fixed, regressed, unchanged) with
McNemar's exact test on the paired outcomes. Refuses reports of different corpora.
Warns on stderr when the runs were graded on different fixtures (another content digest
or as-of instant): a change between them may be the data's, not the system's.

Options:
  --fail-on-regression  exit 1 when any case right in A is wrong in B (names them)
  --json                print the diff as JSON
Exit status: 0 (or, with --fail-on-regression, 0 no regression / 1 regressions), 2 bad input.`;

/** What JUnit needs beyond the summary (questions, times): from the report file as written (already validated). */
function junitDetailsFrom(file: string, io: Io) {
  try {
    return junitDetailsOf(JSON.parse(readTextFile(file, io, 'report')) as Parameters<typeof junitDetailsOf>[0]);
  } catch {
    return {};
  }
}

/** A report's summary, validated field by field and recomputed from its cases (errors name file, line and field). */
function summaryOf(file: string, io: Io, options: ReadReportOptions = {}): RunSummary {
  return runReportOf(file, io, options).summary;
}

/** A run report's summary and the fixtures it was graded on. */
function runReportOf(file: string, io: Io, options: ReadReportOptions = {}) {
  const read = readRunReport(file, readTextFile(file, io, 'report'), options);
  if (!read.ok) throw new CliError(`Not a usable run report: ${read.error.message}`);
  return read.value;
}

/** The gate policy of --policy FILE (with its digest), or the documented default. */
async function policyOf(
  file: string | undefined,
  io: Io,
): Promise<{ policy: GatePolicy; options: GateOptions; line: string }> {
  if (!file)
    return { policy: { ...DEFAULT_GATE_POLICY }, options: {}, line: 'Policy: the documented default (docs/gate.md)' };
  const text = readTextFile(file, io, 'policy file');
  const sha256 = await sha256Hex(new TextEncoder().encode(text));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (thrown) {
    throw new CliError(`Policy file ${file}: not valid JSON (${(thrown as Error).message}).`);
  }
  const parsed = parsePolicy(value);
  if (!parsed.ok)
    throw new CliError(
      `Policy file ${file}${parsed.error.location ? ` (field ${parsed.error.location})` : ''}: ${parsed.error.message}`,
    );
  return {
    policy: parsed.value,
    options: { policy: parsed.value, policyFile: { file, sha256 } },
    line: `Policy: ${file} (sha256 ${sha256})`,
  };
}

export async function gateCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags('gate', argv, {
    report: { type: 'string' },
    baseline: { type: 'string' },
    json: { type: 'boolean' },
    markdown: { type: 'string' },
    junit: { type: 'string' },
    policy: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.out(GATE_HELP);
    return EXIT.ok;
  }
  if (positionals.length) throw new CliError(`gate: unexpected argument "${positionals[0]}".`);
  if (!values.report || !values.baseline) throw new CliError('gate: --report and --baseline are required.');
  const out = outputs(
    'gate',
    io,
    { markdown: values.markdown, junit: values.junit },
    {
      json: values.json,
      inputs: { '--report': values.report, '--baseline': values.baseline, '--policy': values.policy },
    },
  );
  const policy = await policyOf(values.policy, io);
  const summary = summaryOf(values.report, io, { wholeRun: true });
  // Read as the app's gate panel reads it: a bad file is named with its line and field (exit 2).
  const baseline = readBaselineFile(values.baseline, readTextFile(values.baseline, io, 'baseline'));
  if (!baseline.ok) throw new CliError(`Not a usable baseline: ${baseline.error.message}`);
  const result = applyGate(summary, baseline.value, policy.options);
  out.write(values.markdown, () => toMarkdown(summary, { gate: result }));
  out.write(values.junit, () => toJUnit(summary, result, junitDetailsFrom(values.report!, io)));
  if (values.json) io.out(prettyJson(result));
  else {
    out.print(
      `Gate: ${result.status.toUpperCase()}${result.baseline ? ` (baseline ${result.baseline.suite} / ${result.baseline.path ?? 'no path'} / ${result.baseline.model}, recorded ${result.baseline.recorded_at})` : ''}`,
    );
    out.print(policy.line);
    for (const c of result.checks) out.print(`  [${c.status}] ${c.arithmetic}`);
    for (const r of result.reasons) out.print(`Reason: ${r}`);
    for (const w of result.warnings) out.print(`Warning: ${w}`);
  }
  return result.exit_code;
}

/** baseline.json → baseline.sweep.json, beside it. */
export function sweepPath(baselineFile: string): string {
  return /\.json$/i.test(baselineFile) ? baselineFile.replace(/\.json$/i, '.sweep.json') : `${baselineFile}.sweep.json`;
}

/**
 * An existing --out file other than the baseline about to be written is kept: replacing a baseline
 * drops the floor the gate compares with (the report it came from may be gone), so it takes --force.
 * The same bytes again (re-recorded from the same report on the same day) lose nothing.
 */
function refuseToReplace(file: string, text: string, io: Io): void {
  let existing: string;
  try {
    existing = readFileSync(path.resolve(io.cwd, file), 'utf8');
  } catch {
    return; // No such file (or unreadable: the write reports that).
  }
  if (existing === text || existing === `${text}\n`) return;
  let held = '';
  try {
    const b = JSON.parse(existing) as Record<string, unknown>;
    if (b && typeof b === 'object' && 'baseline_version' in b)
      held = ` (the baseline ${String(b.suite)} / ${b.path === null ? 'no path' : String(b.path)} / ${String(b.model)}, recorded ${String(b.recorded_at)})`;
  } catch {
    // Not JSON: named as a file only.
  }
  throw new CliError(
    `baseline record: --out ${file} already exists${held} and differs from the baseline recorded now; nothing was written. Give --force to replace it, or another --out path.`,
  );
}

export async function baselineCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  if (!sub || sub === '--help' || sub === '-h') {
    io.out(BASELINE_HELP);
    return sub ? EXIT.ok : EXIT.badInput;
  }
  if (sub !== 'record') throw new CliError(`baseline: unknown subcommand "${sub}" (only "record").`);
  const { values, positionals } = parseFlags('baseline record', rest, {
    report: { type: 'string' },
    out: { type: 'string' },
    suite: { type: 'string' },
    policy: { type: 'string' },
    sweep: { type: 'string' },
    force: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.out(BASELINE_HELP);
    return EXIT.ok;
  }
  if (positionals.length) throw new CliError(`baseline record: unexpected argument "${positionals[0]}".`);
  if (!values.report || !values.out) throw new CliError('baseline record: --report and --out are required.');
  const sweepFile = values.sweep ?? (values.out === '-' ? undefined : sweepPath(values.out));
  const out = outputs(
    'baseline record',
    io,
    { out: values.out, sweep: sweepFile },
    { inputs: { '--report': values.report, '--policy': values.policy } },
  );
  const policy = await policyOf(values.policy, io);
  const summary = summaryOf(values.report, io, { wholeRun: true });
  const baseline = recordBaseline(summary, {
    ...(values.suite ? { suite: values.suite } : {}),
    date: new Date().toISOString().slice(0, 10),
    policy: policy.policy,
  });
  if (!baseline.ok) throw new CliError(`Cannot record a baseline: ${baseline.error.message}`);
  const checked = parseBaseline(baseline.value);
  if (!checked.ok) throw new CliError(checked.error.message);
  const text = prettyJson(baseline.value);
  if (values.out !== '-' && !values.force) refuseToReplace(values.out, text, io);
  out.write(values.out, () => text);
  out.print(
    `Baseline written to ${values.out} (${baseline.value.suite} / ${baseline.value.path ?? 'no path'} / ${baseline.value.model}, ${baseline.value.case_ids.length} cases).`,
  );
  if (sweepFile !== undefined) {
    // The sweep is judged under the policy recorded with the baseline (the one the gate applies to it).
    const sweep = boundarySweep(checked.value, checked.value.policy);
    out.write(sweepFile, () => prettyJson(sweep));
    out.print(`Boundary sweep written to ${sweepFile}.`);
    out.print(sweepText(sweep));
  }
  return EXIT.ok;
}

export async function diffCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags('diff', argv, {
    report: { type: 'string', multiple: true },
    json: { type: 'boolean' },
    'fail-on-regression': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.out(DIFF_HELP);
    return EXIT.ok;
  }
  if (positionals.length) throw new CliError(`diff: unexpected argument "${positionals[0]}".`);
  if (values.report?.length !== 2) throw new CliError('diff: give exactly two --report files.');
  const [a, b] = values.report.map((f) => runReportOf(f, io));
  const diff = diffRuns(a!.summary, b!.summary);
  if (!diff.ok) throw new CliError(diff.error.message);
  const d = diff.value;
  const fixtures = fixtureDifferences(a!.fixtures, b!.fixtures);
  for (const line of fixtures) io.err(`Warning: ${line}`);
  if (values.json) io.out(prettyJson({ ...d, fixture_differences: fixtures }));
  else {
    io.out(`Right: A ${d.right.a}/${d.right.total}, B ${d.right.b}/${d.right.total}`);
    io.out(
      `Fixed ${d.counts.fixed} · regressed ${d.counts.regressed} · unchanged right ${d.counts.unchanged_right} · unchanged wrong ${d.counts.unchanged_wrong}${d.counts.not_graded ? ` · not graded (broken reference) ${d.counts.not_graded}` : ''}`,
    );
    io.out(`McNemar exact test: b=${d.mcnemar.b}, c=${d.mcnemar.c}, p=${d.mcnemar.p_value.toPrecision(4)}`);
    io.out(
      `Difference B − A in right answers: ${pointsText(d.difference.estimate, d.difference.ci95)} (95% interval, Newcombe's paired score method)`,
    );
    if (d.fixed_ids.length) io.out(`Fixed: ${d.fixed_ids.join(', ')}`);
    if (d.regressed_ids.length) io.out(`Regressed: ${d.regressed_ids.join(', ')}`);
  }
  if (values['fail-on-regression'] && d.counts.regressed > 0) {
    io.err(
      `diff: ${d.counts.regressed} regression${d.counts.regressed === 1 ? '' : 's'} (--fail-on-regression): ${d.regressed_ids.join(', ')}`,
    );
    return EXIT.failed;
  }
  return EXIT.ok;
}
