/**
 * The options of `reservebench sql`, declared once (command-definition.ts), apart from its work
 * (sql-action.ts): every start reads them, the work's modules load only when the command runs.
 */

import { type ParsedOf, positional } from '../command-definition.ts';
import { text } from '../option-types.ts';

export const SQL_OPTIONS = {
  kept: positional('the kept data directory or run database (`clean --dry-run` lists them)', 'optional'),
  command: text('run this SQL and exit', { form: 'SQL', alias: 'c' }),
};

export type SqlArgs = ParsedOf<typeof SQL_OPTIONS>;
