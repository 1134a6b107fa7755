import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

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

/** Write an output file (relative to the command's cwd), creating its folder; text ends with a newline. */
export function writeOutput(file: string, text: string, io: Io): void {
  const target = path.resolve(io.cwd, file);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, text.endsWith('\n') ? text : `${text}\n`);
}
