/**
 * release and expire of every order design, over the design's own way of giving stock back: each moves
 * order rows `WHERE status = 'HELD'` and gives back only the lines of the rows it moved, in the same
 * transaction, so a replay or a second job that waited on the row locks moves nothing and gives nothing
 * back. Order rows are locked before stock rows, and stock rows in sku order, as every order takes them:
 * no cycle with an order in flight.
 */
import type { ClientBase } from 'pg';
import { inTransaction } from '../../support/transaction.ts';
import type { OrderDesign, OrderLine } from '../contract.ts';
import { expireDueOrders, releaseHeldOrder } from './order-tables.ts';

/**
 * Gives back the lines of the orders just moved (ids), locking stock rows in sku order, and books it as
 * `action` where the design keeps books; returns the lines it gave back, per sku.
 */
export type GiveBack = (
  db: ClientBase,
  orderIds: readonly number[],
  action: 'RELEASE' | 'EXPIRE',
) => Promise<OrderLine[]>;

const unitsOf = (lines: readonly OrderLine[]) => lines.reduce((sum, l) => sum + l.qty, 0);

export function orderLifecycle(giveBack: GiveBack) {
  return {
    release: (ctx, requestKey) =>
      inTransaction(ctx.db, async () => {
        const moved = await releaseHeldOrder(ctx.db, requestKey);
        if (moved.length > 0) await giveBack(ctx.db, moved, 'RELEASE');
        await ctx.pause('before-commit');
        return moved.length > 0;
      }),
    expire: (ctx) =>
      inTransaction(ctx.db, async () => {
        const moved = await expireDueOrders(ctx.db);
        const lines = moved.length > 0 ? await giveBack(ctx.db, moved, 'EXPIRE') : [];
        await ctx.pause('before-commit');
        return { orders: moved.length, units: unitsOf(lines) };
      }),
  } satisfies Pick<OrderDesign, 'release' | 'expire'>;
}
