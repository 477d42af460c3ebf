/**
 * optimistic-cas — a version column on the stock row, compare-and-set (the isolation-matrix chapter's "RC
 * version CAS").
 *
 * How it stays correct: the decision (`available > 0`) is made in the application on a row read without
 * a lock, and the write lands only if nothing changed the row since: `UPDATE … SET available = available
 * - 1, version = version + 1 WHERE sku = $1 AND version = $2`. In READ COMMITTED the losers of a version
 * wait for the winner, re-evaluate, touch 0 rows, re-read and decide again. Every write to the counter
 * bumps the version (release and expire too), so "same version" means "same row". The key and one active
 * hold per user are claimed first (claimRequestKey); SOLD_OUT, BAD_REQUEST and GAVE_UP roll back to that
 * claim. The retry bound: a client's read→UPDATE windows do not overlap, so it loses at most once per
 * write to the row (40 in `contention`); MAX_ATTEMPTS (300) leaves room for the lifecycle, and a request
 * that loses that often (the bench's unbounded load) answers GAVE_UP, having rolled back to its claim. The
 * bound is the knob `attempts` (retryBound): the give-up scenario sets it to 2 and makes both rounds lose.
 *
 * When it breaks: a write to `available` that does not bump the version (controls/cas-without-version.ts
 * leaves the check out), a retry that re-uses the old read, or any isolation above READ COMMITTED (at
 * REPEATABLE READ the losing UPDATE fails with 40001). It is optimistic only in the decision: losers still
 * queue on the winner's row lock, and a sku's sales run one at a time, with a wasted round trip per loss.
 *
 * Lifecycle: hot-row's statements plus the version bump: confirm, release and expire move rows only
 * `WHERE status = 'HELD'` and return stock in the same statement.
 *
 * Pause points: reserve `after-read` after every read of `available, version` (the harness holds the
 * first), `before-commit` once the version check has landed; expire `before-commit`.
 */
import type { ClientBase } from 'pg';
import type { ReserveRequest, ReserveResult, Strategy } from './contract.ts';
import { claimRequestKey, lifecycleFromStatements } from './support/reservation-table.ts';
import { attemptsKnob, MAX_ATTEMPTS } from './support/retry-bound.ts';
import {
  auditStockAndReservation,
  createStockAndReservation,
  stockRowRemaining,
} from './support/stock-and-reservation.ts';
import { inTransaction } from './support/transaction.ts';

export interface StockRead {
  available: number;
  /** bigint, as the driver returns it: only ever compared by the database. */
  version: string;
}

/** Takes one unit given the row as read; true when the write landed. */
export type TakeUnit = (db: ClientBase, sku: string, read: StockRead) => Promise<boolean>;

const SQL = {
  addVersion: 'ALTER TABLE sku_stock ADD COLUMN version bigint NOT NULL DEFAULT 0',
  read: 'SELECT available, version FROM sku_stock WHERE sku = $1',
  compareAndSet: `UPDATE sku_stock SET available = available - 1, version = version + 1
                   WHERE sku = $1 AND version = $2`,
  // hot-row's lifecycle statements plus the version bump: every write to the row is one the version check
  // sees, so the check would stay sound for a write of the value computed (`available = <read> - 1`),
  // not only for the relative decrement used here.
  expire: `WITH moved AS (
             UPDATE reservation SET status = 'EXPIRED', updated_at = now()
              WHERE status = 'HELD' AND expires_at < now()
             RETURNING sku),
           per AS (SELECT sku, count(*)::int AS n FROM moved GROUP BY sku),
           returned AS (
             UPDATE sku_stock s SET available = s.available + per.n, version = s.version + 1
               FROM per WHERE s.sku = per.sku
             RETURNING per.n)
           SELECT coalesce(sum(n), 0)::int AS units FROM returned`,
  release: `WITH moved AS (
              UPDATE reservation SET status = 'RELEASED', updated_at = now()
               WHERE request_key = $1 AND status = 'HELD'
              RETURNING sku)
            UPDATE sku_stock s SET available = s.available + 1, version = s.version + 1
              FROM moved WHERE s.sku = moved.sku`,
} as const;

/** The version check: the write lands only on the row as it was read. */
export const compareAndSet: TakeUnit = async (db, sku, read) =>
  (await db.query(SQL.compareAndSet, [sku, read.version])).rowCount === 1;

/** What a reserve that ran out of attempts does before it answers GAVE_UP, inside its transaction. */
export type GiveUp = (db: ClientBase, request: ReserveRequest) => Promise<unknown>;

/** GAVE_UP writes nothing: the claim is rolled back with everything after it. */
const rollBackClaim: GiveUp = (db) => db.query('ROLLBACK TO SAVEPOINT claim');

/**
 * The optimistic reserve around a given write: claim the key, then read → decide → write until the write
 * lands, the stock is gone, or `attempts` reads were spent. The controls pass a write without the check,
 * or a give-up that keeps something.
 */
export function reserveOptimistically(
  takeUnit: TakeUnit,
  attempts = MAX_ATTEMPTS,
  giveUp: GiveUp = rollBackClaim,
): Strategy['reserve'] {
  return (ctx, request) =>
    inTransaction(ctx.db, async (): Promise<ReserveResult> => {
      const claim = await claimRequestKey(ctx.db, request);
      if (claim !== 'claimed') return claim;
      for (let attempt = 1; attempt <= attempts; attempt++) {
        if (attempt > 1) ctx.retried?.('version');
        const read = (await ctx.db.query<StockRead>(SQL.read, [request.sku])).rows[0];
        await ctx.pause('after-read');
        if (!read || read.available <= 0) {
          await ctx.db.query('ROLLBACK TO SAVEPOINT claim');
          return { outcome: read ? 'SOLD_OUT' : 'BAD_REQUEST' };
        }
        if (await takeUnit(ctx.db, request.sku, read)) {
          await ctx.pause('before-commit');
          return { outcome: 'HELD', status: 'HELD' };
        }
      }
      await giveUp(ctx.db, request);
      return { outcome: 'GAVE_UP' };
    });
}

/** optimistic-cas with `attempts` as its retry bound (the knob `attempts`). */
function optimisticCasWith(attempts: number): Strategy {
  return {
    ...optimisticCasBase,
    reserve: reserveOptimistically(compareAndSet, attempts),
    ...attemptsKnob(optimisticCasWith),
  };
}

const optimisticCasBase: Strategy = {
  id: 'optimistic-cas',
  title: 'Optimistic CAS: version column, retry on a lost version check',
  guarantee: '`WHERE version = <read>`: one write lands per version, the others re-read and retry (bounded)',
  expect: 'hold',
  pausePoints: { reserve: ['after-read', 'before-commit'], expire: ['before-commit'] },

  setup: async (db, stock) => {
    await createStockAndReservation(db, stock, { oneActivePerUser: true });
    await db.query(SQL.addVersion);
  },

  reserve: reserveOptimistically(compareAndSet),

  ...lifecycleFromStatements({ expire: SQL.expire, release: SQL.release }),
  remaining: stockRowRemaining,
  audit: auditStockAndReservation,
};

const optimisticCas = optimisticCasWith(MAX_ATTEMPTS);

export default optimisticCas;
