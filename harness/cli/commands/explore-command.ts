/**
 * `reservebench explore --strategy X [--seed S] [--budget 60s|N] [--random N] [--cluster embedded]`: programs of the design's contract
 * against one design of any contract with an explorer side, until one fails or the budget is spent
 * (docs/explore.md); a finding is shrunk, written as a spec and replayed. Exit 0 when the verdict holds (a
 * safe design: nothing found; a negative control: found), 1 when not.
 */
import { defineCommand } from '../command-definition.ts';
import { EXPLORE_OPTIONS } from './explore-options.ts';

export const EXPLORE = defineCommand({
  name: 'explore',
  describe: 'generate random programs against one design, shrink what fails and write it as a spec',
  options: EXPLORE_OPTIONS,
  // Its work, and the packages it does it with, load only when it runs: not for --help or a mistyped option.
  run: async (args, context) => (await import('./explore-action.ts')).exploreCommand(args, context),
});
