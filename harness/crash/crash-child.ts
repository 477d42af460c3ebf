/**
 * A separate Node process that runs one strategy operation on its own connection and, at the named pause
 * point, prints a stage line and waits — to be killed with SIGKILL by the parent (seed C28-09/C28-11). Its
 * work is exactly as far as the pause point: nothing after it ever runs.
 */
import pg from 'pg';
import type { PausePoint } from '../../strategies/contract.ts';
import { sessionOptions } from '../driver/client-task.ts';
import { importStrategy } from '../registry/registry.ts';
import { type CrashOrder, DONE_PREFIX, STAGE_PREFIX } from './crash-order.ts';

const order = await new Promise<CrashOrder>((resolve) =>
  process.once('message', (m) => resolve(m as CrashOrder)),
);
// Nothing more comes over the channel; an open one would keep the process alive after its work is done.
process.disconnect?.();
const strategy = await importStrategy(order.strategyModuleUrl);
const client = new pg.Client({
  connectionString: order.connectionString,
  application_name: order.applicationName,
  options: sessionOptions(order),
});
await client.connect();
const pause = async (point: PausePoint): Promise<void> => {
  if (point !== order.crashAt) return;
  process.stdout.write(`${STAGE_PREFIX}${point}\n`);
  // Never resumes; the open connection keeps the process alive until the parent kills it.
  await new Promise<never>(() => undefined);
};
const pausesAt = (point: PausePoint): boolean => point === order.crashAt;
const { operation } = order;
let result: unknown;
if (operation === 'expire') {
  if (!strategy.expire) throw new Error(`${strategy.id} has no expire`);
  result = await strategy.expire({ db: client, pause, pausesAt });
} else {
  result = await strategy.reserve({ db: client, pause, pausesAt, node: operation.node }, operation.reserve);
}
process.stdout.write(`${DONE_PREFIX}${JSON.stringify(result)}\n`);
await client.end();
