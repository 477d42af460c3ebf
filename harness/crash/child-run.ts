/**
 * What a crash child does with its order, however it was started (crash-child.ts through tsx, or a bundle
 * of it with its design, child-bundle.ts): one operation on its own connection — a reservation strategy's
 * reserve, confirm or expire, or a payment design's pay — and, at the named pause point, a stage line, then
 * nothing until the parent's SIGKILL (seed C28-09/C28-11). Its work is exactly as far as the pause point.
 */
import pg from 'pg';
import type { PausePoint, SessionContext, Strategy } from '../../strategies/contract.ts';
import type { PaymentDesign } from '../../strategies/payment/contract.ts';
import { sessionOptions } from '../driver/client-task.ts';
import { type CrashOrder, DONE_PREFIX, STAGE_PREFIX } from './crash-order.ts';

/** How the child gets the design its order names (by the module's URL, a variant's knobs in it). */
export interface ChildDesigns {
  strategy(moduleUrl: string): Promise<Strategy>;
  paymentDesign(moduleUrl: string): Promise<PaymentDesign>;
}

async function operate(order: CrashOrder, designs: ChildDesigns, session: SessionContext): Promise<unknown> {
  if (order.contract === 'payment')
    return (await designs.paymentDesign(order.moduleUrl)).pay(session, order.operation.pay);
  const strategy = await designs.strategy(order.moduleUrl);
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

export async function runCrashChild(designs: ChildDesigns): Promise<void> {
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
  // Idle at its pause until it is killed: a server that ends the session first must not end the child.
  client.on('error', () => undefined);
  await client.connect();
  const pause = async (point: PausePoint): Promise<void> => {
    if (point !== order.crashAt) return;
    process.stdout.write(`${STAGE_PREFIX}${point}\n`);
    // Never resumes; the open connection keeps the process alive until the parent kills it.
    await new Promise<never>(() => undefined);
  };
  const session: SessionContext = { db: client, pause, pausesAt: (point) => point === order.crashAt };
  const result = await operate(order, designs, session);
  process.stdout.write(`${DONE_PREFIX}${JSON.stringify(result)}\n`);
  await client.end();
}
