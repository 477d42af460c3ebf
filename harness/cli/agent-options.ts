/**
 * `bench --agents N [--agents-external]`: every value checked before anything starts, and what load
 * agents cannot mean refused in one line — a gate per agent process would admit N × LIMIT (a shared gate
 * is `serve --gate postgres`'s), a burst is not split over agents in this version, and each agent needs
 * a client (a payment series: a pair) of every series.
 */
import type { AgentsSettings } from '../bench/agents/agent-driver.ts';
import { Errors } from '../errors.ts';
import { boundedInteger } from './cli-arguments.ts';

/** Agents one bench splits its series over at most. */
export const MAX_AGENTS = 64;

export interface AgentArgs {
  agents?: unknown;
  'agents-external'?: boolean;
  admission?: unknown;
}

/** A burst is one instant on this host: refused with agents rather than run without them. */
export function refuseAgentsWithBurst(args: AgentArgs): void {
  if (args.agents !== undefined || args['agents-external']) {
    throw Errors.badInput(
      '--agents cannot go with --burst: a burst spreads over processes of this host (--processes)',
    );
  }
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
  const agents = boundedInteger('agents', args.agents, 1, MAX_AGENTS);
  if (agents === undefined) {
    if (args['agents-external']) throw Errors.badInput('--agents-external needs --agents N');
    return undefined;
  }
  if (args.admission !== undefined) {
    throw Errors.badInput(
      '--agents cannot go with --admission: each agent would have a gate of its own (N × LIMIT inside); a shared gate is serve --gate postgres',
    );
  }
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
    external: args['agents-external'] ?? false,
    threads: context.threads,
    say: (line) => process.stderr.write(`${line}\n`),
  };
}
