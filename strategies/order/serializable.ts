/**
 * order-serializable — order-read-then-subtract's very read and absolute writes, under
 * `BEGIN ISOLATION LEVEL SERIALIZABLE`, the whole transaction retried on a serialization failure (the
 * isolation-matrix chapter's "RR stale row write → whole transaction retry").
 *
 * Correct because: SERIALIZABLE gives the outcome of some serial order or fails a transaction. A stock row
 * another order changed after this snapshot fails the write with 40001 (first updater wins), where READ
 * COMMITTED lost the update; a concurrent order of the same key fails the insert (23505, or 40001 for a
 * row this snapshot cannot see). Each failure rolls the whole attempt back (order row, lines, stock) and
 * runs it again on a new snapshot, which sees the winner. The stock rows are written in sku order, as
 * order-sku-order takes them: written in the client's order, two carts in opposite order deadlock, and
 * under contention one deadlock after another each waits out deadlock_timeout, so overlapping carts barely
 * progress, though retrying each victim would be as safe as retrying a 40001.
 *
 * Breaks when: its bound runs out (GAVE_UP, nothing written: the knob `attempts`), or a writer of the same
 * tables runs at a lower level (SSI protects only transactions that are all SERIALIZABLE; release and
 * expire below are safe beside it because they decide nothing from an earlier read, and the one order
 * write they could be lost under — an absolute value over a returned quantity — fails with 40001).
 *
 * Lifecycle: release and expire at READ COMMITTED, conditional on status = 'HELD' (order-stock.ts).
 * Pause points: order `after-read` after the decision read of every attempt (the harness holds the
 * first), `before-commit` with every write done; release and expire `before-commit`.
 */
import { SQLSTATE, sqlstateOf } from '../support/sqlstate.ts';
import { inTransaction } from '../support/transaction.ts';
import type { OrderDesign, OrderRequest, OrderResult, OrderSessionContext } from './contract.ts';
import { bySku, isBadOrder } from './support/cart.ts';
import { createOrderStock, ORDER_STOCK_MEMBERS } from './support/order-stock.ts';
import {
  answerForRecordedOrder,
  insertLine,
  insertOrderRow,
  ORDER_TABLE_READS,
} from './support/order-tables.ts';

/**
 * Attempts per request by default. An attempt fails only when a concurrent order committed a write to a
 * sku it read (or its key), so a request fails about once per order that overlaps it while it tries.
 */
const ATTEMPTS = 100;

/** A serialization failure, and a unique violation this snapshot cannot explain. */
const RETRYABLE = new Set<string>([SQLSTATE.serializationFailure, SQLSTATE.uniqueViolation]);

const SQL = {
  readAvailable: 'SELECT sku, available FROM order_stock WHERE sku = ANY($1::text[])',
  writeAvailable: 'UPDATE order_stock SET available = $2 WHERE sku = $1',
} as const;

/** One attempt's decision and writes, inside its SERIALIZABLE transaction. */
async function decideAndWrite(ctx: OrderSessionContext, request: OrderRequest): Promise<OrderResult> {
  const { db } = ctx;
  const recorded = await answerForRecordedOrder(db, request);
  const read = await db.query<{ sku: string; available: number }>(SQL.readAvailable, [
    request.lines.map((l) => l.sku),
  ]);
  await ctx.pause('after-read');
  if (recorded) return recorded;
  const available = new Map(read.rows.map((r) => [r.sku, r.available]));
  if (request.lines.some((l) => !available.has(l.sku))) return { outcome: 'BAD_REQUEST' };
  const short = request.lines.find((l) => (available.get(l.sku) ?? 0) < l.qty);
  if (short) return { outcome: 'SOLD_OUT', sku: short.sku };
  // The stock rows first, as serializable.ts does for reservations: an attempt that lost a row fails
  // there (40001) before it inserts into the order indexes every attempt reads.
  for (const line of bySku(request.lines))
    await db.query(SQL.writeAvailable, [line.sku, (available.get(line.sku) ?? 0) - line.qty]);
  const orderId = await insertOrderRow(db, request);
  for (const line of request.lines) await insertLine(db, orderId, request.requestKey, line);
  await ctx.pause('before-commit');
  return { outcome: 'HELD', status: 'HELD' };
}

function serializableOrder(attempts: number): OrderDesign['order'] {
  return async (ctx, request) => {
    if (isBadOrder(request)) return { outcome: 'BAD_REQUEST' };
    for (let attempt = 1; ; attempt++) {
      try {
        return await inTransaction(ctx.db, () => decideAndWrite(ctx, request), 'SERIALIZABLE');
      } catch (error: unknown) {
        const sqlstate = sqlstateOf(error);
        if (sqlstate === undefined || !RETRYABLE.has(sqlstate)) throw error;
        if (attempt >= attempts) return { outcome: 'GAVE_UP' };
        ctx.retried?.(sqlstate);
      }
    }
  };
}

const orderSerializable: OrderDesign = {
  contract: 'order',
  id: 'order-serializable',
  title: 'SERIALIZABLE read-then-subtract in sku order, whole transaction retried on 40001',
  guarantee:
    'read, decide, write absolute values in sku order under SERIALIZABLE; a 40001 or 23505 retries the whole transaction (bounded: GAVE_UP)',
  expect: 'hold',
  needs: ['serializable'],
  parameters: { attempts: { describe: 'attempts per order', default: ATTEMPTS, min: 1, max: 1000 } },
  configure: (values) => ({ ...orderSerializable, order: serializableOrder(values.attempts ?? ATTEMPTS) }),
  pausePoints: {
    order: ['after-read', 'before-commit'],
    release: ['before-commit'],
    expire: ['before-commit'],
  },

  setup: createOrderStock,
  order: serializableOrder(ATTEMPTS),

  ...ORDER_STOCK_MEMBERS,
  ...ORDER_TABLE_READS,
};

export default orderSerializable;
