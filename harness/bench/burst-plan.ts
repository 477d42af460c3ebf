/**
 * How a burst of N requests maps onto processes, threads and connections. The embedded server cannot give
 * 10,000 clients a connection each (max_connections), so a burst has a fixed pool of connections, as a
 * service in front of the database has: by default min(N, 150), the flash-sale lab's cap for direct
 * database threads under max_connections 200. The connections are dealt over the processes, each
 * process's over its threads (one share each, at most one thread per connection), and the requests over
 * the processes and then their shares in turn; every share is a node of its own for the designs that keep
 * one.
 */
import { nodeIdentity } from '../driver/node-identity.ts';
import type { BurstOrder, BurstShareSpec } from './burst-task.ts';

/** The flash-sale lab's bound on threads talking to the database directly, under max_connections 200. */
export const DEFAULT_BURST_CONNECTIONS = 150;
/** Requests one process holds before the burst spreads over another (beyond it, several processes). */
export const REQUESTS_PER_PROCESS = 2_500;

export interface BurstLayout {
  requests: number;
  /** Server connections of the whole burst, all processes together. */
  connections: number;
  processes: number;
  /** Worker threads a process runs at most. */
  threads: number;
}

export function burstLayout(
  requests: number,
  given: { connections?: number | undefined; processes?: number | undefined; threads: number },
): BurstLayout {
  const connections = Math.min(requests, given.connections ?? DEFAULT_BURST_CONNECTIONS);
  const processes = Math.min(connections, given.processes ?? Math.ceil(requests / REQUESTS_PER_PROCESS));
  return { requests, connections, processes, threads: given.threads };
}

/** `total` dealt over `parts`: the first `total mod parts` get one more. */
const dealt = (total: number, parts: number) =>
  Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));

/** The shares of every process, in process order; `schema` names the nodes. */
export function planShares(layout: BurstLayout, schema: string): BurstShareSpec[][] {
  const perProcess = dealt(layout.connections, layout.processes).map((c) => ({
    connections: dealt(c, Math.min(layout.threads, c)),
  }));
  const shareCount = perProcess.reduce((n, p) => n + p.connections.length, 0);
  let next = 0;
  const shares = perProcess.map((p) =>
    p.connections.map((connections): BurstShareSpec => {
      const share = next++;
      return { share, node: nodeIdentity(schema, share, shareCount), connections, requests: [] };
    }),
  );
  for (let request = 0; request < layout.requests; request++) {
    const process = shares[request % layout.processes] ?? [];
    const k = Math.floor(request / layout.processes);
    process[k % process.length]?.requests.push(request);
  }
  return shares;
}

/** One order per process: what they share, and their own shares. */
export function burstOrders(
  layout: BurstLayout,
  schema: string,
  common: Omit<BurstOrder, 'shares'>,
): BurstOrder[] {
  return planShares(layout, schema).map((shares) => ({ ...common, shares }));
}
