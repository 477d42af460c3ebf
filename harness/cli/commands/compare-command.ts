/**
 * `reservebench compare BASE.json NEW.json`: the throughput of each series two bench runs share, NEW ÷
 * BASE with a 95% interval and a verdict, as a Markdown table (or JSON), and with --junit as JUnit XML. Exit
 * 1 when a series is slower than the threshold allows with confidence, 2 when a file is not a bench report
 * with trials.
 */

import { Errors, EXIT } from '../../errors.ts';
import { compareReports, readBenchReport, renderComparisonMarkdown } from '../../report/bench/compare.ts';
import { comparisonJunit } from '../../report/bench/compare-junit.ts';
import { publishResults } from '../ci-results.ts';
import { junitFile, shown } from '../cli-arguments.ts';
import {
  type CommandContext,
  defineCommand,
  flag,
  type ParsedOf,
  positional,
} from '../command-definition.ts';
import { integer } from '../option-types.ts';
import { junitOption } from './shared-options.ts';

/** Slower by more than this, with 95% confidence, fails `compare` unless told otherwise. */
export const DEFAULT_REGRESSION_PCT = 10;

const OPTIONS = {
  base: positional('report.json of the earlier bench', 'required'),
  new: positional('report.json of the later bench', 'required'),
  'fail-on-regression': integer('exit 1 when a series is slower by more than this % with 95% confidence', {
    min: 0,
    max: 99,
    default: DEFAULT_REGRESSION_PCT,
  }),
  json: flag('print the comparison as JSON, no table'),
  ...junitOption('a test case per series, a regression a failure'),
};

export type CompareArgs = ParsedOf<typeof OPTIONS>;

function reportPath(role: 'BASE' | 'NEW', text: string | undefined): string {
  if (text === undefined || text.trim() === '') {
    throw Errors.badInput(`compare needs BASE.json and NEW.json; ${role} is ${shown(text ?? '')}`);
  }
  return text;
}

export async function compareCommand(args: CompareArgs, context: CommandContext): Promise<number> {
  const pct = args['fail-on-regression'];
  const names = { base: reportPath('BASE', args.base), new: reportPath('NEW', args.new) };
  const comparison = compareReports(
    readBenchReport('BASE', names.base),
    readBenchReport('NEW', names.new),
    pct,
  );
  // Made once every input is known good, as --reports is: a refused comparison leaves no folder behind.
  const junit = args.junit === undefined ? undefined : junitFile(args.junit, context.label('junit'));
  process.stdout.write(
    args.json
      ? `${JSON.stringify({ base: names.base, new: names.new, ...comparison }, null, 2)}\n`
      : renderComparisonMarkdown(comparison, names),
  );
  publishResults(junit, comparisonJunit(comparison), comparison.regressions === 0);
  return comparison.regressions > 0 ? EXIT.expectationFailed : EXIT.ok;
}

export const COMPARE = defineCommand({
  name: 'compare',
  describe: 'compare two bench reports: throughput NEW ÷ BASE per series, with a 95% interval and a verdict',
  options: OPTIONS,
  run: compareCommand,
});
