/** `reservebench bench`: the series and their trials, the progress bar, the bench report and its charts. */
import { defineCommand } from '../command-definition.ts';
import { BENCH_OPTIONS } from './bench-options.ts';

export const BENCH = defineCommand({
  name: 'bench',
  describe: 'measure throughput, latency and lock waiting per strategy × client count (× admission)',
  options: BENCH_OPTIONS,
  // Its work, and the packages it does it with, load only when it runs: not for --help or a mistyped option.
  run: async (args, context) => (await import('./bench-action.ts')).benchCommand(args, context),
});
