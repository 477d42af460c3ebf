/**
 * One seeded series split over N load agents: client i (a payment series: pair i) and arrival i go to
 * agent i mod N, as k6's execution segments cut one schedule between instances without either drawing
 * its own; inside agent k each of its T threads takes every T-th of the agent's clients and arrivals. The
 * nodes a memory design counts are the threads of every agent together, numbered agent after agent. Pure,
 * so that the split can be checked without a process.
 */
import type { NodeIdentity } from '../../../strategies/contract.ts';
import { nodeIdentity } from '../../driver/node-identity.ts';
import type { BenchContract } from '../bench-task.ts';
import { clientUnit, dealClients } from '../run-bench.ts';

/** One worker thread of an agent: its clients, its node, and in the open model its arrivals. */
export interface AgentThreadPlan {
  clients: number[];
  node: NodeIdentity;
  /** Every `stride`-th arrival of the series from `first` on (shareOfArrivals). */
  arrivals: { first: number; stride: number };
}

export interface AgentShare {
  /** 0-based: the agent's slot. */
  slot: number;
  threads: AgentThreadPlan[];
}

/** The series' clients (payment pairs whole) dealt to the agents in turn: agent k gets units ≡ k mod N. */
export function agentClients(contract: BenchContract, clients: number, agents: number): number[][] {
  const unit = clientUnit(contract);
  const all = Array.from({ length: clients }, (_, i) => i);
  return Array.from({ length: agents }, (_, k) => all.filter((i) => unit(i) % agents === k));
}

/**
 * Every agent's share of a series of `clients` clients on `schema`'s tables; `agentThreads[k]` is how many
 * threads agent k offers. An agent uses at most one thread per client unit; each agent needs one at least.
 */
export function planAgentShares(
  contract: BenchContract,
  clients: number,
  schema: string,
  agentThreads: readonly number[],
): AgentShare[] {
  const agents = agentThreads.length;
  const dealt = agentClients(contract, clients, agents).map((mine, k) =>
    dealClients(contract, mine, agentThreads[k] ?? 1),
  );
  const empty = dealt.findIndex((threads) => threads.length === 0);
  if (empty >= 0) throw new Error(`agent ${empty + 1} of ${agents} would have no client`);
  const nodes = dealt.reduce((n, threads) => n + threads.length, 0);
  let node = 0;
  return dealt.map((threads, slot) => ({
    slot,
    threads: threads.map((mine, t) => ({
      clients: mine,
      node: nodeIdentity(schema, node++, nodes),
      arrivals: { first: slot + agents * t, stride: agents * threads.length },
    })),
  }));
}
