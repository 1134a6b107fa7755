/** The sql-verdict command line: one entry, one module per command. */
import { CliError, EXIT } from './cli-error.ts';
import { DIGEST_HELP, digestCommand } from './commands/digest.ts';
import { QUERY_HELP, queryCommand } from './commands/query.ts';
import { processIo, type Io } from './io.ts';

type Command = { summary: string; run: (argv: string[], io: Io) => Promise<number>; help: string };

const COMMANDS: Record<string, Command> = {
  query: { summary: 'run one read-only query on a fixture and print exact values', run: queryCommand, help: QUERY_HELP },
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
