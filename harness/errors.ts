/**
 * Harness errors: each carries the exit code of DESIGN.md and a one-line message meant for the user,
 * so the CLI can print it without a stack trace.
 */
export const EXIT = {
  ok: 0,
  expectationFailed: 1,
  badInput: 2,
  database: 3,
} as const;

export const Errors = {
  badInput: (message: string) => new HarnessError(message, EXIT.badInput),
  databaseUnreachable: (target: string, reason: string) =>
    new HarnessError(`cannot reach PostgreSQL at ${target}: ${reason}`, EXIT.database),
  databaseSetup: (reason: string) => new HarnessError(`cannot set up the database: ${reason}`, EXIT.database),
  barrierTimeout: (what: string, seconds: number) =>
    new HarnessError(
      `${what} did not complete within ${seconds} s: a session cannot make progress`,
      EXIT.expectationFailed,
    ),
  activeAfterError: (step: string, seconds: number) =>
    new HarnessError(
      `not exercised: step ${step} reported an error, but its backend still ran a statement ${seconds} s later, so the steps after it cannot be ordered`,
      EXIT.expectationFailed,
    ),
} as const;

export class HarnessError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'HarnessError';
  }
}

/** First line of an error's message, for one-line reports of unexpected failures. */
export function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]?.trim() || 'unknown error';
}
