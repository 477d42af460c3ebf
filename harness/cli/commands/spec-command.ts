/**
 * `reservebench spec FILE.spec`: runs a PostgreSQL isolation-tester spec on a fresh run database and
 * prints the tester's output; with `--expected FILE.out` it compares instead and prints a diff when they
 * differ. Exit 0 when the spec ran (failing steps are output, not failures), 1 on a difference or a
 * permutation that cannot go on, 2 on a bad spec.
 */
import { defineCommand } from '../command-definition.ts';
import { SPEC_OPTIONS } from './spec-options.ts';

export const SPEC = defineCommand({
  name: 'spec',
  describe: "run a PostgreSQL isolation-tester spec on a fresh database and print the tester's output",
  options: SPEC_OPTIONS,
  // Its work, and the packages it does it with, load only when it runs: not for --help or a mistyped option.
  run: async (args) => (await import('./spec-action.ts')).specCommand(args),
});
