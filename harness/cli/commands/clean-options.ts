/**
 * The options of `reservebench clean`, declared once (command-definition.ts), apart from its work
 * (clean-action.ts): every start reads them, the work's modules load only when the command runs.
 */

import { flag, type ParsedOf } from '../command-definition.ts';

export const CLEAN_OPTIONS = { 'dry-run': flag('only list what would be removed') };

export type CleanArgs = ParsedOf<typeof CLEAN_OPTIONS>;
