/** `reservebench clean [--dry-run]`: removes what killed runs left behind, and data runs kept. */
import { defineCommand } from '../command-definition.ts';
import { CLEAN_OPTIONS } from './clean-options.ts';

export const CLEAN = defineCommand({
  name: 'clean',
  describe:
    'remove what killed runs left behind (embedded servers, data directories, run databases) and kept data',
  options: CLEAN_OPTIONS,
  // Its work, and the packages it does it with, load only when it runs: not for --help or a mistyped option.
  run: async (args) => (await import('./clean-action.ts')).cleanCommand(args),
});
