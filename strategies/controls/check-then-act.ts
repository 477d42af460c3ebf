/**
 * check-then-act — NEGATIVE CONTROL (expect: violate). Reads `available`, decides in the application,
 * then writes an absolute value (`SET available = <read> - 1`).
 *
 * What it gets wrong: the decision is made on a value read before the write, and the write does not
 * re-check it. Between the read and the write nothing is locked, so every client that read 40 writes 39:
 * the updates are lost and the reservations oversell. The flash-sale lab names this as hot-row's failure
 * boundary.
 *
 * How the suite catches it every run: in `contention` the harness holds every client at `after-read`
 * until all have read (a cross-thread barrier), so the window is open for all of them, not by luck.
 */
import type { ReserveResult, Strategy } from '../contract.ts';
import { answerForRecordedKey, reservationStatus } from '../support/reservation-table.ts';
import {
  auditStockAndReservation,
  createStockAndReservation,
  stockRowRemaining,
} from '../support/stock-and-reservation.ts';
import { inTransaction } from '../support/transaction.ts';

const SQL = {
  readAvailable: 'SELECT available FROM sku_stock WHERE sku = $1',
  insertHold: `INSERT INTO reservation (request_key, user_id, sku, status, expires_at)
               VALUES ($1, $2, $3, 'HELD', now() + make_interval(secs => $4 / 1000.0))`,
  writeAvailable: 'UPDATE sku_stock SET available = $2 WHERE sku = $1',
} as const;

const checkThenAct: Strategy = {
  id: 'check-then-act',
  title: 'Check-then-act: read available, decide in the app, write an absolute value',
  guarantee: 'none: the check is not re-evaluated at write time (lost update)',
  expect: 'violate',
  caughtBy: { contention: ['oversold'] },
  notApplicable: 'negative control: contention is the case that must catch it',
  pausePoints: { reserve: ['after-read', 'before-commit'] },

  setup: (db, stock) => createStockAndReservation(db, stock, { oneActivePerUser: true }),

  reserve: (ctx, request) =>
    inTransaction(ctx.db, async (): Promise<ReserveResult> => {
      const { db } = ctx;
      const recorded = await answerForRecordedKey(db, request);
      if (recorded) return recorded;
      const read = await db.query<{ available: number }>(SQL.readAvailable, [request.sku]);
      const available = read.rows[0]?.available;
      await ctx.pause('after-read');
      if (available === undefined) return { outcome: 'BAD_REQUEST' };
      if (available <= 0) return { outcome: 'SOLD_OUT' };
      await db.query(SQL.insertHold, [request.requestKey, request.user, request.sku, request.ttlMs]);
      await db.query(SQL.writeAvailable, [request.sku, available - 1]);
      await ctx.pause('before-commit');
      return { outcome: 'HELD', status: 'HELD' };
    }),

  status: reservationStatus,
  remaining: stockRowRemaining,
  audit: auditStockAndReservation,
};

export default checkThenAct;
