/**
 * count-without-lock — NEGATIVE CONTROL (expect: violate). row-lock-count without the slot row lock:
 * COUNT the sku's active reservations, decide in the application, then INSERT (the naive LabReserve code
 * LabReserve starts from).
 *
 * What it gets wrong: the count is a snapshot, and nothing stops another transaction from inserting
 * between this one's COUNT and its INSERT. Every client that counted 0 of 40 inserts: the holds exceed the
 * capacity. A transaction around the two statements does not help (LabReserve: a transaction makes them
 * commit together, it does not make two transactions take turns); the resource FOR SHARE it keeps is
 * shared by every booking.
 *
 * How the suite catches it every run: `contention` and `contention-30-2` hold every client at `after-read`
 * (after its COUNT, before its INSERT) until all have counted, so every client decides on an empty slot,
 * not by luck.
 */
import type { ReserveResult, Strategy } from '../contract.ts';
import rowLockCount, { countActive, ROW_LOCK_COUNT_SQL, shareResource } from '../row-lock-count.ts';
import { answerForRecordedKey, claimRequestKey } from '../support/reservation-table.ts';
import { inTransaction } from '../support/transaction.ts';

const countWithoutLock: Strategy = {
  ...rowLockCount,
  id: 'count-without-lock',
  title: 'Count the active reservations, then insert, without the slot row lock',
  guarantee: 'none: the count is read before the insert and nothing serialises the two (check-then-act)',
  expect: 'violate',
  caughtBy: { contention: ['oversold'], 'contention-30-2': ['oversold'] },
  notApplicable: 'negative control: contention and contention-30-2 are the cases that must catch it',
  reserve: (ctx, request) =>
    inTransaction(ctx.db, async (): Promise<ReserveResult> => {
      const resource = await shareResource(ctx.db, request);
      if (resource !== 'open') return resource;
      const recorded = await answerForRecordedKey(ctx.db, request);
      if (recorded) return recorded;
      const slot = await ctx.db.query<{ capacity: number }>(ROW_LOCK_COUNT_SQL.capacity, [request.sku]);
      const active = await countActive(ctx.db, request.sku);
      await ctx.pause('after-read');
      if (active >= (slot.rows[0]?.capacity ?? 0)) return { outcome: 'SOLD_OUT' };
      const claim = await claimRequestKey(ctx.db, request);
      if (claim !== 'claimed') return claim;
      await ctx.pause('before-commit');
      return { outcome: 'HELD', status: 'HELD' };
    }),
};

export default countWithoutLock;
