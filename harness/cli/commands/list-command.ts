/** `reservebench list`: each contract's designs (id, expect, how each stays correct) and scenarios. */
import { defineCommand } from '../command-definition.ts';
import { LIST_OPTIONS } from './list-options.ts';

export const LIST = defineCommand({
  name: 'list',
  describe: "list each contract's designs and scenarios",
  options: LIST_OPTIONS,
  // Its work, and the packages it does it with, load only when it runs: not for --help or a mistyped option.
  run: async (args) => (await import('./list-action.ts')).listCommand(args),
});
