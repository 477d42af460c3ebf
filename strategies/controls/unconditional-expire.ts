/**
 * unconditional-expire — NEGATIVE CONTROL (expect: violate), the flash-sale lab's unconditional-expiry
 * counter-example. hot-row's reservations, but an expiry job that picks rows by expiry time alone and returns
 * one unit per id it picked, without `status = 'HELD'` in its WHERE.
 *
 * What it gets wrong: a replay picks the same ids again (they are EXPIRED now, still past expiry) and
 * returns their units a second time. `CHECK (available <= total)` does not fire: 10 of 10 held, 5 expired,
 * replayed once → available is back at 10, and 10 new clients are all HELD: active 15 of 10.
 *
 * How the suite catches it every run: `expire-replay` replays the job and then lets 10 new clients in;
 * the audit shows oversold 5 and drift −5.
 */

import type { Strategy } from '../contract.ts';
import hotRow from '../hot-row.ts';
import { returnUnitPerRow } from '../support/stock-and-reservation.ts';
import { inTransaction } from '../support/transaction.ts';

const SQL = {
  pickExpired: 'SELECT reservation_id, sku FROM reservation WHERE expires_at < now()',
  markExpired:
    "UPDATE reservation SET status = 'EXPIRED', updated_at = now() WHERE reservation_id = ANY ($1)",
} as const;

const unconditionalExpire: Strategy = {
  ...hotRow,
  id: 'unconditional-expire',
  title: 'Expiry by id without status = HELD, one unit back per id',
  guarantee: 'none: units are returned per id picked, not per row moved from HELD',
  expect: 'violate',
  caughtBy: { 'expire-replay': ['oversold'] },
  notApplicable: 'negative control: expire-replay is the case that must catch it',
  expire: (ctx) =>
    inTransaction(ctx.db, async () => {
      const picked = await ctx.db.query<{ reservation_id: string; sku: string }>(SQL.pickExpired);
      await ctx.db.query(SQL.markExpired, [picked.rows.map((r) => r.reservation_id)]);
      await returnUnitPerRow(ctx.db, picked.rows);
      await ctx.pause('before-commit');
      return picked.rows.length;
    }),
};

export default unconditionalExpire;
