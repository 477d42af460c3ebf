/**
 * `reservebench init`: a starting point in a team's own repository — a design file copied from a built-in
 * one and a CI workflow that gates on it, as the contract's starter (Contract.starter) writes them. It never overwrites a file (exit 2 with one
 * line naming it) unless told to with --force.
 */
import { defineCommand } from '../command-definition.ts';
import { INIT_OPTIONS } from './init-options.ts';

export const INIT = defineCommand({
  name: 'init',
  describe: 'write a starting design file (from a built-in one) and a CI workflow that gates on it',
  options: INIT_OPTIONS,
  // Its work, and the packages it does it with, load only when it runs: not for --help or a mistyped option.
  run: async (args) => (await import('./init-action.ts')).initCommand(args),
});
