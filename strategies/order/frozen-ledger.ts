/**
 * order-frozen-ledger — the frozen-stock chapter's scheme (hold first, deduct on payment) for carts, kept as
 * books: per sku the counters `available`, `frozen` and `total`, each line moving its quantity from available
 * to frozen with a conditional update (`available >= qty`), and an append-only ledger entry for every line
 * moved (frozen-ledger.sql).
 *
 * Correct because: the lines are frozen in sku order, each condition re-evaluated under its account row's
 * lock, all in one transaction with the order row (the frozen-stock chapter's first pitfall: order and stock
 * in one transaction), so a cart is frozen whole or not at all and overlapping carts never deadlock. The
 * ledger entry is written by the statement that moves the counters. `audit` reconciles the books (available +
 * frozen = total per sku, the chapter's daily check) and replays the ledger from zero against today's
 * counters; the harness turns both into `reconciled` and `ledgerReplayDrift`.
 *
 * Breaks when: a move forgets one side of its pair (the books stop adding up), or a release runs twice
 * (the frozen-stock chapter's second pitfall): release and expire move an order only WHERE status = 'HELD',
 * and the counters back only for the orders that statement moved, so a replay or a racing job unfreezes
 * nothing. Every freeze queues on its sku's account row, plus a ledger insert inside that lock: the
 * frozen-stock chapter's hot-SKU ceiling.
 *
 * Lifecycle: release and expire unfreeze (frozen → available) per sku in sku order and book one RELEASE
 * or EXPIRE entry per line. Pause points: order `after-first-line`, `before-commit`; release and expire
 * `before-commit`.
 */
import { readFileSync } from 'node:fs';
import type { ClientBase } from 'pg';
import type { StockLine } from '../contract.ts';
import type { OrderAudit, OrderDesign, OrderLine } from './contract.ts';
import { bySku } from './support/cart.ts';
import type { LineStock } from './support/line-stock.ts';
import { orderLifecycle } from './support/order-lifecycle.ts';
import { auditOrders, createOrderTables, linesOfOrders, ORDER_TABLE_READS } from './support/order-tables.ts';
import { takeEveryLine } from './support/take-every-line.ts';

const SCHEMA_SQL = readFileSync(new URL('./frozen-ledger.sql', import.meta.url), 'utf8');

const SQL = {
  open: `WITH opened AS (
           INSERT INTO order_account (sku, total, available, frozen)
           SELECT sku, total, total, 0 FROM unnest($1::text[], $2::int[]) AS s(sku, total)
           RETURNING sku, total)
         INSERT INTO order_ledger (sku, action, qty) SELECT sku, 'STOCK_IN', total FROM opened WHERE total > 0`,
  freezeLine: `WITH frozen AS (
                 UPDATE order_account SET available = available - $4, frozen = frozen + $4
                  WHERE sku = $3 AND available >= $4
                 RETURNING sku),
               booked AS (
                 INSERT INTO order_ledger (sku, request_key, action, qty) SELECT sku, $2, 'FREEZE', $4 FROM frozen)
               INSERT INTO order_line (order_id, request_key, sku, qty) SELECT $1, $2, sku, $4 FROM frozen`,
  known: 'SELECT 1 FROM order_account WHERE sku = $1',
  unfreeze: 'UPDATE order_account SET available = available + $2, frozen = frozen - $2 WHERE sku = $1',
  bookLines: `INSERT INTO order_ledger (sku, request_key, action, qty)
              SELECT sku, request_key, $2, qty FROM order_line WHERE order_id = ANY($1::bigint[])`,
  remaining: 'SELECT available FROM order_account WHERE sku = $1',
  books: `SELECT a.sku, a.total, a.available AS remaining,
                 a.available + a.frozen = a.total AS reconciled,
                 (abs(a.total - r.total) + abs(a.available - r.available) + abs(a.frozen - r.frozen))::int
                   AS replay_drift
            FROM order_account a
            CROSS JOIN LATERAL (
              SELECT coalesce(sum(qty) FILTER (WHERE action = 'STOCK_IN'), 0) AS total,
                     coalesce(sum(CASE WHEN action = 'FREEZE' THEN -qty ELSE qty END), 0) AS available,
                     coalesce(sum(CASE WHEN action = 'FREEZE' THEN qty
                                       WHEN action IN ('RELEASE', 'EXPIRE') THEN -qty END), 0) AS frozen
                FROM order_ledger l WHERE l.sku = a.sku) r
           ORDER BY a.sku`,
} as const;

const ACCOUNT_LINES: LineStock = {
  take: async (db, orderId, requestKey, line) =>
    (await db.query(SQL.freezeLine, [orderId, requestKey, line.sku, line.qty])).rowCount === 1,
  known: async (db, sku) => ((await db.query(SQL.known, [sku])).rowCount ?? 0) > 0,
};

/** Unfreezes the moved orders' lines per sku, in sku order, and books one entry per line. */
async function unfreeze(
  db: ClientBase,
  orderIds: readonly number[],
  action: 'RELEASE' | 'EXPIRE',
): Promise<OrderLine[]> {
  const lines = await linesOfOrders(db, orderIds);
  for (const line of lines) await db.query(SQL.unfreeze, [line.sku, line.qty]);
  await db.query(SQL.bookLines, [orderIds, action]);
  return lines;
}

async function setup(db: ClientBase, stock: readonly StockLine[]): Promise<void> {
  await createOrderTables(db);
  await db.query(SCHEMA_SQL);
  await db.query(SQL.open, [stock.map((s) => s.sku), stock.map((s) => s.total)]);
}

async function auditBooks(db: ClientBase): Promise<OrderAudit> {
  const { rows } = await db.query<{
    sku: string;
    total: number;
    remaining: number;
    reconciled: boolean;
    replay_drift: number;
  }>(SQL.books);
  const audit = await auditOrders(
    db,
    rows.map(({ sku, total, remaining }) => ({ sku, total, remaining })),
  );
  return {
    ...audit,
    books: {
      reconciled: rows.every((r) => r.reconciled),
      ledgerReplayDrift: rows.reduce((sum, r) => sum + r.replay_drift, 0),
    },
  };
}

const orderFrozenLedger: OrderDesign = {
  contract: 'order',
  id: 'order-frozen-ledger',
  title: 'Frozen ledger for carts: available/frozen counters per sku, lines frozen in sku order, a ledger',
  guarantee:
    '`available >= qty` re-evaluated under each account row lock, in sku order, one transaction; each move pairs two counters and books a ledger entry; audited by reconciliation and a ledger replay',
  expect: 'hold',
  pausePoints: {
    order: ['after-first-line', 'before-commit'],
    release: ['before-commit'],
    expire: ['before-commit'],
  },

  setup,
  order: takeEveryLine(bySku, ACCOUNT_LINES),
  ...orderLifecycle(unfreeze),
  remaining: async (db, sku) =>
    (await db.query<{ available: number }>(SQL.remaining, [sku])).rows[0]?.available ?? 0,
  audit: auditBooks,
  ...ORDER_TABLE_READS,
};

export default orderFrozenLedger;
