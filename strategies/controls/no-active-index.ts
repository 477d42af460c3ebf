/**
 * no-active-index — NEGATIVE CONTROL (expect: violate), the flash-sale lab's user-index counter-example.
 * hot-row without the partial unique index: "does this user already hold one?" is a SELECT in the
 * application, then the insert.
 *
 * What it gets wrong: the check is evaluated before the write, and nothing in the database re-checks it
 * at the write. Two sessions of one user that both read "no active hold" both insert: 2 active holds.
 *
 * How the suite catches it every run: `user-race` runs both sessions to `after-read` before either goes
 * on; the audit shows duplicateActive 1. The same interleaving on hot-row gives HELD 1 + USER_LIMIT 1.
 */

import type { ReserveResult, Strategy } from '../contract.ts';
import hotRow from '../hot-row.ts';
import { ACTIVE, answerForRecordedKey, claimRequestKey } from '../support/reservation-table.ts';
import { createStockAndReservation, takeUnitOrRollBackClaim } from '../support/stock-and-reservation.ts';
import { inTransaction } from '../support/transaction.ts';

const USER_HAS_ACTIVE = `SELECT 1 FROM reservation WHERE user_id = $1 AND sku = $2 AND ${ACTIVE}`;

const noActiveIndex: Strategy = {
  ...hotRow,
  id: 'no-active-index',
  title: 'One active hold per user checked in the app, no partial unique index',
  guarantee: 'none: the per-user check is read before the write and never re-checked',
  expect: 'violate',
  caughtBy: { 'user-race': ['duplicateActive'] },
  notApplicable: 'negative control: user-race is the case that must catch it',
  setup: (db, stock) => createStockAndReservation(db, stock, { oneActivePerUser: false }),
  reserve: (ctx, request) =>
    inTransaction(ctx.db, async (): Promise<ReserveResult> => {
      const recorded = await answerForRecordedKey(ctx.db, request);
      if (recorded) return recorded;
      const active = await ctx.db.query(USER_HAS_ACTIVE, [request.user, request.sku]);
      await ctx.pause('after-read');
      if (active.rowCount) return { outcome: 'USER_LIMIT' };
      const claim = await claimRequestKey(ctx.db, request);
      if (claim !== 'claimed') return claim;
      const unit = await takeUnitOrRollBackClaim(ctx.db, request.sku);
      if (unit !== 'taken') return unit;
      await ctx.pause('before-commit');
      return { outcome: 'HELD', status: 'HELD' };
    }),
};

export default noActiveIndex;
