/**
 * `reservebench agent`: a load agent for `bench --agents` (docs/scale.md). It reaches the bench's run
 * database on the server `--database-url` (or DATABASE_URL) names, database `--run` (else the URL's own),
 * and runs its share of every trial there until the bench is done.
 */
import { defineCommand } from '../command-definition.ts';
import { AGENT_OPTIONS } from './agent-options.ts';

export const AGENT = defineCommand({
  name: 'agent',
  describe: 'a load agent for `bench --agents`: runs its share of every trial against the bench’s database',
  options: AGENT_OPTIONS,
  // Its work, and the packages it does it with, load only when it runs: not for --help or a mistyped option.
  run: async (args, context) => (await import('./agent-action.ts')).agentCommand(args, context),
});
