/**
 * `reservebench report RUN.json [BENCH.json…]`: saved reports read again, nothing rerun — a run's matrix
 * and boundary table and each bench's tables on the terminal, the scorecard joining them (one row per
 * design: scenarios held, where it breaks, throughput and p99 per client count, what durable commits cost),
 * and every report re-rendered (report.md, report.html, a bench's CSV and charts) beside scorecard.md and
 * scorecard.html in `<reports>/<stamp>-scorecard/`, refreshed as `latest-scorecard/`. A report from CI is
 * read this way without its run.
 */
import { defineCommand } from '../command-definition.ts';
import { REPORT_OPTIONS } from './report-options.ts';

export const REPORT = defineCommand({
  name: 'report',
  describe:
    'saved run and bench reports read again: their tables, a scorecard joining them, re-rendered files',
  options: REPORT_OPTIONS,
  // Its work, and the packages it does it with, load only when it runs: not for --help or a mistyped option.
  run: async (args, context) => (await import('./report-action.ts')).reportCommand(args, context),
});
