/**
 * order-line-per-transaction — NEGATIVE CONTROL (expect: violate). Claims the key with the first line in
 * one transaction, then takes every other line in a transaction of its own (each line is the isolation-matrix
 * chapter's conditional update, in sku order); a line that does not fit is compensated: the lines taken so
 * far go back and the order is deleted.
 *
 * What it gets wrong: an order is many commits. A process that dies between them — after the first line's
 * commit, before the last — leaves the order HELD with some of its lines: stock held for a cart nobody
 * will get, and a key whose replay answers HELD for an order that is not whole. The compensation runs only
 * if the process lives to run it (the frozen-stock chapter's lesson: the order and its stock in one
 * transaction).
 *
 * How the suite catches it every run: in order-crash-between-lines the session ordering a two-line cart is
 * killed at `between-transactions` (its first transaction committed, its second not begun); the harness's
 * read of the key finds one line of two under a HELD order, which `allOrNothing` counts.
 */
import type { ClientBase } from 'pg';
import { inTransaction } from '../../support/transaction.ts';
import type { OrderDesign, OrderLine, OrderRequest, OrderResult } from '../contract.ts';
import { bySku, isBadOrder } from '../support/cart.ts';
import { refuseLine, shortLineAnswer } from '../support/line-stock.ts';
import {
  createOrderStock,
  ORDER_STOCK_LINES,
  ORDER_STOCK_MEMBERS,
  putLinesBack,
} from '../support/order-stock.ts';
import { claimOrderKey, ORDER_TABLE_READS } from '../support/order-tables.ts';

const SQL = {
  lockHeld: "SELECT 1 FROM shop_order WHERE order_id = $1 AND status = 'HELD' FOR UPDATE",
  deleteLines: 'DELETE FROM order_line WHERE order_id = $1',
  deleteOrder: 'DELETE FROM shop_order WHERE order_id = $1',
} as const;

/** The first transaction: the key claimed and the first line taken, or the final answer. */
function claimWithFirstLine(db: ClientBase, request: OrderRequest, first: OrderLine) {
  return inTransaction(db, async (): Promise<number | OrderResult> => {
    const claim = await claimOrderKey(db, request);
    if (typeof claim !== 'number') return claim;
    if (!(await ORDER_STOCK_LINES.take(db, claim, request.requestKey, first)))
      return refuseLine(db, ORDER_STOCK_LINES, first.sku);
    return claim;
  });
}

/** Undoes the lines taken so far, unless a release or an expiry ended the order (and put them back) first. */
function compensate(db: ClientBase, orderId: number, taken: readonly OrderLine[]) {
  return inTransaction(db, async () => {
    const held = await db.query(SQL.lockHeld, [orderId]);
    if (held.rowCount !== 1) return;
    await db.query(SQL.deleteLines, [orderId]);
    await db.query(SQL.deleteOrder, [orderId]);
    await putLinesBack(db, taken);
  });
}

const linePerTransaction: OrderDesign = {
  contract: 'order',
  id: 'order-line-per-transaction',
  title: 'One transaction per line, a failed line compensated',
  guarantee: 'none: a crash between the lines’ commits leaves a partial order holding stock',
  expect: 'violate',
  caughtBy: { 'order-crash-between-lines': ['allOrNothing'] },
  pausePoints: {
    order: ['between-transactions'],
    release: ['before-commit'],
    expire: ['before-commit'],
  },

  setup: createOrderStock,

  order: async (ctx, request) => {
    if (isBadOrder(request)) return { outcome: 'BAD_REQUEST' };
    const { db } = ctx;
    const [first, ...rest] = bySku(request.lines);
    if (!first) return { outcome: 'BAD_REQUEST' };
    const orderId = await claimWithFirstLine(db, request, first);
    if (typeof orderId !== 'number') return orderId;
    await ctx.pause('between-transactions');
    const taken = [first];
    for (const line of rest) {
      const take = () => ORDER_STOCK_LINES.take(db, orderId, request.requestKey, line);
      if (!(await inTransaction(db, take))) {
        await compensate(db, orderId, taken);
        return shortLineAnswer(db, ORDER_STOCK_LINES, line.sku);
      }
      taken.push(line);
    }
    return { outcome: 'HELD', status: 'HELD' };
  },

  ...ORDER_STOCK_MEMBERS,
  ...ORDER_TABLE_READS,
};

export default linePerTransaction;
