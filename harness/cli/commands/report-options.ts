/**
 * The options of `reservebench report`, declared once (command-definition.ts), apart from its work
 * (report-action.ts): every start reads them, the work's modules load only when the command runs.
 */

import { flag, type ParsedOf, positional } from '../command-definition.ts';
import { reportsOption } from './shared-options.ts';

export const REPORT_OPTIONS = {
  files: positional('saved report.json files: at most one of `run`, any of `bench`', 'required', 'variadic'),
  ...reportsOption('<stamp>-scorecard/ and latest-scorecard/'),
  json: flag('print the scorecard rows as JSON, no tables'),
};

export type ReportArgs = ParsedOf<typeof REPORT_OPTIONS>;
