/**
 * order-request-order — NEGATIVE CONTROL (expect: violate). order-sku-order with one change: the lines
 * are taken in the order the client listed them, and a deadlock is not retried.
 *
 * What it gets wrong: two carts that share two skus in opposite order lock them in opposite order. Each
 * transaction holds the row the other needs next, PostgreSQL's deadlock detector ends one of them with
 * 40P01 ("deadlock detected", the isolation-matrix chapter's deadlock drill), and the design answers that
 * request with an error, though both carts fit. Nothing is oversold and nothing is partial: the victim's
 * transaction rolls back whole. Only the answer is wrong.
 *
 * How the suite catches it every run: in order-opposite-carts two sessions order [a, b] and [b, a], each
 * held at `after-first-line` until both hold their first row, then let go one after the other (the first
 * is seen waiting on the second through pg_blocking_pids before the second goes on): one of them fails
 * with 40P01, which `errors` counts. The same spec with order-sku-order queues the second cart behind the
 * first and holds both.
 */
import type { OrderDesign } from '../contract.ts';
import { createOrderStock, ORDER_STOCK_LINES, ORDER_STOCK_MEMBERS } from '../support/order-stock.ts';
import { ORDER_TABLE_READS } from '../support/order-tables.ts';
import { takeEveryLine } from '../support/take-every-line.ts';

const requestOrder: OrderDesign = {
  contract: 'order',
  id: 'order-request-order',
  title: 'Lines in the order the client listed them, no retry on deadlock',
  guarantee: 'none: two carts with skus in opposite order deadlock, and the victim is answered with 40P01',
  expect: 'violate',
  caughtBy: { 'order-opposite-carts': ['errors'] },
  pausePoints: {
    order: ['after-first-line', 'before-commit'],
    release: ['before-commit'],
    expire: ['before-commit'],
  },

  setup: createOrderStock,
  order: takeEveryLine((lines) => [...lines], ORDER_STOCK_LINES),

  ...ORDER_STOCK_MEMBERS,
  ...ORDER_TABLE_READS,
};

export default requestOrder;
