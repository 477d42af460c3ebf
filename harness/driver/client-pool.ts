/**
 * The worker-thread driver: virtual clients spread round-robin over a piscina pool sized from the cores,
 * so the driver's own event loop is not what holds a lock longer (a single busy loop measured 0.56–0.80×
 * pgbench on the same transaction). The bench has a pool of its own (bench/bench-pool.ts).
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { PausePoint } from '../../strategies/contract.ts';
import { SharedBarrier } from './barrier.ts';
import type { CaseConnection, ClientResult, ClientScript, ClientTask } from './client-task.ts';
import { nodeIdentity } from './node-identity.ts';

const WORKER_URL = new URL('./client-worker-entry.js', import.meta.url).href;

export interface DriveOptions {
  strategyModuleUrl: string;
  connection: CaseConnection;
  clients: ClientScript[];
  holdAt?: PausePoint;
  timeoutMs: number;
}

/**
 * What a case drives its clients with: this pool of worker threads, or the main-thread driver of a black
 * box (harness/blackbox/black-box-driver.ts), which has no database session to give a worker.
 */
export interface ClientDriver {
  drive(options: DriveOptions): Promise<ClientResult[]>;
  close(): Promise<void>;
}

export class ClientPool implements ClientDriver {
  private readonly pool: Piscina;
  readonly threads: number;

  constructor(threads = availableParallelism()) {
    this.threads = Math.max(1, threads);
    this.pool = new Piscina({
      filename: WORKER_URL,
      minThreads: this.threads,
      maxThreads: this.threads,
    });
  }

  /** Runs every client once to the end; results come back ordered by client index. */
  async drive(options: DriveOptions): Promise<ClientResult[]> {
    const parties = options.clients.length;
    const start = SharedBarrier.create(parties);
    const hold = options.holdAt ? SharedBarrier.create(parties) : undefined;
    const groups: ClientScript[][] = Array.from({ length: Math.min(this.threads, parties) }, () => []);
    // A client bound to a node runs on that node's thread; the others are dealt round-robin.
    for (const [i, client] of options.clients.entries()) {
      groups[(client.node?.index ?? i) % groups.length]?.push(client);
    }
    const tasks = groups.map((group, g) => {
      const node = nodeIdentity(options.connection.schema, g, groups.length);
      const task: ClientTask = {
        strategyModuleUrl: options.strategyModuleUrl,
        connection: options.connection,
        clients: group.map((client) => ({ node, ...client })),
        start: { buffer: start.buffer, parties },
        timeoutMs: options.timeoutMs,
        ...(hold && options.holdAt ? { hold: { buffer: hold.buffer, parties, point: options.holdAt } } : {}),
      };
      return this.pool.run(task) as Promise<ClientResult[]>;
    });
    const results = (await Promise.all(tasks)).flat();
    return results.sort((a, b) => a.index - b.index);
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
