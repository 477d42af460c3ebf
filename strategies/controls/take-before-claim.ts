/**
 * take-before-claim — NEGATIVE CONTROL (expect: violate). Takes the unit from the stock row in a statement
 * of its own (committed at once, as a stock service called before the order is written would), then claims
 * the key in a transaction; `remaining` is what the orders say is left (total − active holds).
 *
 * What it gets wrong: a reserve the claim refuses (USER_LIMIT, REPLAY, KEY_REUSED) has already taken its
 * unit, and nothing gives it back: the stock row leaks a unit per refused request. Every answer and status
 * is right, and the books look right because `remaining` is derived from the holds, not read from the
 * stock row that decides SOLD_OUT: drift, the audit and the history all agree with each other. Only
 * selling what `remaining` says is left shows the units are gone.
 *
 * How the suite catches it every run: in `user-limit` one user sends 8 keys at once; one is HELD, 7 are
 * refused with USER_LIMIT, and 7 units leak. After the final read (remaining 39) the harness's
 * sell-what-remains probe sells 32 and is told SOLD_OUT (`sellsWhatRemains`).
 */
import type { ClientBase } from 'pg';
import type { ReserveResult, Strategy } from '../contract.ts';
import { ACTIVE, auditWithStockCounts, claimRequestKey } from '../support/reservation-table.ts';
import { createStockAndReservation, stockRowLifecycle } from '../support/stock-and-reservation.ts';
import { inTransaction } from '../support/transaction.ts';

const SQL = {
  take: 'UPDATE sku_stock SET available = available - 1 WHERE sku = $1 AND available > 0',
  known: 'SELECT 1 FROM sku_stock WHERE sku = $1',
  // What the orders say is left: the stock given, less the active holds.
  counts: `SELECT s.sku, s.total,
                  (s.total - (SELECT count(*) FROM reservation r WHERE r.sku = s.sku AND r.${ACTIVE}))::int
                    AS available
             FROM sku_stock s`,
} as const;

async function remainingByOrders(db: ClientBase, sku: string): Promise<number> {
  const { rows } = await db.query<{ available: number }>(`${SQL.counts} WHERE s.sku = $1`, [sku]);
  return rows[0]?.available ?? 0;
}

const takeBeforeClaim: Strategy = {
  id: 'take-before-claim',
  title: 'Take the unit first, then claim the key; remaining counted from the holds',
  guarantee:
    'none: a unit taken for a request the claim then refuses is never given back, and remaining (total − holds) hides it',
  expect: 'violate',
  caughtBy: { 'user-limit': ['sellsWhatRemains'] },
  notApplicable: 'negative control: user-limit is the case that must catch it',
  pausePoints: { reserve: ['before-commit'] },

  setup: (db, stock) => createStockAndReservation(db, stock, { oneActivePerUser: true }),

  async reserve(ctx, request) {
    const taken = await ctx.db.query(SQL.take, [request.sku]);
    if (taken.rowCount !== 1) {
      const known = await ctx.db.query(SQL.known, [request.sku]);
      return { outcome: known.rowCount ? 'SOLD_OUT' : 'BAD_REQUEST' };
    }
    return inTransaction(ctx.db, async (): Promise<ReserveResult> => {
      const claim = await claimRequestKey(ctx.db, request);
      if (claim !== 'claimed') return claim;
      await ctx.pause('before-commit');
      return { outcome: 'HELD', status: 'HELD' };
    });
  },

  ...stockRowLifecycle,
  remaining: remainingByOrders,
  audit: (db) => auditWithStockCounts(db, `${SQL.counts} ORDER BY s.sku`),
};

export default takeBeforeClaim;
