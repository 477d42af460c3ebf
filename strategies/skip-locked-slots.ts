/**
 * skip-locked-slots — one row per unit of stock; a reservation claims a free slot with
 * `SELECT … FOR UPDATE SKIP LOCKED LIMIT 1` (the flash-sale lab, design B).
 *
 * How it stays correct: a slot row holds at most one holder_key (a unique reservation key), so the held
 * slots can never exceed the slots there are; contenders spread over many rows instead of queueing on one.
 * request_key idempotency and one active hold per user come from the shared reservation table.
 *
 * When it breaks: SKIP LOCKED skips a slot that another transaction has locked but may still roll back.
 * When every free slot is locked, the request answers SOLD_OUT although a unit comes back a moment later:
 * the flash-sale lab's "false sold-out". It never oversells; it may undersell under aborts.
 *
 * Lifecycle: confirm, release and expire move rows only `WHERE status = 'HELD'`; release and expire free
 * exactly the slots those rows held, in the same statement.
 *
 * Pause points: reserve `after-read` once the key is claimed, before a slot is looked for, and
 * `before-commit` with the slot locked and taken, transaction open; expire `before-commit`.
 */
import { readFileSync } from 'node:fs';
import type { ReserveResult, Strategy } from './contract.ts';
import {
  auditWithStockCounts,
  claimRequestKey,
  createReservationTable,
  lifecycleFromStatements,
} from './support/reservation-table.ts';
import { inTransaction } from './support/transaction.ts';

const SCHEMA_SQL = readFileSync(new URL('./skip-locked-slots.sql', import.meta.url), 'utf8');

const SQL = {
  loadSkus: 'INSERT INTO sku (sku, total) SELECT * FROM unnest($1::text[], $2::int[])',
  loadSlots: 'INSERT INTO stock_slot (sku, slot_no) SELECT sku, generate_series(1, total) FROM sku',
  claimSlot: `SELECT slot_no FROM stock_slot WHERE sku = $1 AND holder_key IS NULL
              ORDER BY slot_no LIMIT 1 FOR UPDATE SKIP LOCKED`,
  holdSlot: 'UPDATE stock_slot SET holder_key = $3 WHERE sku = $1 AND slot_no = $2',
  expire: `WITH moved AS (
             UPDATE reservation SET status = 'EXPIRED', updated_at = now()
              WHERE status = 'HELD' AND expires_at < now()
             RETURNING request_key),
           freed AS (UPDATE stock_slot SET holder_key = NULL WHERE holder_key IN (SELECT request_key FROM moved)
                     RETURNING 1)
           SELECT count(*)::int AS units FROM freed`,
  release: `WITH moved AS (
              UPDATE reservation SET status = 'RELEASED', updated_at = now()
               WHERE request_key = $1 AND status = 'HELD'
              RETURNING request_key)
            UPDATE stock_slot SET holder_key = NULL WHERE holder_key IN (SELECT request_key FROM moved)`,
  freeSlots: 'SELECT count(*)::int AS free FROM stock_slot WHERE sku = $1 AND holder_key IS NULL',
  // count(t.slot_no): a sku of no stock has no slot, and its one LEFT JOIN row is no free slot.
  counts: `SELECT s.sku, s.total, count(t.slot_no) FILTER (WHERE t.holder_key IS NULL)::int AS available
             FROM sku s LEFT JOIN stock_slot t USING (sku) GROUP BY s.sku, s.total ORDER BY s.sku`,
} as const;

const skipLockedSlots: Strategy = {
  id: 'skip-locked-slots',
  title: 'Slot rows claimed with FOR UPDATE SKIP LOCKED',
  guarantee: 'each slot row holds at most one holder_key; contenders skip locked slots instead of waiting',
  falseSoldOut:
    'a slot locked by a transaction in flight is skipped, and SOLD_OUT answered if it was the last',
  expect: 'hold',
  needs: ['skipLocked'],
  pausePoints: { reserve: ['after-read', 'before-commit'], expire: ['before-commit'] },

  async setup(db, stock) {
    await createReservationTable(db, { oneActivePerUser: true });
    await db.query(SCHEMA_SQL);
    await db.query(SQL.loadSkus, [stock.map((s) => s.sku), stock.map((s) => s.total)]);
    await db.query(SQL.loadSlots);
  },

  reserve: (ctx, request) =>
    inTransaction(ctx.db, async (): Promise<ReserveResult> => {
      const claim = await claimRequestKey(ctx.db, request);
      if (claim !== 'claimed') return claim;
      await ctx.pause('after-read');
      const slot = await ctx.db.query<{ slot_no: number }>(SQL.claimSlot, [request.sku]);
      const slotNo = slot.rows[0]?.slot_no;
      if (slotNo === undefined) {
        await ctx.db.query('ROLLBACK TO SAVEPOINT claim');
        return { outcome: 'SOLD_OUT' };
      }
      await ctx.db.query(SQL.holdSlot, [request.sku, slotNo, request.requestKey]);
      await ctx.pause('before-commit');
      return { outcome: 'HELD', status: 'HELD' };
    }),

  ...lifecycleFromStatements(SQL),

  async remaining(db, sku) {
    const { rows } = await db.query<{ free: number }>(SQL.freeSlots, [sku]);
    return rows[0]?.free ?? 0;
  },

  audit: (db) => auditWithStockCounts(db, SQL.counts),
};

export default skipLockedSlots;
