/**
 * `reservebench sql [KEPT] [--command SQL]`: a way into what a run kept that works on a fresh machine (psql
 * does not come with the embedded server, and the kept server is stopped with a password printed nowhere).
 * KEPT names a kept run by its data directory or run database (`reservebench clean --dry-run` lists them);
 * a kept embedded server is started on a free port for the session and stopped after it. SQL comes from
 * `--command`, from stdin when it is not a terminal, or from a prompt (statements end with `;`).
 */
import { defineCommand } from '../command-definition.ts';
import { SQL_OPTIONS } from './sql-options.ts';

export const SQL = defineCommand({
  name: 'sql',
  describe:
    'open what a run kept (a failing run, or --keep): start its embedded server again and run SQL on its run database',
  options: SQL_OPTIONS,
  // Its work, and the packages it does it with, load only when it runs: not for --help or a mistyped option.
  run: async (args) => (await import('./sql-action.ts')).sqlCommand(args),
});
