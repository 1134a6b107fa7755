/**
 * Output flags (--out, --markdown, --junit, --csv, ...): a file path, or "-" for stdout. Then stdout
 * carries only that file, so it pipes cleanly, and what the command would print moves to stderr.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { junitDetailsOf } from '../core/gate/export/junit.ts';
import type { RunSummary } from '../core/gate/summary.ts';
import { CliError } from './cli-error.ts';
import { checkOutputPath, writeOutput, type Io } from './io.ts';

export interface Outputs {
  /** Write an output flag's text: to its file, or to stdout for "-". */
  write(file: string | undefined, text: () => string): void;
  /** Print the command's own text: stdout, or stderr when "-" took stdout. */
  print(text: string): void;
}

export function outputs(
  command: string,
  io: Io,
  flags: Record<string, string | undefined>,
  options: { json?: boolean; inputs?: Record<string, string | undefined> } = {},
): Outputs {
  const dashes = Object.entries(flags)
    .filter(([, v]) => v === '-')
    .map(([k]) => `--${k}`);
  if (dashes.length > 1)
    throw new CliError(`${command}: only one output can go to stdout ("-"), got ${dashes.join(' and ')}.`);
  if (dashes.length && options.json)
    throw new CliError(
      `${command}: --json prints on stdout; ${dashes[0]} - cannot share it (give ${dashes[0]} a file).`,
    );
  // Refuse an unwritable path before any work, not after grading.
  for (const [flag, file] of Object.entries(flags))
    if (file !== undefined && file !== '-') checkOutputPath(`--${flag}`, file, io);
  refuseClashes(command, io, flags, options.inputs ?? {});
  const stdoutTaken = dashes.length > 0;
  return {
    write(file, text) {
      if (file === undefined) return;
      if (file === '-') io.out(text());
      else writeOutput(file, text(), io);
    },
    print(text) {
      if (stdoutTaken) io.err(text);
      else io.out(text);
    },
  };
}

/**
 * Two outputs on one file, or an output on a file the command reads: refused before any work.
 * Atomic writes made these silent: the later output replaced the earlier one, or the report
 * replaced the predictions (or gold, or run) it was graded from, and the command said it wrote both.
 */
function refuseClashes(
  command: string,
  io: Io,
  flags: Record<string, string | undefined>,
  inputs: Record<string, string | undefined>,
): void {
  const seen = new Map<string, string>();
  const read = new Map<string, string>();
  for (const [label, file] of Object.entries(inputs))
    if (file !== undefined && file !== '-') read.set(pathKey(file, io), label);
  for (const [flag, file] of Object.entries(flags)) {
    if (file === undefined || file === '-') continue;
    const key = pathKey(file, io);
    const input = read.get(key);
    if (input !== undefined)
      throw new CliError(
        `${command}: --${flag} ${file} is the ${input} input: writing it would overwrite that file; give another path.`,
      );
    const other = seen.get(key);
    if (other !== undefined)
      throw new CliError(`${command}: --${other} and --${flag} both name ${file}: give each output its own file.`);
    seen.set(key, flag);
  }
}

/** A file's identity: its real path (symbolic links and "./" resolved), or its folder's real path and its name. */
function pathKey(file: string, io: Io): string {
  const target = path.resolve(io.cwd, file);
  try {
    return realpathSync(target);
  } catch {
    try {
      return path.join(realpathSync(path.dirname(target)), path.basename(target));
    } catch {
      return target;
    }
  }
}

type JUnitSource = Parameters<typeof junitDetailsOf>[0];

/** The summary's exports a run report may be asked for (run, run --format and merge write the same ones). */
export interface SummaryExportFiles {
  markdown?: string | undefined;
  junit?: string | undefined;
  csv?: string | undefined;
}

/**
 * --markdown, --junit and --csv of a run report. JUnit gets each case's question and time from
 * `cases` (slim copies are enough). The exporters load only when asked for: they are not on start-up's path.
 */
export async function writeSummaryExports(
  out: Outputs,
  files: SummaryExportFiles,
  report: { summary: RunSummary; run_metadata?: JUnitSource['run_metadata']; cases?: JUnitSource['cases'] },
): Promise<void> {
  if (files.markdown) {
    const { toMarkdown } = await import('../core/gate/export/markdown.ts');
    out.write(files.markdown, () => toMarkdown(report.summary));
  }
  if (files.junit) {
    const { junitDetailsOf, toJUnit } = await import('../core/gate/export/junit.ts');
    out.write(files.junit, () =>
      toJUnit(report.summary, undefined, junitDetailsOf({ run_metadata: report.run_metadata, cases: report.cases })),
    );
  }
  if (files.csv) {
    const { toCsv } = await import('../core/gate/export/csv.ts');
    out.write(files.csv, () => toCsv(report.summary));
  }
}
