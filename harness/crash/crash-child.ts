/**
 * A separate Node process that runs one operation on its own connection — a reservation strategy's
 * reserve, confirm or expire, or a payment design's pay, as the order says — and, at the named pause
 * point, prints a stage line and waits — to be killed with SIGKILL by the parent (seed C28-09/C28-11). Its
 * work is exactly as far as the pause point: nothing after it ever runs.
 */
import pg from 'pg';
import type { PausePoint, SessionContext } from '../../strategies/contract.ts';
import { sessionOptions } from '../driver/client-task.ts';
import { childPaymentDesign, childStrategy } from './child-design.ts';
import { type CrashOrder, DONE_PREFIX, STAGE_PREFIX } from './crash-order.ts';

const order = await new Promise<CrashOrder>((resolve) =>
  process.once('message', (m) => resolve(m as CrashOrder)),
);
// Nothing more comes over the channel; an open one would keep the process alive after its work is done.
process.disconnect?.();
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
const session: SessionContext = { db: client, pause, pausesAt: (point) => point === order.crashAt };

async function run(): Promise<unknown> {
  if (order.contract === 'payment') {
    return (await childPaymentDesign(order.moduleUrl)).pay(session, order.operation.pay);
  }
  const strategy = await childStrategy(order.moduleUrl);
  const { operation } = order;
  if (operation === 'expire') {
    if (!strategy.expire) throw new Error(`${strategy.id} has no expire`);
    return strategy.expire(session);
  }
  if ('confirm' in operation) {
    if (!strategy.confirm) throw new Error(`${strategy.id} has no confirm`);
    return strategy.confirm(session, operation.confirm);
  }
  return strategy.reserve({ ...session, node: operation.node }, operation.reserve);
}

const result = await run();
process.stdout.write(`${DONE_PREFIX}${JSON.stringify(result)}\n`);
await client.end();
