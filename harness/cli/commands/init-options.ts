/**
 * The options of `reservebench init`, declared once (command-definition.ts), apart from its work
 * (init-action.ts): every start reads them, the work's modules load only when the command runs.
 */

import { flag, type ParsedOf } from '../command-definition.ts';
import { text } from '../option-types.ts';

export const INIT_OPTIONS = {
  from: text('the built-in design to start from, one that holds', { form: 'ID', default: 'hot-row' }),
  design: text('the design file to write', {
    form: 'FILE',
    blank: 'must name a file',
    default: 'my-design.ts',
  }),
  workflow: text('the workflow file to write', {
    form: 'FILE',
    blank: 'must name a file',
    default: '.github/workflows/reservebench.yml',
  }),
  force: flag('overwrite the files if they exist'),
};

export type InitArgs = ParsedOf<typeof INIT_OPTIONS>;
