/**
 * order-read-then-subtract — NEGATIVE CONTROL (expect: violate). Reads every line's `available`, decides
 * in the application, then writes the absolute value it computed (`SET available = <read> - qty`), all in
 * one READ COMMITTED transaction, lines in sku order.
 *
 * What it gets wrong: the isolation-matrix chapter's lost update. Nothing is locked between the read and the
 * write, and the write does not re-check what was read: two orders of 10 and 20 that both read 100 write 90
 * and 80, and whichever commits last wins. Both are HELD, 30 units are held, and the stock says 80 (or 90)
 * where 70 is right. Under contention the same window oversells.
 *
 * How the suite catches it every run: in order-lost-update (the isolation-matrix chapter's figures) both
 * orders are held at `after-read` until both have read 100, then let go one after the other; the harness's
 * read finds remaining 80 beside 30 held of 100, which `drift` counts (100 − 80 − 30 = −10).
 */
import { inTransaction } from '../../support/transaction.ts';
import type { OrderDesign, OrderResult } from '../contract.ts';
import { bySku, isBadOrder } from '../support/cart.ts';
import { refuseLine } from '../support/line-stock.ts';
import { createOrderStock, ORDER_STOCK_LINES, ORDER_STOCK_MEMBERS } from '../support/order-stock.ts';
import { claimOrderKey, insertLine, ORDER_TABLE_READS } from '../support/order-tables.ts';

const SQL = {
  readAvailable: 'SELECT sku, available FROM order_stock WHERE sku = ANY($1::text[])',
  writeAvailable: 'UPDATE order_stock SET available = $2 WHERE sku = $1',
} as const;

const readThenSubtract: OrderDesign = {
  contract: 'order',
  id: 'order-read-then-subtract',
  title: 'Read available, decide in the app, write an absolute value per line',
  guarantee:
    'none: the read is not re-checked at write time (the isolation-matrix chapter’s lost update: 80 where 70 is right)',
  expect: 'violate',
  caughtBy: { 'order-lost-update': ['drift'] },
  pausePoints: {
    order: ['after-read', 'before-commit'],
    release: ['before-commit'],
    expire: ['before-commit'],
  },

  setup: createOrderStock,

  order: async (ctx, request) => {
    if (isBadOrder(request)) return { outcome: 'BAD_REQUEST' };
    const { db } = ctx;
    return inTransaction(db, async (): Promise<OrderResult> => {
      const claim = await claimOrderKey(db, request);
      if (typeof claim !== 'number') return claim;
      const lines = bySku(request.lines);
      const read = await db.query<{ sku: string; available: number }>(SQL.readAvailable, [
        lines.map((l) => l.sku),
      ]);
      const available = new Map(read.rows.map((r) => [r.sku, r.available]));
      await ctx.pause('after-read');
      const short = lines.find((l) => (available.get(l.sku) ?? 0) < l.qty);
      if (short) return refuseLine(db, ORDER_STOCK_LINES, short.sku);
      for (const line of lines) {
        await db.query(SQL.writeAvailable, [line.sku, (available.get(line.sku) ?? 0) - line.qty]);
        await insertLine(db, claim, request.requestKey, line);
      }
      await ctx.pause('before-commit');
      return { outcome: 'HELD', status: 'HELD' };
    });
  },

  ...ORDER_STOCK_MEMBERS,
  ...ORDER_TABLE_READS,
};

export default readThenSubtract;
