/** An error that ends the command with a message and an exit status (2 = bad input). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = 2,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const EXIT = { ok: 0, failed: 1, badInput: 2 } as const;
