/**
 * The order and line tables every order design shares: creating them, claiming a request_key, the
 * recorded answer for a key, writing a line, ending HELD orders (release, expire), and the reads the
 * harness and the audit make. The stock side is each design's own (order-stock.ts, the frozen ledger).
 */
import { readFileSync } from 'node:fs';
import type { ClientBase } from 'pg';
import type { OrderAudit, OrderLine, OrderRequest, OrderResult, OrderStatus } from '../contract.ts';
import { cartText } from './cart.ts';

const ORDER_SQL = readFileSync(new URL('./order.sql', import.meta.url), 'utf8');

/** A line's sku as the lines are sorted everywhere: code-point order, what cart.ts's bySku gives. */
export const SKU_ORDER = 'sku COLLATE "C"';

const INSERT_ORDER = `INSERT INTO shop_order (request_key, user_id, cart, status, expires_at)
                      VALUES ($1, $2, $3, 'HELD', now() + make_interval(secs => $4 / 1000.0))`;

const SQL = {
  insertOrder: `${INSERT_ORDER} RETURNING order_id`,
  claim: `${INSERT_ORDER} ON CONFLICT (request_key) DO NOTHING RETURNING order_id`,
  recorded: 'SELECT user_id, cart, status FROM shop_order WHERE request_key = $1',
  insertLine: 'INSERT INTO order_line (order_id, request_key, sku, qty) VALUES ($1, $2, $3, $4)',
  status: 'SELECT status FROM shop_order WHERE request_key = $1',
  lines: `SELECT sku, qty FROM order_line WHERE request_key = $1 ORDER BY ${SKU_ORDER}, line_id`,
  backdate: `UPDATE shop_order SET expires_at = now() - interval '1 second'
              WHERE request_key = ANY($1::text[])`,
  releaseOne: `UPDATE shop_order SET status = 'RELEASED', updated_at = now()
                WHERE request_key = $1 AND status = 'HELD'
               RETURNING order_id`,
  // Order rows locked in order_id order, so two expiry jobs queue on the first row rather than deadlock;
  // a row a release moved while this waited is re-checked under its lock and left out.
  expireDue: `UPDATE shop_order SET status = 'EXPIRED', updated_at = now()
               WHERE order_id IN (SELECT order_id FROM shop_order
                                   WHERE status = 'HELD' AND expires_at < now()
                                   ORDER BY order_id FOR UPDATE)
              RETURNING order_id`,
  linesOf: `SELECT sku, sum(qty)::int AS qty FROM order_line WHERE order_id = ANY($1::bigint[])
             GROUP BY sku ORDER BY ${SKU_ORDER}`,
  auditOrders: `SELECT
      (SELECT coalesce(array_agg(request_key ORDER BY request_key), '{}') FROM shop_order
        WHERE status = 'HELD') AS held_keys,
      (SELECT count(*) FROM (SELECT 1 FROM shop_order GROUP BY request_key HAVING count(*) > 1) k)::int
        AS keys_with_many_orders,
      (SELECT count(*) FROM shop_order o
        WHERE o.cart IS DISTINCT FROM (SELECT string_agg(l.sku || ':' || l.qty, ',' ORDER BY l.${SKU_ORDER})
                                         FROM order_line l WHERE l.order_id = o.order_id))::int
        AS partial_orders,
      (SELECT count(*) FROM order_line l
        WHERE NOT EXISTS (SELECT 1 FROM shop_order o WHERE o.request_key = l.request_key))::int
        AS lines_without_order`,
  heldBySku: `SELECT l.sku, sum(l.qty)::int AS held FROM order_line l JOIN shop_order o USING (order_id)
               WHERE o.status = 'HELD' GROUP BY l.sku`,
} as const;

export async function createOrderTables(db: ClientBase): Promise<void> {
  await db.query(ORDER_SQL);
}

/**
 * Inside the caller's transaction: sets SAVEPOINT `claim` and inserts the HELD order row. Returns its id
 * when this request owns the key now (the caller takes the lines, or rolls back to `claim` if one does
 * not fit), otherwise the final answer. `ON CONFLICT (request_key) DO NOTHING` makes the key the arbiter: a
 * replay waits for the first insert to end and then, at READ COMMITTED, its next statement reads the row.
 */
export async function claimOrderKey(db: ClientBase, request: OrderRequest): Promise<number | OrderResult> {
  await db.query('SAVEPOINT claim');
  const { requestKey, user, lines, ttlMs } = request;
  const claimed = await db.query<{ order_id: string }>(SQL.claim, [requestKey, user, cartText(lines), ttlMs]);
  const id = claimed.rows[0]?.order_id;
  if (id !== undefined) return Number(id);
  const recorded = await answerForRecordedOrder(db, request);
  if (!recorded) throw new Error(`ON CONFLICT did nothing, yet no order has key ${requestKey}`);
  return recorded;
}

/** The HELD order row, with no arbiter: a key already recorded fails with 23505 (a retrying design's own). */
export async function insertOrderRow(db: ClientBase, request: OrderRequest): Promise<number> {
  const { requestKey, user, lines, ttlMs } = request;
  const { rows } = await db.query<{ order_id: string }>(SQL.insertOrder, [
    requestKey,
    user,
    cartText(lines),
    ttlMs,
  ]);
  return Number(rows[0]?.order_id);
}

/**
 * The answer for a key already recorded: REPLAY with the order's status when the user and the cart are the
 * same, KEY_REUSED when either differs. Null when no order has the key.
 */
export async function answerForRecordedOrder(
  db: ClientBase,
  request: OrderRequest,
): Promise<OrderResult | null> {
  const { rows } = await db.query<{ user_id: string; cart: string; status: OrderStatus }>(SQL.recorded, [
    request.requestKey,
  ]);
  const row = rows[0];
  if (!row) return null;
  if (row.user_id !== request.user || row.cart !== cartText(request.lines)) return { outcome: 'KEY_REUSED' };
  return { outcome: 'REPLAY', status: row.status };
}

export async function insertLine(
  db: ClientBase,
  orderId: number,
  requestKey: string,
  line: OrderLine,
): Promise<void> {
  await db.query(SQL.insertLine, [orderId, requestKey, line.sku, line.qty]);
}

/** Ends the key's order if it is HELD; the ids of the orders this statement moved (none or one). */
export async function releaseHeldOrder(db: ClientBase, requestKey: string): Promise<number[]> {
  const { rows } = await db.query<{ order_id: string }>(SQL.releaseOne, [requestKey]);
  return rows.map((r) => Number(r.order_id));
}

/** Ends every HELD order past its expiry; the ids this statement moved. */
export async function expireDueOrders(db: ClientBase): Promise<number[]> {
  const { rows } = await db.query<{ order_id: string }>(SQL.expireDue);
  return rows.map((r) => Number(r.order_id));
}

/** The quantities the given orders hold, summed per sku, in sku order (what ending them puts back). */
export async function linesOfOrders(db: ClientBase, orderIds: readonly number[]): Promise<OrderLine[]> {
  if (orderIds.length === 0) return [];
  const { rows } = await db.query<OrderLine>(SQL.linesOf, [orderIds]);
  return rows;
}

export async function orderStatus(db: ClientBase, requestKey: string): Promise<OrderStatus | 'NOT_FOUND'> {
  const { rows } = await db.query<{ status: OrderStatus }>(SQL.status, [requestKey]);
  return rows[0]?.status ?? 'NOT_FOUND';
}

export async function orderLines(db: ClientBase, requestKey: string): Promise<OrderLine[]> {
  const { rows } = await db.query<OrderLine>(SQL.lines, [requestKey]);
  return rows;
}

export async function backdateOrders(db: ClientBase, requestKeys: readonly string[]): Promise<void> {
  await db.query(SQL.backdate, [requestKeys]);
}

/**
 * The audit's order side, given the stock side's per-sku `sku, total, remaining` (what the design's own
 * stock state says remains); `held` is counted from the lines of HELD orders.
 */
export async function auditOrders(
  db: ClientBase,
  stock: readonly { sku: string; total: number; remaining: number }[],
): Promise<OrderAudit> {
  const { rows } = await db.query<{
    held_keys: string[];
    keys_with_many_orders: number;
    partial_orders: number;
    lines_without_order: number;
  }>(SQL.auditOrders);
  const row = rows[0];
  if (!row) throw new Error('the order audit returned no row');
  const held = await db.query<{ sku: string; held: number }>(SQL.heldBySku);
  const heldBySku = new Map(held.rows.map((r) => [r.sku, r.held]));
  return {
    skus: stock.map((s) => ({ ...s, held: heldBySku.get(s.sku) ?? 0 })),
    heldKeys: row.held_keys,
    keysWithManyOrders: row.keys_with_many_orders,
    partialOrders: row.partial_orders,
    linesWithoutOrder: row.lines_without_order,
  };
}

/** The reads every design on these tables shares. */
export const ORDER_TABLE_READS = {
  status: orderStatus,
  lines: orderLines,
  backdate: backdateOrders,
} as const;
