/**
 * The bench's side of a burst over load agents: one burst process's order per agent (burst-plan.ts deals
 * request i to order i mod N, so to agent i mod N), posted through the exchange in place of a child
 * process. The bench's release and measures stay as they are; the agents' records come back on the
 * server's clock (agent-burst.ts), so the bench takes its release instant on that clock too. Beside the
 * records, each agent's own figures: its requests and units, and its process's CPU over the order.
 */
import type { Durability } from '../../database/durability.ts';
import { BURST_APPLICATION_PREFIX, type BurstOrder, type BurstRecord } from '../burst-task.ts';
import type { AgentBurstResult } from './agent-burst.ts';
import { isClientBound } from './agent-figures.ts';
import { type AgentSession, endAgentSessions } from './agent-session.ts';
import type { AgentBurstTask, AgentDesign } from './agent-task.ts';

/** One agent's part of one burst. */
export interface BurstAgentFigure {
  /** 1-based: request i went to agent (i mod N) + 1. */
  agent: number;
  host: string;
  pid: number;
  cores: number;
  threads: number;
  requests: number;
  held: number;
  /** CPU time ÷ wall time of its process over its whole order (connecting included), in cores. */
  generatorCores: number;
  clientBound: boolean;
}

/** The burst as run.ts's child processes look to it: records, whether one ended early, and a stop. */
export interface AgentBurstRun {
  records: Promise<BurstRecord[]>;
  figures: Promise<BurstAgentFigure[]>;
  ended(): Promise<boolean>;
  /** Why it ended early, once ended() said so: an agent gone, or one that reported an error. */
  why(): string | undefined;
  stop(): Promise<void>;
}

function figureOf(result: AgentBurstResult, slot: number): BurstAgentFigure {
  return {
    agent: slot + 1,
    host: result.host,
    pid: result.pid,
    cores: result.cores,
    threads: result.threads,
    requests: result.records.length,
    held: result.records.filter((r) => r.outcome === 'HELD').length,
    generatorCores: result.generatorCores,
    clientBound: isClientBound(result.generatorCores),
  };
}

export function startAgentBurst(
  session: AgentSession,
  orders: readonly BurstOrder[],
  burst: { label: string; design: AgentDesign; schema: string; durability: Durability; timeoutMs: number },
): AgentBurstRun {
  const { timeoutMs, ...common } = burst;
  const tasks = orders.map(
    ({ connection: _c, strategyModuleUrl: _m, ...order }): AgentBurstTask => ({
      kind: 'burst',
      ...common,
      order,
    }),
  );
  let posted: number | undefined;
  let why: string | undefined;
  const results = session.post(tasks).then((id) => {
    posted = id;
    return session.results<AgentBurstResult>(id, timeoutMs, 'after the release');
  });
  results.catch(() => undefined);
  return {
    records: results.then((parts) => parts.flatMap((p) => p.records)),
    figures: results.then((parts) => parts.map(figureOf)),
    ended: async () => {
      why = posted === undefined ? undefined : await session.trouble(posted);
      return why !== undefined;
    },
    why: () => why,
    // Whatever is left of the burst's sessions once the bench stops waiting (none after a burst that
    // answered in full) is ended before the bench drops the burst's tables.
    stop: () => endAgentSessions(session.db, BURST_APPLICATION_PREFIX),
  };
}
