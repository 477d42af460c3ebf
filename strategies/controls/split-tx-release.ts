/**
 * split-tx-release — NEGATIVE CONTROL (expect: violate), the flash-sale lab's split-transaction
 * counter-example. hot-row's reservations, but an expiry job that returns the stock in one transaction and
 * changes the rows' status in a second.
 *
 * What it gets wrong: killed between the two (pause point `between-transactions`), the units are back
 * while the rows are still HELD and past expiry; the rerun finds them again and returns them again.
 * 10 of 10 held, 5 expired → killed after the first commit → rerun → 10 new clients all HELD: active 15.
 *
 * How the suite catches it every run: `crash-recovery` kills the expiry child with SIGKILL at
 * `between-transactions`, waits until its backend is gone, reruns expiry and lets 10 new clients in.
 */

import type { Strategy } from '../contract.ts';
import hotRow from '../hot-row.ts';
import { returnUnitPerRow } from '../support/stock-and-reservation.ts';
import { inTransaction } from '../support/transaction.ts';

const SQL = {
  pickExpired: "SELECT reservation_id, sku FROM reservation WHERE status = 'HELD' AND expires_at < now()",
  markExpired: `UPDATE reservation SET status = 'EXPIRED', updated_at = now()
                 WHERE reservation_id = ANY ($1) AND status = 'HELD'`,
} as const;

const splitTxRelease: Strategy = {
  ...hotRow,
  id: 'split-tx-release',
  title: 'Expiry returns stock in one transaction, marks rows EXPIRED in a second',
  guarantee: 'none: the stock and the status change commit separately',
  expect: 'violate',
  caughtBy: { 'crash-recovery': ['oversold'] },
  notApplicable: 'negative control: crash-recovery is the case that must catch it',
  pausePoints: { ...hotRow.pausePoints, expire: ['between-transactions'] },
  async expire(ctx) {
    const ids = await inTransaction(ctx.db, async () => {
      const picked = await ctx.db.query<{ reservation_id: string; sku: string }>(SQL.pickExpired);
      await returnUnitPerRow(ctx.db, picked.rows);
      return picked.rows.map((r) => r.reservation_id);
    });
    await ctx.pause('between-transactions');
    await inTransaction(ctx.db, () => ctx.db.query(SQL.markExpired, [ids]));
    return ids.length;
  },
};

export default splitTxRelease;
