/**
 * One process of a burst: it takes its order over the IPC channel (the connection string never goes in
 * argv, where `ps` would show its password), runs each of its shares in a worker thread of its own — all
 * behind one admission gate when the order has one, as one service process has one — and sends every
 * request's record back over the channel.
 */
import { Piscina } from 'piscina';
import { oneLine } from '../errors.ts';
import { Admission } from '../gate/admission.ts';
import type { BurstOrder, BurstRecord, BurstShareTask } from './burst-task.ts';

const WORKER_URL = new URL('./burst-worker-entry.js', import.meta.url).href;

export type BurstChildReply = { records: BurstRecord[] } | { error: string };

async function runOrder(order: BurstOrder): Promise<BurstRecord[]> {
  const { shares, admission, ...common } = order;
  const gate = admission && { buffer: Admission.createBuffer(admission.limit), settings: admission };
  const pool = new Piscina({ filename: WORKER_URL, minThreads: shares.length, maxThreads: shares.length });
  try {
    const tasks = shares.map(
      (spec): BurstShareTask => ({ ...common, spec, ...(gate ? { admission: gate } : {}) }),
    );
    const records = await Promise.all(tasks.map((task) => pool.run(task) as Promise<BurstRecord[]>));
    return records.flat();
  } finally {
    await pool.destroy();
  }
}

const order = await new Promise<BurstOrder>((resolve) =>
  process.once('message', (m) => resolve(m as BurstOrder)),
);
const reply: BurstChildReply = await runOrder(order).then(
  (records) => ({ records }),
  (error: unknown) => ({ error: oneLine(error) }),
);
process.send?.(reply, () => process.disconnect?.());
