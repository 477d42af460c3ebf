/**
 * The load agents' table, for report.md and the terminal alike: per series and agent where it ran, what
 * it served, what it dropped and how busy it was — beside the merged series above it, so a reader sees
 * whether an agent, not the design, was the limit.
 */

import type { BurstAgentFigure } from '../../bench/agents/agent-bursts.ts';
import type { AgentSeriesFigure } from '../../bench/agents/agent-figures.ts';
import { CLIENT_BOUND_CORES } from '../../bench/saturation.ts';

/** What the table needs of a series. */
interface AgentSeries {
  strategy: string;
  clients: number;
  durability: 'on' | 'off';
  open?: { rate: number };
  agents?: AgentSeriesFigure[];
}

export const AGENT_HEADERS = [
  'series',
  'agent',
  'host',
  'clients',
  'answers (count)',
  'dropped arrivals (count)',
  'generator (cores, median)',
  'client-bound',
  'p50 (ms, median)',
  'p99 (ms, median)',
];

export const AGENT_TERMINAL_HEADERS = [
  'series',
  'agent',
  'host',
  'clients',
  'answers',
  'dropped',
  'cores',
  'bound',
  'p50',
  'p99',
];

const seriesName = (e: AgentSeries) =>
  `${e.strategy}${e.durability === 'off' ? ' (not durable)' : ''}${e.open ? ` @ ${e.open.rate}/s` : ''} × ${e.clients}`;

/** One row per series and agent, in AGENT_HEADERS' order; none without agents. */
export function agentRows(bench: readonly AgentSeries[]): string[][] {
  return bench.flatMap((e) =>
    (e.agents ?? []).map((a) => [
      seriesName(e),
      String(a.agent),
      a.host,
      String(a.clients),
      String(a.requests),
      String(a.dropped),
      String(a.generatorCores),
      a.clientBound ? 'yes' : 'no',
      String(a.p50),
      String(a.p99),
    ]),
  );
}

export const AGENT_NOTE = `Each series ran on load agents (\`bench --agents\`): client i and arrival i went to agent (i mod N) + 1, every agent released at one instant by a lock on the server. The series' figures are the agents' merged — counts summed, latency histograms added bucket for bucket (percentiles are never averaged) — and each agent's own are here: its answers, the arrivals it had to drop (no client of its free within the grace), the CPU of its process over its window and its own percentiles. An agent that used ≥ ${CLIENT_BOUND_CORES} core is client-bound: the generator, not the design, may have been the limit; the series' generator cores are its busiest agent's.`;

/** What the burst table needs of a burst row. */
interface AgentBurst {
  strategy: string;
  requests: number;
  durability: 'on' | 'off';
  agents?: BurstAgentFigure[];
}

export const BURST_AGENT_HEADERS = [
  'burst',
  'agent',
  'host',
  'threads',
  'requests (count)',
  'held (units)',
  'generator (cores)',
  'client-bound',
];

/** One row per burst and agent, in BURST_AGENT_HEADERS' order; none without agents. */
export function burstAgentRows(burst: readonly AgentBurst[]): string[][] {
  return burst.flatMap((b) =>
    (b.agents ?? []).map((a) => [
      `${b.strategy}${b.durability === 'off' ? ' (not durable)' : ''} burst ${b.requests}`,
      String(a.agent),
      a.host,
      String(a.threads),
      String(a.requests),
      String(a.held),
      String(a.generatorCores),
      a.clientBound ? 'yes' : 'no',
    ]),
  );
}

export const BURST_AGENT_NOTE = `Each burst ran on load agents (\`bench --burst --agents\`), each one process of the burst: request i went to agent (i mod N) + 1, every share of every agent released at one instant by a lock on the server, every record measured from it on the server's clock. Each agent's own part is here: its requests, the units they got, and the CPU of its process over its whole order, connecting included (≥ ${CLIENT_BOUND_CORES} core: client-bound).`;
