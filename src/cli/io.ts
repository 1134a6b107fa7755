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
