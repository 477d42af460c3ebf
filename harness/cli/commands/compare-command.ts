/**
 * `reservebench compare BASE.json NEW.json`: the throughput of each series two bench runs share, NEW ÷
 * BASE with a 95% interval and a verdict, as a Markdown table (or JSON), and with --junit as JUnit XML. Exit
 * 1 when a series is slower than the threshold allows with confidence, 2 when a file is not a bench report
 * with trials.
 */
import { defineCommand } from '../command-definition.ts';
import { COMPARE_OPTIONS } from './compare-options.ts';

export const COMPARE = defineCommand({
  name: 'compare',
  describe: 'compare two bench reports: throughput NEW ÷ BASE per series, with a 95% interval and a verdict',
  options: COMPARE_OPTIONS,
  // Its work, and the packages it does it with, load only when it runs: not for --help or a mistyped option.
  run: async (args, context) => (await import('./compare-action.ts')).compareCommand(args, context),
});
