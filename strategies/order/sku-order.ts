/**
 * order-sku-order — the cart's lines taken in sku order, each with the isolation-matrix chapter's conditional
 * update (`UPDATE … SET available = available - qty WHERE sku = $1 AND available >= qty`), all in one
 * transaction with the order row.
 *
 * Correct because: the key is claimed first (unique key, `ON CONFLICT DO NOTHING`: a replay waits for the
 * first request and reads its row). Each line's condition is re-evaluated under its stock row's lock
 * against the newest committed count, so no sku goes below zero. Lines that do not all fit roll back to
 * the claim: the order row and every line taken commit together or not at all. Every transaction locks
 * stock rows in one global order (skus sorted), so two carts that overlap queue on their first shared sku
 * and never wait for each other in a cycle: the isolation-matrix chapter's deadlock cannot form.
 *
 * Breaks when: the lines are taken in the order the client listed them (order-request-order: two carts in
 * opposite order deadlock, 40P01), one transaction per line (order-line-per-transaction: a crash between
 * them leaves a partial order), or the quantity is read and written back (order-read-then-subtract).
 *
 * Lifecycle: release and expire move order rows WHERE status = 'HELD' and put back only the lines of the
 * rows they moved, stock rows in sku order too (order-stock.ts).
 * Pause points: order `after-first-line` (the first sku's row locked: a cart sharing it waits there),
 * `before-commit` (every line taken); release and expire `before-commit`.
 */
import type { OrderDesign } from './contract.ts';
import { bySku } from './support/cart.ts';
import { createOrderStock, ORDER_STOCK_LINES, ORDER_STOCK_MEMBERS } from './support/order-stock.ts';
import { ORDER_TABLE_READS } from './support/order-tables.ts';
import { takeEveryLine } from './support/take-every-line.ts';

const skuOrder: OrderDesign = {
  contract: 'order',
  id: 'order-sku-order',
  title: 'Lines in sku order, each a conditional UPDATE, one transaction',
  guarantee:
    '`available >= qty` re-evaluated under each row lock; rows locked in sku order, so overlapping carts queue and never deadlock; all lines commit together',
  expect: 'hold',
  pausePoints: {
    order: ['after-first-line', 'before-commit'],
    release: ['before-commit'],
    expire: ['before-commit'],
  },

  setup: createOrderStock,
  order: takeEveryLine(bySku, ORDER_STOCK_LINES),

  ...ORDER_STOCK_MEMBERS,
  ...ORDER_TABLE_READS,
};

export default skuOrder;
