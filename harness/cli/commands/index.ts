/** Every command of `reservebench`, in the order `--help` lists them. */
import type { CommandDefinition } from '../command-definition.ts';
import { AGENT } from './agent-command.ts';
import { BENCH } from './bench-command.ts';
import { CLEAN } from './clean-command.ts';
import { COMPARE } from './compare-command.ts';
import { EXPLORE } from './explore-command.ts';
import { INIT } from './init-command.ts';
import { LIST } from './list-command.ts';
import { REPORT } from './report-command.ts';
import { RUN } from './run-command.ts';
import { SERVE } from './serve-command.ts';
import { SPEC } from './spec-command.ts';
import { SQL } from './sql-command.ts';

export const COMMANDS: readonly CommandDefinition[] = [
  RUN,
  EXPLORE,
  BENCH,
  SERVE,
  AGENT,
  LIST,
  SPEC,
  CLEAN,
  COMPARE,
  REPORT,
  INIT,
  SQL,
];
