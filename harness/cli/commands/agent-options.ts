/**
 * The options of `reservebench agent`, declared once (command-definition.ts), apart from its work
 * (agent-action.ts): every start reads them, the work's modules load only when the command runs.
 */

import { Errors } from '../../errors.ts';
import { shown } from '../cli-arguments.ts';
import type { ParsedOf } from '../command-definition.ts';
import { integer, parsed } from '../option-types.ts';
import { databaseOption } from './shared-options.ts';

/** A run database's name, as the suite makes them. */
const RUN_DATABASE = /^reservebench_[a-z0-9_]+$/;

function readRun(run: string, label: string): string {
  if (!RUN_DATABASE.test(run)) {
    throw Errors.badInput(`${label} takes a run database's name (reservebench_…), got ${shown(run)}`);
  }
  return run;
}

export const AGENT_OPTIONS = {
  ...databaseOption("the bench's server: the agent's clients connect as this URL says"),
  run: parsed("the bench's run database on that server, as the bench printed it", {
    form: 'NAME',
    absent: "the URL's database",
    read: readRun,
  }),
  threads: integer('worker threads for its clients', {
    min: 1,
    max: 64,
    absent: 'one per core of this host',
  }),
};

export type AgentArgs = ParsedOf<typeof AGENT_OPTIONS>;
