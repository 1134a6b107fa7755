/** The sql-verdict command line: one entry, one module per command. */
import { readFileSync } from 'node:fs';
import { nativeDuckDbProblem } from '../engines/duckdb/native-available.ts';
import { CliError, EXIT } from './cli-error.ts';
import { processIo, type Io } from './io.ts';
import type * as Prestart from './prestart.ts';

type CommandFn = (argv: string[], io: Io) => Promise<number>;
// Commands load on use: `sql-verdict --help` and `--version` import none of the engines or the core.
type Command = { summary: string; load: () => Promise<CommandFn> };

const COMMANDS: Record<string, Command> = {
  query: {
    summary: 'run one read-only query on a fixture and print exact values',
    load: async () => (await import('./commands/query.ts')).queryCommand,
  },
  compare: {
    summary: 'evaluate one candidate query against a reference and explain the verdict',
    load: async () => (await import('./commands/compare.ts')).compareCommand,
  },
  run: {
    summary: 'grade a run of the system under test against a corpus (self-check first)',
    load: async () => (await import('./commands/run.ts')).runCommand,
  },
  selfcheck: {
    summary: 'check that every reference still returns its frozen result',
    load: async () => (await import('./commands/run.ts')).selfcheckCommand,
  },
  gate: {
    summary: 'apply the release gate to a run report against a baseline',
    load: async () => (await import('./commands/gate.ts')).gateCommand,
  },
  baseline: {
    summary: 'baseline record: write a baseline from a run report (explicitly)',
    load: async () => (await import('./commands/gate.ts')).baselineCommand,
  },
  diff: {
    summary: 'compare two runs of one corpus (fixed, regressed; McNemar)',
    load: async () => (await import('./commands/gate.ts')).diffCommand,
  },
  stef: {
    summary: 'schema-agnostic grading (STEF): question + SQL, no reference; or monitor a production log',
    load: async () => (await import('./commands/stef.ts')).stefCommand,
  },
  merge: {
    summary: 'combine the shard reports of one run (run --shard K/N) into one report',
    load: async () => (await import('./commands/merge.ts')).mergeCommand,
  },
  import: {
    summary: 'write Spider, BIRD or CSV benchmark files as a native corpus and run',
    load: async () => (await import('./commands/bench.ts')).importCommand,
  },
  digest: {
    summary: "SHA-256 of files (raw bytes) or of a fixture's content",
    load: async () => (await import('./commands/digest.ts')).digestCommand,
  },
};

/** The package's version, read from package.json (two folders up from both src/cli and lib/cli). */
export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return `sql-verdict ${packageVersion()} — grade text-to-SQL output against reference SQL and frozen results

Usage: sql-verdict <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)
  .join('\n')}

Run "sql-verdict help <command>" or "sql-verdict <command> --help" for a command's options.
Exit status: 0 pass, 1 verdict or gate failure, 2 bad input.`;
}

/**
 * A bug, not bad input: one line saying so and how to report it. The stack
 * trace only with SQL_VERDICT_DEBUG=1 (never by default: it is noise to a CI
 * log reader and can carry local paths).
 */
export function internalError(thrown: unknown, env: Record<string, string | undefined> = {}): string {
  const message = (thrown instanceof Error ? thrown.message : String(thrown)).split('\n')[0]!.slice(0, 300);
  const line = `Internal error (a bug in sql-verdict, not in your input): ${message}. Please report it with the command you ran; SQL_VERDICT_DEBUG=1 prints the stack trace.`;
  return env.SQL_VERDICT_DEBUG === '1' && thrown instanceof Error && thrown.stack ? `${line}\n${thrown.stack}` : line;
}

/**
 * `--database-url URL`, on any command: the PostgreSQL server of the
 * `postgres` engine. It goes into SQL_VERDICT_DATABASE_URL, which the engine
 * host threads inherit, so no command needs to pass it along.
 */
export function takeDatabaseUrl(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const inline = /^--database-url=(.*)$/.exec(arg);
    if (inline || arg === '--database-url') {
      const url = inline ? inline[1]! : argv[++i];
      if (!url || !/^postgres(?:ql)?:\/\//.test(url))
        throw new CliError(
          '--database-url needs a PostgreSQL URL, e.g. postgresql://user:password@127.0.0.1:5432/dbname.',
        );
      process.env.SQL_VERDICT_DATABASE_URL = url;
      continue;
    }
    out.push(arg);
  }
  return out;
}

/** Commands whose own `--engine` flag takes `duckdb`; the others take only `--engine duckdb-native`. */
const ENGINE_FLAG_COMMANDS = new Set(['query', 'compare', 'digest']);

/**
 * `--engine duckdb-native` / `--engine duckdb-wasm`, on any command: DuckDB runs natively (@duckdb/node-api) or
 * on DuckDB-WASM (docs/native-duckdb.md). It goes into SQL_VERDICT_DUCKDB=native|wasm, which the engine host and
 * grading threads inherit (`run` picks native DuckDB itself for large fixtures unless it is set); a command with
 * its own `--engine` flag sees `--engine duckdb`. Native DuckDB that cannot load here is a clear error.
 */
export function takeNativeDuckDb(command: string, argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const value = arg.startsWith('--engine=') ? arg.slice('--engine='.length) : arg === '--engine' ? argv[i + 1] : '';
    const driver = value === 'duckdb-native' ? 'native' : value === 'duckdb-wasm' ? 'wasm' : null;
    // Any other value on a command without its own --engine was "Unknown option '--engine'", which its help lists.
    if (!driver && value !== '' && !ENGINE_FLAG_COMMANDS.has(command))
      throw new CliError(
        `${command}: --engine must be duckdb-native or duckdb-wasm, got ${JSON.stringify(value ?? '')} (the corpus's engine field picks the dialect; --ports grades its references on another engine).`,
      );
    if (!driver) {
      out.push(arg);
      continue;
    }
    if (arg === '--engine') i++;
    process.env.SQL_VERDICT_DUCKDB = driver;
    if (ENGINE_FLAG_COMMANDS.has(command)) out.push('--engine', 'duckdb');
  }
  if (process.env.SQL_VERDICT_DUCKDB === 'native') {
    const problem = nativeDuckDbProblem();
    if (problem) throw new CliError(`${problem} Run without --engine duckdb-native (or SQL_VERDICT_DUCKDB=native).`);
  }
  return out;
}

export async function main(argv: string[], io: Io = processIo): Promise<number> {
  let [name, ...rest] = argv;
  if (name === 'help' && rest[0] && !rest[0].startsWith('-')) {
    // `help run` is `run --help`.
    if (!COMMANDS[rest[0]]) {
      io.err(`Unknown command "${rest[0]}".\n\n${usage()}`);
      return EXIT.badInput;
    }
    [name, rest] = [rest[0], ['--help']];
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(usage());
    return name ? EXIT.ok : EXIT.badInput;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    io.out(`sql-verdict ${packageVersion()}`);
    return EXIT.ok;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.err(`Unknown command "${name}".\n\n${usage()}`);
    return EXIT.badInput;
  }
  // `run` on a DuckDB corpus: native DuckDB starts loading the first fixture before the command's code loads.
  let prestart: typeof Prestart | null = null;
  try {
    rest = takeNativeDuckDb(name, takeDatabaseUrl(rest));
    if (name === 'run') {
      prestart = await import('./prestart.ts');
      prestart.prestartRun(rest, io.cwd, { ...io.env, SQL_VERDICT_DUCKDB: process.env.SQL_VERDICT_DUCKDB });
    }
    return await (
      await command.load()
    )(rest, io);
  } catch (thrown) {
    if (thrown instanceof CliError) {
      io.err(thrown.message);
      return thrown.exitCode;
    }
    io.err(internalError(thrown, io.env));
    return EXIT.badInput;
  } finally {
    await prestart?.closePrestarted();
  }
}
