/**
 * row-lock-count — no stock counter: the slot's active reservations are the stock state (seed 001,
 * LabReserve). Reserve, READ COMMITTED: lock the sku's resource FOR SHARE, claim the request key, lock the
 * sku's slot row FOR UPDATE, COUNT its active (HELD/CONFIRMED) reservations, keep the hold only while the
 * count is within the capacity.
 *
 * How it stays correct: every reserve of a sku takes its slot row FOR UPDATE before counting, so a sku's
 * decisions are made one transaction at a time. The COUNT is a statement of its own after the lock: in READ
 * COMMITTED it takes a new snapshot, which contains every hold committed by the transactions this one
 * waited for. The request key and one active hold per user are claimed first (claimRequestKey: unique key,
 * partial unique index, a 23505 looked up by key before it is called USER_LIMIT); the claimed row is
 * already in the count, so a claim beyond the capacity rolls back to its savepoint (SOLD_OUT). Only
 * reserve adds active rows, always under the slot lock; confirm keeps a row active, release and expire
 * only take rows out `WHERE status = 'HELD'`, so a count can lag behind a unit coming back (a SOLD_OUT a
 * moment early), never behind a unit going out, and a replay or a second job moves nothing twice.
 *
 * The resource row coordinates selling with the administrator, as in the seed: reserve holds it FOR
 * SHARE (reserves of the same resource share it), disable UPDATEs it (FOR UPDATE strength). A disable
 * waits for every booking in flight to commit, and a booking that comes while a disable is uncommitted
 * waits for it and then reads DISABLED: no booking commits after a disable it did not precede. The locks
 * are taken in one order, resource → reservation (the claim) → slot.
 *
 * Its stock state is its reservations: `remaining` and the audit's `available` are capacity − active
 * count, also for a disabled sku (it sells nothing more, but the harness's drift needs the units its rows
 * leave). drift is therefore 0 by construction and shows nothing here; oversold, the outcomes and the
 * final read by key are what check it.
 *
 * When it breaks: any writer that adds active rows without the slot lock oversells (the control
 * count-without-lock); so does folding the COUNT into the locking SELECT (a subquery runs on the
 * statement's snapshot, taken before the wait), or running it at REPEATABLE READ (which is why reserve
 * pins READ COMMITTED, see reserve's inTransaction). Each reserve counts the sku's active rows, so its cost
 * grows with the holds, and a sku's reserves queue on one row lock until commit. A stream of bookings can
 * keep a disable waiting (FOR SHARE lockers join each other without queueing behind it).
 *
 * Pause points: reserve `after-read` once the key is claimed, before the slot lock (a client held after
 * the count would keep the slot lock every other client needs to get there), `before-commit` with the hold
 * counted, slot lock held; expire and disable `before-commit`.
 *
 * Last measured (embedded PostgreSQL 18.4, synchronous_commit=off, 2 cores, 2026-11-30): contention HELD 40,
 * SOLD_OUT 110, drift 0; contention-30-2 HELD 2, SOLD_OUT 28 (20 runs in a row); disable-vs-reserve: the
 * disable and the booking after it seen blocked, HELD 1, SOLD_OUT 2; 42 of its 60 orders valid, all pass.
 * bench, one run on a busy machine (load average 11–15 from parallel work, so only the ratios mean much;
 * reservations/s, p99 ms): 1 client 467 (19), 16: 516 (146), 150: 339 (757); behind admission 4:8:
 * 1: 321 (28), 16: 536 (223), 150: 770 (195), 2.27× the ungated throughput at 150; uncontended 297/s.
 * Without the READ COMMITTED pin, at REPEATABLE READ, contention ended HELD 150 (oversold 110) with no
 * serialization error.
 */
import { readFileSync } from 'node:fs';
import type { ClientBase } from 'pg';
import type { ReserveRequest, ReserveResult, Strategy } from './contract.ts';
import {
  ACTIVE,
  answerForRecordedKey,
  auditWithStockCounts,
  claimRequestKey,
  createReservationTable,
  lifecycleFromStatements,
} from './support/reservation-table.ts';
import { inTransaction } from './support/transaction.ts';

const SCHEMA_SQL = readFileSync(new URL('./row-lock-count.sql', import.meta.url), 'utf8');

const COUNTS = `SELECT s.sku, s.capacity AS total, (s.capacity - count(r.reservation_id))::int AS available
                  FROM slot s LEFT JOIN reservation r ON r.sku = s.sku AND r.${ACTIVE}
                 GROUP BY s.sku, s.capacity`;

/** Statements the control count-without-lock shares. */
export const ROW_LOCK_COUNT_SQL = {
  capacity: 'SELECT capacity FROM slot WHERE sku = $1',
  countActive: `SELECT count(*)::int AS active FROM reservation WHERE sku = $1 AND ${ACTIVE}`,
} as const;

const SQL = {
  // Pinned like the seed's BeginTx: at REPEATABLE READ the COUNT would read the transaction's first
  // snapshot, taken before the lock wait, and since the slot row is only locked, never updated, taking it
  // raises no serialization error: the count misses the previous holder's hold and oversells.
  loadResources:
    "INSERT INTO resource (resource_id) SELECT 'resource:' || sku FROM unnest($1::text[]) AS sku",
  loadSlots: `INSERT INTO slot (sku, resource_id, capacity)
              SELECT sku, 'resource:' || sku, total FROM unnest($1::text[], $2::int[]) AS s(sku, total)`,
  shareResource: `SELECT r.status FROM slot s JOIN resource r USING (resource_id) WHERE s.sku = $1
                  FOR SHARE OF r`,
  lockSlot: `${ROW_LOCK_COUNT_SQL.capacity} FOR UPDATE`,
  disable: `UPDATE resource r SET status = 'DISABLED' FROM slot s
             WHERE s.sku = $1 AND r.resource_id = s.resource_id AND r.status = 'ACTIVE'`,
  remaining: `SELECT available FROM (${COUNTS}) c WHERE sku = $1`,
  expire: `WITH moved AS (
             UPDATE reservation SET status = 'EXPIRED', updated_at = now()
              WHERE status = 'HELD' AND expires_at < now()
             RETURNING 1)
           SELECT count(*)::int AS units FROM moved`,
  release: `UPDATE reservation SET status = 'RELEASED', updated_at = now()
             WHERE request_key = $1 AND status = 'HELD'`,
} as const;

/**
 * Takes the sku's resource FOR SHARE (waiting for a disable in progress) and answers a request it cannot
 * serve: an unknown sku is BAD_REQUEST, a disabled one SOLD_OUT, unless the key is already recorded (its
 * REPLAY or KEY_REUSED comes first, so a retry still learns what it got). `open` when the sku is for sale.
 */
export async function shareResource(
  db: ClientBase,
  request: ReserveRequest,
): Promise<'open' | ReserveResult> {
  const { rows } = await db.query<{ status: 'ACTIVE' | 'DISABLED' }>(SQL.shareResource, [request.sku]);
  const status = rows[0]?.status;
  if (status === 'ACTIVE') return 'open';
  return (await answerForRecordedKey(db, request)) ?? { outcome: status ? 'SOLD_OUT' : 'BAD_REQUEST' };
}

export async function countActive(db: ClientBase, sku: string): Promise<number> {
  const { rows } = await db.query<{ active: number }>(ROW_LOCK_COUNT_SQL.countActive, [sku]);
  return rows[0]?.active ?? 0;
}

const rowLockCount: Strategy = {
  id: 'row-lock-count',
  title: 'Row lock on the slot, then count its active reservations (no counter)',
  guarantee:
    'slot row FOR UPDATE serialises a sku; COUNT of active holds in a fresh READ COMMITTED snapshot after the lock; resource FOR SHARE against disable',
  expect: 'hold',
  pausePoints: {
    reserve: ['after-read', 'before-commit'],
    expire: ['before-commit'],
    disable: ['before-commit'],
  },

  async setup(db, stock) {
    await createReservationTable(db, { oneActivePerUser: true });
    await db.query(SCHEMA_SQL);
    const skus = stock.map((s) => s.sku);
    await db.query(SQL.loadResources, [skus]);
    await db.query(SQL.loadSlots, [skus, stock.map((s) => s.total)]);
  },

  reserve: (ctx, request) =>
    inTransaction(
      ctx.db,
      async (): Promise<ReserveResult> => {
        const resource = await shareResource(ctx.db, request);
        if (resource !== 'open') return resource;
        const claim = await claimRequestKey(ctx.db, request);
        if (claim !== 'claimed') return claim;
        await ctx.pause('after-read');
        const slot = await ctx.db.query<{ capacity: number }>(SQL.lockSlot, [request.sku]);
        // Its own claimed row is in the count: within the capacity means there was room for it.
        if ((await countActive(ctx.db, request.sku)) > (slot.rows[0]?.capacity ?? 0)) {
          await ctx.db.query('ROLLBACK TO SAVEPOINT claim');
          return { outcome: 'SOLD_OUT' };
        }
        await ctx.pause('before-commit');
        return { outcome: 'HELD', status: 'HELD' };
      },
      'READ COMMITTED',
    ),

  ...lifecycleFromStatements(SQL),

  disable: (ctx, sku) =>
    inTransaction(ctx.db, async () => {
      const { rowCount } = await ctx.db.query(SQL.disable, [sku]);
      await ctx.pause('before-commit');
      return rowCount === 1;
    }),

  async remaining(db, sku) {
    const { rows } = await db.query<{ available: number }>(SQL.remaining, [sku]);
    return rows[0]?.available ?? 0;
  },

  audit: (db) => auditWithStockCounts(db, `${COUNTS} ORDER BY s.sku`),
};

export default rowLockCount;
