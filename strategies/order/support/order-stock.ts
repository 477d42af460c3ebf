/**
 * The stock-row model of the order designs: one `order_stock` row per sku beside the order tables. Setup,
 * taking a line with the isolation-matrix chapter's conditional update, putting lines back, and the members
 * every design on these tables shares.
 */
import { readFileSync } from 'node:fs';
import type { ClientBase } from 'pg';
import type { StockLine } from '../../contract.ts';
import type { OrderAudit, OrderLine } from '../contract.ts';
import type { LineStock } from './line-stock.ts';
import { orderLifecycle } from './order-lifecycle.ts';
import { auditOrders, createOrderTables, linesOfOrders } from './order-tables.ts';

const STOCK_SQL = readFileSync(new URL('./order-stock.sql', import.meta.url), 'utf8');

const SQL = {
  load: `INSERT INTO order_stock (sku, total, available)
         SELECT sku, total, total FROM unnest($1::text[], $2::int[]) AS s(sku, total)`,
  /**
   * The isolation-matrix chapter's atomic-update-worker: `available >= qty` is re-evaluated under the row
   * lock against the newest committed count, and the line is written by the same statement only when the
   * stock moved.
   */
  takeLine: `WITH taken AS (
               UPDATE order_stock SET available = available - $4 WHERE sku = $3 AND available >= $4
               RETURNING sku)
             INSERT INTO order_line (order_id, request_key, sku, qty) SELECT $1, $2, sku, $4 FROM taken`,
  known: 'SELECT 1 FROM order_stock WHERE sku = $1',
  putBack: 'UPDATE order_stock SET available = available + $2 WHERE sku = $1',
  remaining: 'SELECT available FROM order_stock WHERE sku = $1',
  stockCounts: 'SELECT sku, total, available AS remaining FROM order_stock ORDER BY sku',
} as const;

export async function createOrderStock(db: ClientBase, stock: readonly StockLine[]): Promise<void> {
  await createOrderTables(db);
  await db.query(STOCK_SQL);
  await db.query(SQL.load, [stock.map((s) => s.sku), stock.map((s) => s.total)]);
}

/** The order_stock rows, line by line. */
export const ORDER_STOCK_LINES: LineStock = {
  take: async (db, orderId, requestKey, line) =>
    (await db.query(SQL.takeLine, [orderId, requestKey, line.sku, line.qty])).rowCount === 1,
  known: async (db, sku) => ((await db.query(SQL.known, [sku])).rowCount ?? 0) > 0,
};

/**
 * Puts each line's quantity back, one statement per line in the order given (linesOfOrders gives sku
 * order, so the stock rows are locked in the order every order takes them in and no two deadlock).
 */
export async function putLinesBack(db: ClientBase, lines: readonly OrderLine[]): Promise<void> {
  for (const line of lines) await db.query(SQL.putBack, [line.sku, line.qty]);
}

export async function stockRemaining(db: ClientBase, sku: string): Promise<number> {
  const { rows } = await db.query<{ available: number }>(SQL.remaining, [sku]);
  return rows[0]?.available ?? 0;
}

export async function auditOrderStock(db: ClientBase): Promise<OrderAudit> {
  const { rows } = await db.query<{ sku: string; total: number; remaining: number }>(SQL.stockCounts);
  return auditOrders(db, rows);
}

/** The members every design on the order_stock row shares. */
export const ORDER_STOCK_MEMBERS = {
  ...orderLifecycle(async (db, orderIds) => {
    const lines = await linesOfOrders(db, orderIds);
    await putLinesBack(db, lines);
    return lines;
  }),
  remaining: stockRemaining,
  audit: auditOrderStock,
} as const;
