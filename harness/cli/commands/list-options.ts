/**
 * The options of `reservebench list`, declared once (command-definition.ts), apart from its work
 * (list-action.ts): every start reads them, the work's modules load only when the command runs.
 */

import { flag, type ParsedOf } from '../command-definition.ts';

export const LIST_OPTIONS = { json: flag("print each contract's designs and scenarios as JSON") };

export type ListArgs = ParsedOf<typeof LIST_OPTIONS>;
