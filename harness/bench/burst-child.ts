/**
 * One process of a burst: it takes its order over the IPC channel (the connection string never goes in
 * argv, where `ps` would show its password), runs it (burst-order.ts) and sends every request's record
 * back over the channel.
 */
import { oneLine } from '../errors.ts';
import { runBurstOrder } from './burst-order.ts';
import type { BurstOrder, BurstRecord } from './burst-task.ts';

export type BurstChildReply = { records: BurstRecord[] } | { error: string };

const order = await new Promise<BurstOrder>((resolve) =>
  process.once('message', (m) => resolve(m as BurstOrder)),
);
const reply: BurstChildReply = await runBurstOrder(order).then(
  (shares) => ({ records: shares.flatMap((s) => s.records) }),
  (error: unknown) => ({ error: oneLine(error) }),
);
process.send?.(reply, () => process.disconnect?.());
