/**
 * An agent's side of a burst: the order the bench posted, run as one burst process runs it (burst-order.ts:
 * its shares in worker threads, each waiting on the bench's release lock), its process's CPU metered over
 * the whole order. Its records go back on the server's clock — each share read the server's time in the
 * statement that was granted the lock — so that the bench measures every agent's requests from its own
 * release on one clock, whichever host's clock they were taken on.
 */
import { availableParallelism, hostname } from 'node:os';
import { runBurstOrder } from '../burst-order.ts';
import type { BurstRecord, ShareResult } from '../burst-task.ts';
import { meterWindow } from '../saturation.ts';
import { type AgentBurstTask, localModuleUrl } from './agent-task.ts';

export interface AgentBurstResult {
  host: string;
  pid: number;
  cores: number;
  /** Its worker threads, one share each. */
  threads: number;
  /** Its process's CPU over the whole order, connecting included, in cores. */
  generatorCores: number;
  /** Every request it sent; times in ms since the epoch on the server's clock. */
  records: BurstRecord[];
}

/** A share's records moved from its process's clock onto the server's, through the instant of its grant. */
export function onServerClock({ records, release }: ShareResult): BurstRecord[] {
  const shift = release.serverMs - release.grantedAt;
  return records.map((r) => ({ ...r, arrivedAt: r.arrivedAt + shift, answeredAt: r.answeredAt + shift }));
}

export async function runAgentBurst(
  task: AgentBurstTask,
  connectionString: string,
): Promise<AgentBurstResult> {
  const endWindow = meterWindow(undefined);
  const shares = await runBurstOrder({
    ...task.order,
    strategyModuleUrl: localModuleUrl(task.design),
    connection: { connectionString, schema: task.schema, settings: { synchronous_commit: task.durability } },
  });
  return {
    host: hostname(),
    pid: process.pid,
    cores: availableParallelism(),
    threads: shares.length,
    generatorCores: endWindow().generatorCores,
    records: shares.flatMap(onServerClock),
  };
}
