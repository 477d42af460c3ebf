/**
 * `bench --agents N [--agents-external]`: what the declarations cannot check, checked before anything
 * starts — agents on other hosts need a server they reach, and each agent needs a client (a series whose
 * clients share keys in pairs: a pair; a burst: a connection) of every series. A gate per agent process (N × LIMIT inside) is
 * refused by the declarations themselves (bench-options.ts).
 */
import type { AgentsSettings } from '../bench/agents/agent-session.ts';
import { Errors } from '../errors.ts';

/** Agents one bench splits its series over at most. */
export const MAX_AGENTS = 64;

export interface AgentArgs {
  agents: number | undefined;
  'agents-external': boolean;
}

export function agentsFrom(
  args: AgentArgs,
  context: {
    clients: readonly number[];
    pairs: boolean;
    databaseUrl: string | undefined;
    threads?: number | undefined;
  },
): AgentsSettings | undefined {
  const { agents } = args;
  if (agents === undefined) return undefined;
  if (args['agents-external'] && context.databaseUrl === undefined) {
    throw Errors.badInput(
      '--agents-external needs --database-url (or DATABASE_URL): agents on other hosts cannot reach the embedded server',
    );
  }
  const fewest = Math.min(...context.clients);
  const units = context.pairs ? Math.ceil(fewest / 2) : fewest;
  if (units < agents) {
    throw Errors.badInput(
      `--agents ${agents} needs at least ${context.pairs ? `${agents} pairs (${2 * agents - 1} clients)` : `${agents} clients`} in every series, and --clients ${fewest} has ${units}`,
    );
  }
  return {
    agents,
    external: args['agents-external'],
    threads: context.threads,
    say: (line) => process.stderr.write(`${line}\n`),
  };
}
