/**
 * One process's part of a burst: each of its shares in a worker thread of its own — all behind one
 * admission gate when the order has one, as one service process has one. Run by a burst's child process
 * (burst-child.ts) and by a load agent (agents/agent-burst.ts) alike.
 */
import { Piscina } from 'piscina';
import { Admission } from '../gate/admission.ts';
import type { BurstOrder, BurstShareTask, ShareResult } from './burst-task.ts';

const WORKER_URL = new URL('./burst-worker-entry.js', import.meta.url).href;

export async function runBurstOrder(order: BurstOrder): Promise<ShareResult[]> {
  const { shares, admission, ...common } = order;
  const gate = admission && { buffer: Admission.createBuffer(admission.limit), settings: admission };
  const pool = new Piscina({ filename: WORKER_URL, minThreads: shares.length, maxThreads: shares.length });
  try {
    const tasks = shares.map(
      (spec): BurstShareTask => ({ ...common, spec, ...(gate ? { admission: gate } : {}) }),
    );
    return await Promise.all(tasks.map((task) => pool.run(task) as Promise<ShareResult>));
  } finally {
    await pool.destroy();
  }
}
