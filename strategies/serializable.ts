/**
 * serializable — check-then-act made safe by the isolation level: read, decide in the application, write,
 * all under `BEGIN ISOLATION LEVEL SERIALIZABLE`, and the whole transaction retried on a serialization
 * failure (seed 002's "RR stale row write → whole transaction retry", and its write skew under SSI).
 *
 * How it stays correct: one statement reads everything the decision depends on (the key's row, whether the
 * user holds an active reservation of the sku, the stock row's `available`); the application decides;
 * then it writes back `available = <read> - 1` (the very write that loses updates in check-then-act)
 * and inserts the reservation. SERIALIZABLE makes the outcome equal to some serial order of the
 * transactions or fails one of them: a stock row another transaction changed and committed since this
 * snapshot fails the UPDATE with 40001 (first updater wins), a read that a concurrent commit invalidated
 * fails with 40001 at a later statement or at COMMIT, and an insert that meets a concurrent one in a
 * unique index fails with 40001 or 23505. Each of these ends the attempt (rolled back, nothing written)
 * and the whole transaction runs again on a new snapshot; 40P01 is retried the same way. 23505 is retried
 * rather than looked up because this snapshot cannot see the committed row that caused it (the manual,
 * 13.5 "Serialization Failure Handling": such a unique-key failure is in effect a serialization failure);
 * the next attempt reads it and answers REPLAY, KEY_REUSED or USER_LIMIT. The partial unique index stays
 * as the database's own guard of one active hold per user.
 *
 * The retry bound: a failure needs a concurrent transaction that wrote what this attempt read (or the
 * reverse), and in `contention` only the 40 sales write, so a client fails about once per sale made while
 * it tries: at most ~40 times, measured at most 25. MAX_ATTEMPTS (300) leaves room for lifecycle writes
 * and heavier load; a request that fails MAX_ATTEMPTS times answers GAVE_UP with nothing written.
 *
 * Lifecycle: confirm, release and expire run at the session's level, READ COMMITTED, with hot-row's
 * conditional statements (`WHERE status = 'HELD'`, stock back in the same statement). They decide nothing
 * from an earlier read, so a serializable snapshot would only add 40001s to handle. SSI watches only
 * serializable transactions, and they stay safe beside it anyway: they only take rows out of "active"
 * and add stock, so a reserve that read before them decided as if it ran first, a valid order; and the
 * one reserve write they could be lost under, `available = <read> - 1` over a unit they returned, fails
 * with 40001 when the reserve's snapshot predates their commit, whatever their level (first updater wins).
 *
 * When it breaks: at any lower isolation level (READ COMMITTED: check-then-act's lost update; REPEATABLE
 * READ: safe on the stock row, but the same read-then-insert on a COUNT would let write skew through —
 * specs/write-skew-repeatable-read.spec), or without the retry (test/fixtures/serializable-no-
 * retry.ts: its 40001s surface as errors). Every concurrent sale of one sku conflicts on the stock row,
 * so under contention most attempts are thrown away, each after a full transaction: the cost of a sale
 * grows with the number of clients attempting it at once. PostgreSQL records each read/write conflict in a
 * pool sized from max_connections: 150 writers that all conflict with each other exhausted it (53200)
 * while the insert came before the stock write (see decideAndWrite).
 *
 * Pause points: reserve `after-read` after the decision read of every attempt (the harness holds the
 * first), `before-commit` after both writes; expire `before-commit`.
 *
 * Last measured (embedded PostgreSQL 18.4, synchronous_commit=off, 2 cores shared with other runs, load
 * average 12–14, 2026-11-30): contention HELD 40, SOLD_OUT 110, drift 0, 1699–2834 retries (all 40001)
 * per case over 12 runs; driven directly, 9 runs: 12–20 retries for the median client, at most 25 for
 * any one.
 * bench (reservations/s, p99 ms): 1 client 1332 (4.4), 16: 500 (302), 150: 34 (4575); behind admission
 * 4:8: 1283 (4.7), 600 (222), 645 (164) — 19× the ungated throughput at 150. No errors, no GAVE_UP.
 * The bench does not count a strategy's retries; the same closed loop outside it, 4 s: 8.3 retries per
 * request at 16 clients (p99 47, max 59), 47 at 150 (p99 110, max 111): MAX_ATTEMPTS is under 3× what
 * 150 unadmitted clients needed. Speeds on a machine this loaded are only comparable within one run.
 */
import type {
  ReservationStatus,
  ReserveRequest,
  ReserveResult,
  SessionContext,
  Strategy,
} from './contract.ts';
import { ACTIVE } from './support/reservation-table.ts';
import { SQLSTATE, sqlstateOf } from './support/sqlstate.ts';
import {
  auditStockAndReservation,
  createStockAndReservation,
  stockRowLifecycle,
  stockRowRemaining,
} from './support/stock-and-reservation.ts';
import { inTransaction } from './support/transaction.ts';

/** Attempts per request (see "The retry bound" above). */
export const MAX_ATTEMPTS = 300;

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
  // one attempt at a time writes into the reservation indexes that all of them read. Inserting first made
  // all 150 of contention conflict with each other, and PostgreSQL ran out of room to record the
  // read/write conflicts (53200, "not enough elements in RWConflictPool").
  await db.query(SQL.writeAvailable, [sku, read.available - 1]);
  await db.query(SQL.insertHold, [requestKey, user, sku, ttlMs]);
  await ctx.pause('before-commit');
  return { outcome: 'HELD', status: 'HELD' };
}

const serializable: Strategy = {
  id: 'serializable',
  title: 'SERIALIZABLE check-then-act, whole transaction retried on 40001',
  guarantee: 'read, decide, write under SERIALIZABLE; a 40001 retries the whole transaction (bounded)',
  expect: 'hold',
  pausePoints: { reserve: ['after-read', 'before-commit'], expire: ['before-commit'] },

  setup: (db, stock) => createStockAndReservation(db, stock, { oneActivePerUser: true }),

  reserve: async (ctx, request) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await reserveOnce(ctx, request);
      } catch (error: unknown) {
        const sqlstate = sqlstateOf(error);
        if (sqlstate === undefined || !RETRYABLE.has(sqlstate)) throw error;
        if (attempt >= MAX_ATTEMPTS) return { outcome: 'GAVE_UP' };
        ctx.retried?.(sqlstate);
      }
    }
  },

  ...stockRowLifecycle,
  remaining: stockRowRemaining,
  audit: auditStockAndReservation,
};

export default serializable;
