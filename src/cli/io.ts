import {
  accessSync,
  closeSync,
  constants,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { CliError } from './cli-error.ts';

/** Where a command writes: injectable so tests can run commands in-process. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  cwd: string;
  env: Record<string, string | undefined>;
}

export const processIo: Io = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  cwd: process.cwd(),
  env: process.env,
};

const CHUNK = 1 << 20;

/**
 * Check, before any work, that `file` (relative to the command's cwd) can be
 * written as a file: not a directory, its folder a folder we may write in (or
 * creatable). A bad --out then fails in a second, not after grading.
 */
export function checkOutputPath(flag: string, file: string, io: Io): void {
  const target = path.resolve(io.cwd, file);
  const stat = statOrNull(target);
  if (stat?.isDirectory()) throw new CliError(`${flag} ${file} is a directory: give a file path.`);
  if (stat && !stat.isFile()) throw new CliError(`${flag} ${file} is not a regular file.`);
  let folder = path.dirname(target);
  while (!statOrNull(folder)) folder = path.dirname(folder);
  if (!statOrNull(folder)!.isDirectory()) throw new CliError(`${flag} ${file}: ${folder} is not a directory.`);
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    throw new CliError(`${flag} ${file}: the folder ${folder} is not writable.`);
  }
}

function statOrNull(p: string) {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}

/** A hidden temporary file beside `target` (same folder, so the final rename is atomic). */
export function tempPathFor(target: string, part = ''): string {
  return path.join(
    path.dirname(target),
    `.${path.basename(target)}.${part}${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`,
  );
}

/** The folder of an output file, created if missing; a file in its way or a refused folder is the user's to fix. */
export function makeOutputFolder(file: string, target: string): void {
  const folder = path.dirname(target);
  try {
    mkdirSync(folder, { recursive: true });
  } catch (thrown) {
    const code = (thrown as NodeJS.ErrnoException).code;
    const why =
      code === 'EEXIST' || code === 'ENOTDIR'
        ? `a file stands where its folder ${folder} would be`
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? `the folder ${folder} cannot be created (${code})`
          : (code ?? String(thrown));
    throw new CliError(`Cannot write ${file}: ${why}.`);
  }
}

/**
 * Write an output file (relative to the command's cwd), creating its folder;
 * text ends with a newline. Atomic: the text goes to a temporary file in the
 * same folder, is flushed, then renamed over the target, so a crash or kill
 * mid-write leaves the previous file whole.
 */
export function writeOutput(file: string, text: string, io: Io): void {
  const target = path.resolve(io.cwd, file);
  makeOutputFolder(file, target);
  if (statOrNull(target)?.isDirectory()) throw new CliError(`${file} is a directory: give a file path.`);
  const temp = tempPathFor(target);
  const bytes = Buffer.from(text.endsWith('\n') ? text : `${text}\n`, 'utf8');
  let fd: number | null = null;
  try {
    fd = openSync(temp, 'wx', 0o644);
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, Math.min(CHUNK, bytes.length - at));
    fsyncSync(fd);
    closeSync(fd);
    fd = null;
    renameSync(temp, target);
  } catch (thrown) {
    if (fd !== null) closeSync(fd);
    try {
      unlinkSync(temp);
    } catch {
      // Never created, or already renamed.
    }
    if (thrown instanceof CliError) throw thrown;
    throw new CliError(`Cannot write ${file}: ${(thrown as NodeJS.ErrnoException).code ?? String(thrown)}.`);
  }
}
