/**
 * The options of `reservebench spec`, declared once (command-definition.ts), apart from its work
 * (spec-action.ts): every start reads them, the work's modules load only when the command runs.
 */

import { type ParsedOf, positional } from '../command-definition.ts';
import { text } from '../option-types.ts';
import { databaseOption, timeoutOption } from './shared-options.ts';

export const SPEC_OPTIONS = {
  file: positional('the .spec file', 'required'),
  expected: text('compare the output with this .out file instead; exit 1 with a diff when they differ', {
    form: 'FILE',
    blank: 'must name a file',
  }),
  ...databaseOption(),
  ...timeoutOption('longest a step may neither complete nor block, or stay blocked'),
};

export type SpecArgs = ParsedOf<typeof SPEC_OPTIONS>;
