/**
 * Output flags (--out, --markdown, --junit, --csv, ...): a file path, or "-" for stdout. Then stdout
 * carries only that file, so it pipes cleanly, and what the command would print moves to stderr.
 */
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
  options: { json?: boolean } = {},
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
