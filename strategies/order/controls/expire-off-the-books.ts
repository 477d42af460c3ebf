/**
 * order-expire-off-the-books — NEGATIVE CONTROL (expect: violate). order-sku-order's orders and releases,
 * but expiry only marks the orders EXPIRED: it answers with the units of their lines and never puts them
 * back on the stock row. `remaining(sku)` and the audit count what remains as total − Σ the lines of HELD
 * orders, from the orders rather than from the stock it sells.
 *
 * What it gets wrong: every expired unit is gone from what it sells, while every one of its own reads says
 * it is back. Its answers, `status`, `lines`, `remaining` and `audit` agree with each other and with the
 * order model, so drift (total − remaining − held = 0), the audit comparison and the history all hold.
 *
 * Breaks when: an order expires; nothing shows it until a later order wants the units.
 *
 * Lifecycle and pause points: order-sku-order's (order `after-first-line`, `before-commit`; release and
 * expire `before-commit`), release putting lines back as it does.
 *
 * How the suite catches it every run: in order-expiry-release the two jobs expire k-2 (3 × sku-a, 4 ×
 * sku-b) and no order follows. remaining() says 4 of sku-a and 5 of sku-b; the harness's probe then orders
 * exactly that, and the design answers SOLD_OUT: `sellsWhatRemains` (harness/contracts/order/verdict/
 * order-sells-what-remains.ts) is the only check that fires.
 */
import type { ClientBase } from 'pg';
import type { OrderDesign } from '../contract.ts';
import skuOrder from '../sku-order.ts';
import { orderLifecycle } from '../support/order-lifecycle.ts';
import { putLinesBack } from '../support/order-stock.ts';
import { auditOrders, linesOfOrders } from '../support/order-tables.ts';

const SQL = {
  /** total − Σ the lines of HELD orders: counted from the orders, not read from the stock row. */
  remainingFromHolds: `SELECT s.sku, s.total, s.total - coalesce(sum(l.qty) FILTER (WHERE o.status = 'HELD'), 0)::int
                              AS remaining
                         FROM order_stock s
                         LEFT JOIN order_line l ON l.sku = s.sku
                         LEFT JOIN shop_order o ON o.order_id = l.order_id
                        GROUP BY s.sku, s.total ORDER BY s.sku COLLATE "C"`,
} as const;

async function remainingBySku(db: ClientBase) {
  const { rows } = await db.query<{ sku: string; total: number; remaining: number }>(SQL.remainingFromHolds);
  return rows;
}

const expireOffTheBooks: OrderDesign = {
  ...skuOrder,
  id: 'order-expire-off-the-books',
  title: 'Expiry marks orders EXPIRED without putting their lines back; remaining counted from the holds',
  guarantee:
    'none: an expired order’s units never return to the stock it sells, while remaining() says they did',
  expect: 'violate',
  caughtBy: { 'order-expiry-release': ['sellsWhatRemains'] },
  ...orderLifecycle(async (db, orderIds, action) => {
    const lines = await linesOfOrders(db, orderIds);
    if (action === 'RELEASE') await putLinesBack(db, lines);
    return lines;
  }),
  remaining: async (db, sku) => (await remainingBySku(db)).find((s) => s.sku === sku)?.remaining ?? 0,
  audit: async (db) => auditOrders(db, await remainingBySku(db)),
};

export default expireOffTheBooks;
