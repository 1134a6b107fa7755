/**
 * `sql-verdict merge REPORT... --out FILE`: the shard reports of one run
 * (`run --shard K/N`) combined into one report (src/core/report/merge.ts).
 * The merged report of all N shards is the single-process report (timings
 * aside); the exit status then follows its verdicts as `run`'s would.
 */
import { isSuccess } from '../../core/gate/outcome.ts';
import { mergeRunReports, type MergeInput } from '../../core/report/merge.ts';
import { parseFlags } from '../args.ts';
import { CliError, EXIT } from '../cli-error.ts';
import { readTextFile } from '../inputs.ts';
import type { Io } from '../io.ts';
import { prettyJson } from '../json.ts';
import { outputs, writeSummaryExports } from '../outputs.ts';
import { RunReportWriter } from '../report-stream.ts';
import { checkThresholds, parseThresholds, THRESHOLD_HELP } from '../thresholds.ts';
import { HTML_MAX_FAILURES, summarizeRunReport } from './run.ts';

export const MERGE_HELP = `Usage: sql-verdict merge REPORT... --out FILE [options]

Combine the shard reports of one run ("sql-verdict run --shard K/N --out shard-K.json")
into one run report. The shards must come from the same corpus (digest), run file, tool
version and configuration, each shard at most once; a problem names the file and the
field. All N shards give the report a single "run" would have written (timings aside);
fewer give a partial report that can be merged again later.

Options:
  --out FILE             write the merged JSON run report ("-": stdout)
  --markdown FILE        write a Markdown summary
  --junit FILE           write JUnit XML
  --csv FILE             write a CSV of cases
  --html FILE            write a standalone HTML report, as run --html does
${THRESHOLD_HELP}
  --json                 print the merged report on stdout
  -h, --help             show this help

Exit status (all shards merged): 0 every case correct (with a threshold: every threshold
met), 1 otherwise; a partial merge: 0, or 2 with a threshold (checked on the whole run
only); 2 bad input.`;

export async function mergeCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags('merge', argv, {
    out: { type: 'string' },
    markdown: { type: 'string' },
    junit: { type: 'string' },
    csv: { type: 'string' },
    html: { type: 'string' },
    json: { type: 'boolean' },
    'min-accuracy': { type: 'string' },
    'min-refusal-recall': { type: 'string' },
    'max-over-refusal': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.out(MERGE_HELP);
    return EXIT.ok;
  }
  if (positionals.length === 0)
    throw new CliError(
      'merge: give the shard reports to merge (REPORT...).\nRun "sql-verdict merge --help" for usage.',
    );
  if (!values.out && !values.json)
    throw new CliError('merge: --out FILE is required (or --json).\nRun "sql-verdict merge --help" for usage.');
  const thresholds = parseThresholds(values);
  const out = outputs(
    'merge',
    io,
    { out: values.out, markdown: values.markdown, junit: values.junit, csv: values.csv, html: values.html },
    { json: values.json, inputs: Object.fromEntries(positionals.map((f) => [`shard report ${f}`, f])) },
  );
  const inputs: MergeInput[] = [];
  for (const file of positionals) {
    const text = readTextFile(file, io, 'shard report');
    try {
      inputs.push({ file, report: JSON.parse(text) as unknown });
    } catch (thrown) {
      throw new CliError(
        `${file}: not valid JSON (${thrown instanceof Error ? thrown.message : String(thrown)}); expected a report "sql-verdict run --shard K/N --out" wrote.`,
      );
    }
  }
  const merged = mergeRunReports(inputs);
  inputs.length = 0;
  if (!merged.ok) throw new CliError(`merge: ${merged.error.message}`);
  const report = merged.value;
  // A threshold is a gate on the whole run: with a shard missing it cannot be checked, and a merge job
  // whose shard artifact went missing must not pass the gate (a partial merge alone exits 0).
  const given = (['min-accuracy', 'min-refusal-recall', 'max-over-refusal'] as const).filter(
    (f) => values[f] !== undefined,
  );
  if (report.shard && given.length) {
    const held = new Set(report.shard.shards);
    const missing = Array.from({ length: report.shard.count }, (_v, i) => i + 1).filter((k) => !held.has(k));
    throw new CliError(
      `merge: --${given.join(', --')} given, but ${missing.length === 1 ? 'shard' : 'shards'} ${missing.join(', ')} of ${report.shard.count} ${missing.length === 1 ? 'is' : 'are'} missing: a threshold is checked on the whole run only; merge every shard report (nothing was written).`,
    );
  }
  // Case by case, as run --out writes it: a merged benchmark report is hundreds of MB.
  if (values.out && values.out !== '-') {
    const writer = new RunReportWriter(values.out, io);
    try {
      report.cases.forEach((k, i) => writer.add(k, i));
      writer.finish(report);
    } finally {
      writer.abort();
    }
  } else out.write(values.out, () => prettyJson(report));
  await writeSummaryExports(out, values, report);
  if (values.html) {
    // The merged report holds every case: the failing ones' details are taken here, as run keeps them while grading.
    const { htmlCaseDetail, toHtml } = await import('../../core/report/html.ts');
    const details = report.cases
      .filter((k) => !isSuccess(k.outcome))
      .slice(0, HTML_MAX_FAILURES)
      .map((k) => htmlCaseDetail(k));
    out.write(values.html, () =>
      toHtml({
        summary: report.summary,
        details,
        maxFailures: HTML_MAX_FAILURES,
        generatedAt: new Date().toISOString(),
      }),
    );
  }
  const partial = report.shard
    ? `Partial merge: shards ${report.shard.shards.join(', ')} of ${report.shard.count} (${report.cases.length} of ${report.shard.corpus_size} cases).`
    : null;
  const verdicts = checkThresholds(report.summary, thresholds);
  out.print(
    values.json
      ? prettyJson(report)
      : [...(partial ? [partial] : []), summarizeRunReport(report), ...verdicts.lines].join('\n'),
  );
  if (partial) return EXIT.ok;
  if (verdicts.lines.length) return verdicts.met ? EXIT.ok : EXIT.failed;
  return report.summary.failures.length === 0 ? EXIT.ok : EXIT.failed;
}
