/**
 * What a crash child does with its order, however it was started (crash-child.ts through tsx, or a bundle
 * of it with its design, child-bundle.ts): one operation of a design on its own connection — the order
 * names the method and its arguments, whatever the contract — and, at the named pause point, a stage line,
 * then nothing until the parent's SIGKILL (the flash-sale lab's kill -9 of the expiry job inside its
 * transaction, and of its split-transaction release between its two transactions). Its work is exactly as
 * far as the pause point.
 */
import pg from 'pg';
import type { PausePoint, SessionContext } from '../../strategies/contract.ts';
import { sessionOptions } from '../driver/case-connection.ts';
import { type CrashDesign, type CrashOrder, DONE_PREFIX, STAGE_PREFIX } from './crash-order.ts';

/** How the child gets the design its order names: its id and its operations. */
export type ChildDesign = (source: CrashDesign) => Promise<{ id: string; [operation: string]: unknown }>;

async function operate(order: CrashOrder, load: ChildDesign, session: SessionContext): Promise<unknown> {
  const design = await load(order);
  const operation = design[order.operation];
  if (typeof operation !== 'function') throw new Error(`${design.id} has no ${order.operation}`);
  const context = order.node ? { ...session, node: order.node } : session;
  return operation.call(design, context, ...order.args);
}

export async function runCrashChild(load: ChildDesign): Promise<void> {
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
  const result = await operate(order, load, session);
  process.stdout.write(`${DONE_PREFIX}${JSON.stringify(result)}\n`);
  await client.end();
}
