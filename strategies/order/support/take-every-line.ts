/**
 * The one-transaction order path: claim the key, take every line in the order `arrange` puts them in, and
 * roll everything back to the claim at the first line that does not fit. order-sku-order and the frozen
 * ledger sort the lines by sku; the control order-request-order keeps the client's order.
 */
import { inTransaction } from '../../support/transaction.ts';
import type { OrderDesign, OrderLine, OrderResult } from '../contract.ts';
import { isBadOrder } from './cart.ts';
import { type LineStock, refuseLine } from './line-stock.ts';
import { claimOrderKey } from './order-tables.ts';

export function takeEveryLine(
  arrange: (lines: readonly OrderLine[]) => OrderLine[],
  stock: LineStock,
): OrderDesign['order'] {
  return async (ctx, request) => {
    if (isBadOrder(request)) return { outcome: 'BAD_REQUEST' };
    const { db } = ctx;
    return inTransaction(db, async (): Promise<OrderResult> => {
      const claim = await claimOrderKey(db, request);
      if (typeof claim !== 'number') return claim;
      for (const [i, line] of arrange(request.lines).entries()) {
        if (!(await stock.take(db, claim, request.requestKey, line))) return refuseLine(db, stock, line.sku);
        if (i === 0) await ctx.pause('after-first-line');
      }
      await ctx.pause('before-commit');
      return { outcome: 'HELD', status: 'HELD' };
    });
  };
}
