/**
 * The bench's worker threads (one per core unless told otherwise): each runs the closed-loop clients of
 * one node. Kept apart from the scenario driver's pool so that neither imports the other.
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { BenchTask, BenchThreadResult } from './bench-task.ts';

const WORKER_URL = new URL('./bench-worker-entry.js', import.meta.url).href;

export class BenchPool {
  private readonly pool: Piscina;
  readonly threads: number;

  constructor(threads = availableParallelism()) {
    this.threads = Math.max(1, threads);
    this.pool = new Piscina({ filename: WORKER_URL, minThreads: this.threads, maxThreads: this.threads });
  }

  run(task: BenchTask): Promise<BenchThreadResult> {
    return this.pool.run(task) as Promise<BenchThreadResult>;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
