/**
 * standby-stock-check — NEGATIVE CONTROL (expect: violate). check-then-act with its check served by a
 * standby: reads `available` on a read replica (SessionContext.standby, where the database under test has
 * one; the primary otherwise), decides in the application, then writes the decremented value on the
 * primary (`SET available = <read> - 1`).
 *
 * What it gets wrong: a standby answers with what it has replayed, which may run behind the primary. While
 * it does, every reserve reads the same stale count, and each write sets the stock back to it: the updates
 * are lost, and the reservations oversell — one client, one request at a time, no race needed.
 *
 * How the suite catches it every run with a cluster: `standby-reads` cuts the standby's link once it has
 * replayed the first holds and sends 20 requests one after another for the 10 units left; the standby still
 * says 10 left to each (`oversold`).
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

const standbyStockCheck: Strategy = {
  id: 'standby-stock-check',
  title: 'Stock checked on a standby, written on the primary',
  guarantee: 'none: the count is read where it may run behind, and written back as read (lost update)',
  expect: 'violate',
  caughtBy: { 'standby-reads': ['oversold'] },
  notApplicable:
    'negative control: standby-reads (a cluster scenario, run --cluster) is the case that must catch it',
  pausePoints: { reserve: ['after-read', 'before-commit'] },

  setup: (db, stock) => createStockAndReservation(db, stock, { oneActivePerUser: true }),

  reserve: (ctx, request) =>
    inTransaction(ctx.db, async (): Promise<ReserveResult> => {
      const { db } = ctx;
      const recorded = await answerForRecordedKey(db, request);
      if (recorded) return recorded;
      const read = await (ctx.standby ?? db).query<{ available: number }>(SQL.readAvailable, [request.sku]);
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

export default standbyStockCheck;
