/**
 * hot-row — one stock row per sku, decremented by a conditional UPDATE (the flash-sale lab, design A).
 *
 * How it stays correct: `available > 0` is evaluated under the row lock: in READ COMMITTED an UPDATE that
 * meets a row a concurrent transaction changed waits for it, then re-evaluates its WHERE on the newest
 * version. request_key is a unique arbiter (`ON CONFLICT DO NOTHING` → replay); a partial unique index
 * keeps one active hold per user and sku; a 23505 is looked up by key before it is called USER_LIMIT (a
 * concurrent replay of the key can fail on the user index first). No unit left: the whole transaction
 * rolls back, and with it the claim, the only row it wrote.
 *
 * When it breaks: a path that decrements without the condition, stock split over rows without a new
 * condition, REPEATABLE READ or above (the wait becomes a 40001 and this code does not retry), or a write
 * before the claim that a sold-out answer must keep (the rollback would take it too). Every reservation
 * queues on one row lock, held from the UPDATE until COMMIT arrives.
 *
 * Lifecycle: confirm, release and expire move rows only `WHERE status = 'HELD'` and return stock in the
 * same statement, counted from the rows it moved, so replays and concurrent jobs return nothing twice.
 *
 * Pause points: reserve `after-read` once the key is claimed, before the stock row is touched, and
 * `before-commit` after the decrement; expire `before-commit` after its statement.
 */

import type { ReserveRequest, ReserveResult, SessionContext, Strategy } from './contract.ts';
import { beginWith } from './support/begin-with.ts';
import { answerForRecordedKey, PREPARED } from './support/reservation-table.ts';
import { SQLSTATE, sqlstateOf } from './support/sqlstate.ts';
import {
  auditStockAndReservation,
  createStockAndReservation,
  PREPARED_STOCK,
  stockRowLifecycle,
  stockRowRemaining,
} from './support/stock-and-reservation.ts';

/**
 * BEGIN with the claim, the decrement, COMMIT: three round trips when a unit is taken. BEGIN travels with
 * the claim in one batch (begin-with.ts: one Sync, so the claim never runs outside the transaction); the
 * claim, the decrement and the lookups are named statements (parsed once per connection, then only bound
 * and executed); COMMIT and ROLLBACK go as simple queries. The transaction holds nothing but this
 * request's claim, so a request that gets no unit rolls the whole transaction back instead of rolling back
 * to a savepoint: the same rows stay, one round trip (and one subtransaction) less. Lookups that only
 * decide the answer after a ROLLBACK run as statements of their own: under READ COMMITTED a statement sees
 * what is committed when it starts, inside a transaction or not.
 */
async function reserve(ctx: SessionContext, request: ReserveRequest): Promise<ReserveResult> {
  const { db } = ctx;
  // Open from the batch on: a failed claim leaves the transaction aborted, to be rolled back.
  let open = true;
  const end = async (statement: 'COMMIT' | 'ROLLBACK') => {
    open = false;
    await db.query(statement);
  };
  try {
    let inserted: number | null;
    try {
      inserted = await beginWith(db, PREPARED.insertHeld, [
        request.requestKey,
        request.user,
        request.sku,
        request.ttlMs,
      ]);
    } catch (error: unknown) {
      const sqlstate = sqlstateOf(error);
      if (sqlstate !== SQLSTATE.uniqueViolation && sqlstate !== SQLSTATE.foreignKeyViolation) throw error;
      await end('ROLLBACK');
      if (sqlstate === SQLSTATE.foreignKeyViolation) return { outcome: 'BAD_REQUEST' };
      // The one-active-per-user index, or a concurrent replay of this key that reached it first.
      return (await answerForRecordedKey(db, request, { prepared: true })) ?? { outcome: 'USER_LIMIT' };
    }
    if (inserted !== 1) {
      // The key is taken (ON CONFLICT waited for its first insert to commit): nothing was written.
      const recorded = await answerForRecordedKey(db, request, { prepared: true });
      if (!recorded) throw new Error(`request_key ${request.requestKey} conflicted but no row is visible`);
      await end('COMMIT');
      return recorded;
    }
    await ctx.pause('after-read');
    const taken = await db.query({ ...PREPARED_STOCK.takeUnit, values: [request.sku] });
    if (taken.rowCount !== 1) {
      // No unit: rolling back undoes the claim, the only row this transaction wrote.
      await end('ROLLBACK');
      const known = await db.query({ ...PREPARED_STOCK.skuKnown, values: [request.sku] });
      return { outcome: known.rowCount ? 'SOLD_OUT' : 'BAD_REQUEST' };
    }
    await ctx.pause('before-commit');
    await end('COMMIT');
    return { outcome: 'HELD', status: 'HELD' };
  } catch (error: unknown) {
    // Never leave the connection inside an aborted transaction for the next request.
    if (open) await db.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

const hotRow: Strategy = {
  id: 'hot-row',
  title: 'Hot row: conditional UPDATE on one stock row',
  guarantee: '`available > 0` re-evaluated under the row lock; unique key + partial unique index',
  expect: 'hold',
  pausePoints: { reserve: ['after-read', 'before-commit'], expire: ['before-commit'] },

  setup: (db, stock) => createStockAndReservation(db, stock, { oneActivePerUser: true }),

  reserve,

  ...stockRowLifecycle,
  remaining: stockRowRemaining,
  audit: auditStockAndReservation,
};

export default hotRow;
