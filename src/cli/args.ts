import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from './cli-error.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>>;

/** Strict flag parsing: an unknown flag or a missing value is a clear bad-input error. */
export function parseFlags<O extends Options>(command: string, argv: string[], options: O): Parsed<O> {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (thrown) {
    const message = thrown instanceof Error ? thrown.message.replace(/\. To specify a positional argument.*$/s, '.') : String(thrown);
    throw new CliError(`${command}: ${message}\nRun "sql-verdict ${command} --help" for usage.`);
  }
}

export function positiveInteger(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) <= 0) throw new CliError(`${flag} must be a positive whole number, got "${value}".`);
  return Number(value);
}

export function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[], fallback?: T): T | undefined {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new CliError(`${flag} must be one of ${allowed.join(', ')}, got "${value}".`);
  return value as T;
}
