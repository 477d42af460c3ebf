/** What `reservebench clean` does (its options: clean-options.ts), imported only when it runs. */

import { clean } from '../../database/clean.ts';
import { EXIT } from '../../errors.ts';
import type { CleanArgs } from './clean-options.ts';

export async function cleanCommand(args: CleanArgs): Promise<number> {
  for (const line of await clean({ dryRun: args['dry-run'] })) process.stdout.write(`${line}\n`);
  return EXIT.ok;
}
