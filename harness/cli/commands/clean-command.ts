/** `reservebench clean [--dry-run]`: removes what killed runs left behind, and data runs kept. */
import { clean } from '../../database/clean.ts';
import { EXIT } from '../../errors.ts';
import { defineCommand, flag, type ParsedOf } from '../command-definition.ts';

const OPTIONS = { 'dry-run': flag('only list what would be removed') };

export async function cleanCommand(args: ParsedOf<typeof OPTIONS>): Promise<number> {
  for (const line of await clean({ dryRun: args['dry-run'] })) process.stdout.write(`${line}\n`);
  return EXIT.ok;
}

export const CLEAN = defineCommand({
  name: 'clean',
  describe:
    'remove what killed runs left behind (embedded servers, data directories, run databases) and kept data',
  options: OPTIONS,
  run: cleanCommand,
});
