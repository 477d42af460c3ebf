/**
 * The worker-thread driver: virtual clients on worker threads, so the driver's own event loop is not what
 * holds a lock longer (a single busy loop fell well short of pgbench on the same transaction;
 * docs/bench.md#yardstick measures the driver against pgbench). The nodes the clients talk to are the
 * scenario's; the threads (one per core unless told) only schedule them: node k runs on thread k mod
 * threads, in every drive of a case, so a design's per-node memory stays in one place whatever the machine.
 * The bench has a pool of its own (bench/bench-pool.ts).
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { NodeIdentity, PausePoint } from '../../../../strategies/contract.ts';
import { SharedBarrier } from '../../../driver/barrier.ts';
import type { CaseConnection } from '../../../driver/case-connection.ts';
import { nodeIdentity } from '../../../driver/node-identity.ts';
import type { ClientResult, ClientScript, ClientTask } from './client-task.ts';

const WORKER_URL = new URL('./client-worker-entry.js', import.meta.url).href;

export interface DriveOptions {
  strategyModuleUrl: string;
  /** A module whose `importDesign(moduleUrl)` loads and checks the strategy (its contract's registry). */
  strategyImporter: string;
  connection: CaseConnection;
  clients: ClientScript[];
  /** How many nodes the clients are spread over: client i talks to node i mod `nodes` unless it is bound. */
  nodes: number;
  holdAt?: PausePoint;
  /**
   * Every client sends its last request only once this settles (the fault the scenario causes has come),
   * so however fast the others run, no client is done before it: each meets the fault. A client of one
   * request sends nothing before.
   */
  lastAfter?: Promise<unknown>;
  timeoutMs: number;
  /** Paused while this drive waits for the drive before it to end (the case's deadline, case-deadline.ts). */
  queueClock?: QueueClock;
}

/** A clock that must not run while a drive waits for its turn: that time is another drive's. */
export interface QueueClock {
  pause(): void;
  resume(): void;
}

/**
 * What a case drives its clients with: this pool of worker threads, or the main-thread driver of a black
 * box (a contract's `run --target` driver), which has no database session to give a worker.
 */
export interface ClientDriver {
  drive(options: DriveOptions): Promise<ClientResult[]>;
  close(): Promise<void>;
}

export class ClientPool implements ClientDriver {
  /**
   * One single-thread pool per thread: a task sent to a shared pool lands on whichever thread is free,
   * and a node whose clients moved threads between two drives would lose its memory.
   */
  private readonly threads: Piscina[];
  /**
   * The drive under way: drives take turns. Two drives at once could each hold one thread at its start
   * barrier while waiting for a task queued behind the other's on another thread.
   */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(threads = availableParallelism()) {
    this.threads = Array.from(
      { length: Math.max(1, threads) },
      () => new Piscina({ filename: WORKER_URL, minThreads: 1, maxThreads: 1 }),
    );
  }

  /** Runs every client once to the end, after any drive already under way; ordered by client index. */
  drive(options: DriveOptions): Promise<ClientResult[]> {
    options.queueClock?.pause();
    const driven = this.turn.then(() => {
      options.queueClock?.resume();
      return this.driveNow(options);
    });
    this.turn = driven.catch(() => undefined);
    return driven;
  }

  private async driveNow(options: DriveOptions): Promise<ClientResult[]> {
    const parties = options.clients.length;
    const start = SharedBarrier.create(parties);
    const hold = options.holdAt ? SharedBarrier.create(parties) : undefined;
    // The harness is the gate's last party: it arrives when `lastAfter` settles, however it settles.
    const lastGate = options.lastAfter ? SharedBarrier.create(parties + 1) : undefined;
    if (lastGate) {
      const open = () => lastGate.leave();
      options.lastAfter?.then(open, open);
    }
    const onThread: ClientScript[][] = this.threads.map(() => []);
    for (const client of options.clients) {
      const node: NodeIdentity =
        client.node ?? nodeIdentity(options.connection.schema, client.index % options.nodes, options.nodes);
      onThread[node.index % this.threads.length]?.push({ ...client, node });
    }
    const tasks = this.threads.flatMap((thread, t) => {
      const clients = onThread[t] ?? [];
      if (clients.length === 0) return [];
      const task: ClientTask = {
        strategyModuleUrl: options.strategyModuleUrl,
        strategyImporter: options.strategyImporter,
        connection: options.connection,
        clients,
        start: { buffer: start.buffer, parties },
        timeoutMs: options.timeoutMs,
        ...(hold && options.holdAt ? { hold: { buffer: hold.buffer, parties, point: options.holdAt } } : {}),
        ...(lastGate ? { lastGate: { buffer: lastGate.buffer, parties: parties + 1 } } : {}),
      };
      return [thread.run(task) as Promise<ClientResult[]>];
    });
    const results = (await Promise.all(tasks)).flat();
    return results.sort((a, b) => a.index - b.index);
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.destroy()));
  }
}
