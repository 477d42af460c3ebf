/**
 * serializable — check-then-act made safe by the isolation level: read, decide in the application, write,
 * all under `BEGIN ISOLATION LEVEL SERIALIZABLE`, and the whole transaction retried on a serialization
 * failure (the isolation-matrix chapter's "RR stale row write → whole transaction retry", and its write skew
 * under SSI).
 *
 * How it stays correct: one statement reads everything the decision depends on (the key's row, the user's
 * active hold, `available`); the application decides, writes `available = <read> - 1` (the very write that
 * loses updates in check-then-act) and inserts the hold. SERIALIZABLE gives the outcome of some serial
 * order or fails a transaction: 40001 for a stock row changed since the snapshot (first updater wins) or a
 * read a concurrent commit invalidated, 40001 or 23505 for a concurrent insert into a unique index. Each
 * ends the attempt with nothing written and the whole transaction runs again on a new snapshot (40P01 too;
 * a 23505 is retried, not looked up, since this snapshot cannot see the row behind it: the manual, 13.5).
 * The retry bound: a failure needs a concurrent write to what the attempt read, so in `contention` a client
 * fails about once per sale made while it tries (≤ ~40); past MAX_ATTEMPTS (300) it answers GAVE_UP. The
 * bound is the knob `attempts` (retryBound): the give-up scenario sets it to 2 and makes both rounds lose.
 *
 * When it breaks: at any lower level (READ COMMITTED: check-then-act's lost update; REPEATABLE READ: safe
 * on the stock row, but the same read-then-insert on a COUNT lets write skew through, see
 * fixtures/reservation/specs/write-skew-repeatable-read.spec), or without the retry (test/fixtures/serializable-no-retry.ts).
 * Every concurrent sale of a sku conflicts on the stock row, so under contention most attempts are thrown
 * away, each after a full transaction; SSI's conflict pool, sized from max_connections, is why the stock
 * row is written before the insert (see decideAndWrite).
 *
 * Lifecycle: confirm, release and expire run at READ COMMITTED with hot-row's conditional statements
 * (`WHERE status = 'HELD'`, stock back in the same statement); they decide nothing from an earlier read.
 * Reserves stay safe beside them: those only take rows out of "active" and add stock, and the one reserve
 * write they could be lost under (`available = <read> - 1` over a returned unit) fails with 40001.
 *
 * Pause points: reserve `after-read` after the decision read of every attempt (the harness holds the
 * first), `before-commit` after both writes; expire `before-commit`.
 */
import type {
  ReservationStatus,
  ReserveRequest,
  ReserveResult,
  SessionContext,
  Strategy,
} from './contract.ts';
import { ACTIVE } from './support/reservation-table.ts';
import { attemptsKnob, MAX_ATTEMPTS } from './support/retry-bound.ts';
import { SQLSTATE, sqlstateOf } from './support/sqlstate.ts';
import {
  auditStockAndReservation,
  createStockAndReservation,
  stockRowLifecycle,
  stockRowRemaining,
} from './support/stock-and-reservation.ts';
import { inTransaction } from './support/transaction.ts';

/** serialization_failure: strategies/sqlstate.ts has no name for it yet. */
const SERIALIZATION_FAILURE = '40001';

/** A serialization failure, a deadlock, and a unique violation this snapshot cannot explain. */
const RETRYABLE = new Set<string>([
  SERIALIZATION_FAILURE,
  SQLSTATE.deadlockDetected,
  SQLSTATE.uniqueViolation,
]);

const SQL = {
  decisionRead: `SELECT s.available, r.user_id AS key_user, r.sku AS key_sku, r.status AS key_status,
                        EXISTS (SELECT 1 FROM reservation a
                                 WHERE a.user_id = $2 AND a.sku = $3 AND a.${ACTIVE}) AS user_active
                   FROM (SELECT) AS one
                   LEFT JOIN sku_stock s ON s.sku = $3
                   LEFT JOIN reservation r ON r.request_key = $1`,
  insertHold: `INSERT INTO reservation (request_key, user_id, sku, status, expires_at)
               VALUES ($1, $2, $3, 'HELD', now() + make_interval(secs => $4 / 1000.0))`,
  writeAvailable: 'UPDATE sku_stock SET available = $2 WHERE sku = $1',
} as const;

interface DecisionRead {
  available: number | null;
  key_user: string | null;
  key_sku: string | null;
  key_status: ReservationStatus | null;
  user_active: boolean;
}

/**
 * One attempt, in its own SERIALIZABLE transaction; any error rolls it back and is thrown. The test
 * fixture serializable-no-retry runs this alone.
 */
export async function reserveOnce(ctx: SessionContext, request: ReserveRequest): Promise<ReserveResult> {
  return inTransaction(ctx.db, () => decideAndWrite(ctx, request), 'SERIALIZABLE');
}

async function decideAndWrite(ctx: SessionContext, request: ReserveRequest): Promise<ReserveResult> {
  const { db } = ctx;
  const { requestKey, user, sku, ttlMs } = request;
  const { rows } = await db.query<DecisionRead>(SQL.decisionRead, [requestKey, user, sku]);
  const read = rows[0];
  await ctx.pause('after-read');
  if (!read) throw new Error('the decision read returned no row');
  if (read.key_status) {
    if (read.key_user !== user || read.key_sku !== sku) return { outcome: 'KEY_REUSED' };
    return { outcome: 'REPLAY', status: read.key_status };
  }
  if (read.user_active) return { outcome: 'USER_LIMIT' };
  if (read.available === null) return { outcome: 'BAD_REQUEST' };
  if (read.available <= 0) return { outcome: 'SOLD_OUT' };
  // The stock row first: every other attempt that read it fails here (40001) before it inserts, so only
  // one attempt at a time writes into the reservation indexes that all of them read. Inserting first would
  // make all 150 of contention conflict with each other, more read/write conflicts than PostgreSQL has
  // room to record (53200, "not enough elements in RWConflictPool").
  await db.query(SQL.writeAvailable, [sku, read.available - 1]);
  await db.query(SQL.insertHold, [requestKey, user, sku, ttlMs]);
  await ctx.pause('before-commit');
  return { outcome: 'HELD', status: 'HELD' };
}

/** The whole transaction retried on RETRYABLE, until `attempts` were spent: then GAVE_UP. */
function reserveRetrying(attempts: number): Strategy['reserve'] {
  return async (ctx, request) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await reserveOnce(ctx, request);
      } catch (error: unknown) {
        const sqlstate = sqlstateOf(error);
        if (sqlstate === undefined || !RETRYABLE.has(sqlstate)) throw error;
        if (attempt >= attempts) return { outcome: 'GAVE_UP' };
        ctx.retried?.(sqlstate);
      }
    }
  };
}

/** serializable with `attempts` as its retry bound (the knob `attempts`). */
function serializableWith(attempts: number): Strategy {
  return { ...serializableBase, reserve: reserveRetrying(attempts), ...attemptsKnob(serializableWith) };
}

const serializableBase: Strategy = {
  id: 'serializable',
  title: 'SERIALIZABLE check-then-act, whole transaction retried on 40001',
  guarantee: 'read, decide, write under SERIALIZABLE; a 40001 retries the whole transaction (bounded)',
  expect: 'hold',
  needs: ['serializable'],
  pausePoints: { reserve: ['after-read', 'before-commit'], expire: ['before-commit'] },

  setup: (db, stock) => createStockAndReservation(db, stock, { oneActivePerUser: true }),

  reserve: reserveRetrying(MAX_ATTEMPTS),

  ...stockRowLifecycle,
  remaining: stockRowRemaining,
  audit: auditStockAndReservation,
};

const serializable = serializableWith(MAX_ATTEMPTS);

export default serializable;
