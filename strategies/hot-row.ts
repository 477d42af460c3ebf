/**
 * hot-row — one stock row per sku, decremented by a conditional UPDATE (seed 000, design A).
 *
 * How it stays correct: `available > 0` is evaluated under the row lock. In READ COMMITTED an UPDATE that
 * meets a row changed by a concurrent transaction waits for it to end and re-evaluates its WHERE against
 * the newest row version, so every contender sees the count its predecessor committed. request_key is a
 * unique arbiter (`ON CONFLICT DO NOTHING` → replay), and a partial unique index keeps one active hold per
 * user and sku. A 23505 is looked up by key before it is called USER_LIMIT: a concurrent replay of the
 * same key can fail on the user index first (it waited for the first insert to commit there), and seed
 * 000 saw {HELD 1, REPLAY 14, USER_LIMIT 1} intermittently before that lookup existed. No unit left: the
 * whole transaction rolls back, which removes the claim, the only row it wrote (no savepoint needed).
 *
 * When it breaks: if any path decrements without the condition, or the stock is split over several rows
 * without a new condition, or the isolation is raised (REPEATABLE READ turns the wait into 40001 and this
 * code does not retry), or reserve comes to write anything before the claim that a sold-out answer must
 * keep (the rollback would take it too). Every reservation queues on one row: throughput is bounded by one
 * lock, held from the UPDATE until COMMIT arrives.
 *
 * Lifecycle: confirm, release and expire each move rows only `WHERE status = 'HELD'` and return stock in
 * the same statement, counted from the rows that statement moved, so replays and concurrent jobs return
 * nothing twice (seed C28-07/08/09).
 *
 * Pause points: `after-read` once the key is claimed (the insert), before the stock row is touched;
 * `before-commit` after the decrement (reserve) or after the expiry statement (expire).
 *
 * Last measured (embedded PostgreSQL 18.4, synchronous_commit=off, 2 cores, quiet machine, 2026-11-30):
 * contention HELD 40, SOLD_OUT 110, drift 0; false-sold-out: t3 blocked, then HELD. Bench, today's path
 * (three round trips of named statements; median of 3 trials, reservations/s and p99 ms): 1 client 3189
 * (0.95), 4: 8428 (1.5), 16: 3158 (25), 64: 2378 (144), 150: 1639 (486) — against 1021 / 1241 / 718 / 247 /
 * 109 with the earlier five round trips of unnamed statements (BEGIN, SAVEPOINT, INSERT … RETURNING,
 * UPDATE, COMMIT) on a busier day. The yardstick (the same three round trips through pgbench -M prepared,
 * 7 interleaved trials): suite/pgbench 0.80 at 1 client, 0.65 at 4, 0.69 at 16, 0.78 at 64; node-postgres
 * spends about twice pgbench's CPU per transaction, and on 2 cores that time is taken from the server, and
 * at 16+ clients the UPDATE→COMMIT turnaround, which holds the row lock, carries it.
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
