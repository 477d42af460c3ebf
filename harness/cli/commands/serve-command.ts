/**
 * `reservebench serve`: every option checked, then the HTTP service of the first contract listed that has
 * one (Contract.service) started in front of the strategy, which that contract loads.
 */
import { defineCommand } from '../command-definition.ts';
import { SERVE_OPTIONS } from './serve-options.ts';

export const SERVE = defineCommand({
  name: 'serve',
  describe: 'serve reserve, confirm, release, lookups, stock and metrics over HTTP in front of one strategy',
  options: SERVE_OPTIONS,
  // Its work, and the packages it does it with, load only when it runs: not for --help or a mistyped option.
  run: async (args, context) => (await import('./serve-action.ts')).serveCommand(args, context),
});
