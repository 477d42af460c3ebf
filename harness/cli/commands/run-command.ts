/** `reservebench run`: the cases, the tables, the reports, and the exit code of the gate. */
import { defineCommand } from '../command-definition.ts';
import { RUN_OPTIONS } from './run-options.ts';

export const RUN = defineCommand({
  name: 'run',
  describe: 'run every selected scenario against every selected strategy and audit the invariants',
  options: RUN_OPTIONS,
  // Its work, and the packages it does it with, load only when it runs: not for --help or a mistyped option.
  run: async (args, context) => (await import('./run-action.ts')).runCommand(args, context),
});
