/** What `reservebench compare` does (its options: compare-options.ts), imported only when it runs. */

import { Errors, EXIT } from '../../errors.ts';
import { compareReports, readBenchReport, renderComparisonMarkdown } from '../../report/bench/compare.ts';
import { comparisonJunit } from '../../report/bench/compare-junit.ts';
import { publishResults } from '../ci-results.ts';
import { junitFile, shown } from '../cli-arguments.ts';
import type { CommandContext } from '../command-definition.ts';
import type { CompareArgs } from './compare-options.ts';

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
