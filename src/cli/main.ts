/** The sql-verdict command line: one entry, one module per command. */
import { CliError, EXIT } from './cli-error.ts';
import { COMPARE_HELP, compareCommand } from './commands/compare.ts';
import { IMPORT_HELP, importCommand } from './commands/bench.ts';
import { DIGEST_HELP, digestCommand } from './commands/digest.ts';
import { BASELINE_HELP, baselineCommand, DIFF_HELP, diffCommand, GATE_HELP, gateCommand } from './commands/gate.ts';
import { RUN_HELP, runCommand, SELFCHECK_HELP, selfcheckCommand } from './commands/run.ts';
import { QUERY_HELP, queryCommand } from './commands/query.ts';
import { STEF_HELP, stefCommand } from './commands/stef.ts';
import { processIo, type Io } from './io.ts';

type Command = { summary: string; run: (argv: string[], io: Io) => Promise<number>; help: string };

const COMMANDS: Record<string, Command> = {
  query: { summary: 'run one read-only query on a fixture and print exact values', run: queryCommand, help: QUERY_HELP },
  compare: { summary: 'evaluate one candidate query against a reference and explain the verdict', run: compareCommand, help: COMPARE_HELP },
  run: { summary: 'grade a run of the system under test against a corpus (self-check first)', run: runCommand, help: RUN_HELP },
  selfcheck: { summary: 'check that every reference still returns its frozen result', run: selfcheckCommand, help: SELFCHECK_HELP },
  gate: { summary: 'apply the release gate to a run report against a baseline', run: gateCommand, help: GATE_HELP },
  baseline: { summary: 'baseline record: write a baseline from a run report (explicitly)', run: baselineCommand, help: BASELINE_HELP },
  diff: { summary: 'compare two runs of one corpus (fixed, regressed; McNemar)', run: diffCommand, help: DIFF_HELP },
  stef: { summary: 'schema-agnostic grading (STEF): question + SQL, no reference; or monitor a production log', run: stefCommand, help: STEF_HELP },
  import: { summary: 'write Spider, BIRD or CSV benchmark files as a native corpus and run', run: importCommand, help: IMPORT_HELP },
  digest: { summary: 'SHA-256 of files (raw bytes) or of a fixture\'s content', run: digestCommand, help: DIGEST_HELP },
};

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return `sql-verdict — grade text-to-SQL output against reference SQL and frozen results

Usage: sql-verdict <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)
  .join('\n')}

Run "sql-verdict <command> --help" for a command's options.
Exit status: 0 pass, 1 verdict or gate failure, 2 bad input.`;
}

export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(usage());
    return name ? EXIT.ok : EXIT.badInput;
  }
  if (name === '--version' || name === '-v') {
    io.out('sql-verdict 0.1.0');
    return EXIT.ok;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.err(`Unknown command "${name}".\n\n${usage()}`);
    return EXIT.badInput;
  }
  try {
    return await command.run(rest, io);
  } catch (thrown) {
    if (thrown instanceof CliError) {
      io.err(thrown.message);
      return thrown.exitCode;
    }
    io.err(`Internal error: ${thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown)}`);
    return EXIT.badInput;
  }
}
