/**
 * The options of `reservebench compare`, declared once (command-definition.ts), apart from its work
 * (compare-action.ts): every start reads them, the work's modules load only when the command runs.
 */

import { flag, type ParsedOf, positional } from '../command-definition.ts';
import { integer } from '../option-types.ts';
import { junitOption } from './shared-options.ts';

/** Slower by more than this, with 95% confidence, fails `compare` unless told otherwise. */
export const DEFAULT_REGRESSION_PCT = 10;

export const COMPARE_OPTIONS = {
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

export type CompareArgs = ParsedOf<typeof COMPARE_OPTIONS>;
