import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from './cli-error.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

type Parsed<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
>;

/** Strict flag parsing: an unknown flag or a missing value is a clear bad-input error. */
export function parseFlags<O extends Options>(command: string, argv: string[], options: O): Parsed<O> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true, tokens: true });
  } catch (thrown) {
    // A SQL argument opening with a comment ("-- top customers\nSELECT …") reads as an option: say how to pass it.
    const text = /^Unknown option '(--[^']*\s[^']*)'/s.exec(thrown instanceof Error ? thrown.message : '')?.[1];
    if (text)
      throw new CliError(
        `${command}: "${text.split('\n')[0]!.slice(0, 40)}…" is not an option: a SQL text that starts with "--" (a comment) goes after a lone "--": sql-verdict ${command} [options] -- "-- …".`,
      );
    const message =
      thrown instanceof Error ? thrown.message.replace(/\. To specify a positional argument.*$/s, '.') : String(thrown);
    throw new CliError(`${command}: ${message}\nRun "sql-verdict ${command} --help" for usage.`);
  }
  refuseRepeats(command, parsed.tokens, options);
  return { values: parsed.values, positionals: parsed.positionals } as Parsed<O>;
}

/**
 * A one-value flag given twice with two values: node's parseArgs keeps the last silently, so
 * `--pred a.txt --pred b.txt` graded b.txt and said nothing of a.txt. Repeatable flags
 * (`multiple`) and booleans are left alone; one value given twice is harmless.
 */
function refuseRepeats(
  command: string,
  tokens: { kind: string; name?: string; value?: string | undefined }[],
  options: Options,
): void {
  const first = new Map<string, string>();
  for (const t of tokens) {
    if (t.kind !== 'option' || t.name === undefined || t.value === undefined) continue;
    const option = options[t.name];
    if (!option || option.type !== 'string' || option.multiple) continue;
    const before = first.get(t.name);
    if (before === undefined) first.set(t.name, t.value);
    else if (before !== t.value)
      throw new CliError(`${command}: --${t.name} given twice (${before}, then ${t.value}): give it once.`);
  }
}

export function positiveInteger(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) <= 0)
    throw new CliError(`${flag} must be a positive whole number, got "${value}".`);
  return Number(value);
}

const BYTE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/** A byte size: "268435456", "256MiB", "64 MB", "1.5GiB" (KB/MB/GB decimal, KiB/MiB/GiB binary). */
export function byteSize(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d+(?:\.\d+)?)\s*([kmg]i?b|b)?$/i.exec(value.trim());
  const bytes = m ? Math.floor(Number(m[1]) * BYTE_UNITS[(m[2] ?? 'b').toLowerCase()]!) : NaN;
  if (!(bytes >= 1) || !Number.isSafeInteger(bytes))
    throw new CliError(`${flag} must be a size in bytes such as 268435456, 256MiB or 64MB, got "${value}".`);
  return bytes;
}

export function oneOf<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
  fallback?: T,
): T | undefined {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value))
    throw new CliError(`${flag} must be one of ${allowed.join(', ')}, got "${value}".`);
  return value as T;
}
