/** `reservebench clean [--dry-run]`: removes what killed runs left behind, and data runs kept. */
import { clean } from '../../database/clean.ts';
import { EXIT } from '../../errors.ts';

export async function cleanCommand(dryRun: boolean): Promise<number> {
  for (const line of await clean({ dryRun })) process.stdout.write(`${line}\n`);
  return EXIT.ok;
}
