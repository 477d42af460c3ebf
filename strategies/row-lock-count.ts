/**
 * row-lock-count — no stock counter: a sku's active (HELD/CONFIRMED) reservations, counted under its slot
 * row's lock, are its stock state (LabReserve).
 *
 * How it stays correct: reserve (READ COMMITTED) takes the sku's resource row FOR SHARE, claims its key
 * (claimRequestKey: unique key, partial unique index, a 23505 looked up by key), locks the slot row FOR
 * UPDATE, then COUNTs the active holds in a statement of its own, whose new snapshot contains every hold
 * committed by the transactions it waited for; a claim beyond the capacity rolls back to its savepoint
 * (SOLD_OUT). So a sku's decisions run one transaction at a time. disable UPDATEs the resource row: it
 * waits for the bookings in flight, and a booking that comes after it reads DISABLED (locks in one order:
 * resource → reservation → slot). `remaining` is capacity − active count, so drift is 0 by construction;
 * oversold, the outcomes and the final read by key are what check it.
 *
 * When it breaks: any writer that adds active rows without the slot lock (the control count-without-lock),
 * the COUNT folded into the locking SELECT (a subquery runs on the snapshot taken before the wait), or
 * REPEATABLE READ (why reserve pins READ COMMITTED). Each reserve counts the sku's active rows, so its cost
 * grows with the holds; a sku's reserves queue on one row lock; a stream of FOR SHARE bookings can keep a
 * disable waiting.
 *
 * Lifecycle: confirm keeps a row active; release and expire take rows out only `WHERE status = 'HELD'`,
 * so a count can lag behind a unit coming back (a SOLD_OUT a moment early), never behind one going out.
 *
 * Pause points: reserve `after-read` once the key is claimed, before the slot lock (a client held after the
 * count would keep the lock every other client needs), `before-commit` with the hold counted and the slot
 * locked; expire and disable `before-commit`.
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
  // Pinned like LabReserve's BeginTx: at REPEATABLE READ the COUNT would read the transaction's first
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
 * The answer to a request for a sku that is not for sale: an unknown sku is BAD_REQUEST, a disabled one
 * SOLD_OUT, unless the key is already recorded (its REPLAY or KEY_REUSED comes first, so a retry still
 * learns what it got). `open` when the sku is for sale.
 */
export async function resourceAnswer(
  db: ClientBase,
  request: ReserveRequest,
  status: string | undefined,
): Promise<'open' | ReserveResult> {
  if (status === 'ACTIVE') return 'open';
  return (await answerForRecordedKey(db, request)) ?? { outcome: status ? 'SOLD_OUT' : 'BAD_REQUEST' };
}

/** Takes the sku's resource FOR SHARE (waiting for a disable in progress), then resourceAnswer. */
export async function shareResource(
  db: ClientBase,
  request: ReserveRequest,
): Promise<'open' | ReserveResult> {
  const { rows } = await db.query<{ status: 'ACTIVE' | 'DISABLED' }>(SQL.shareResource, [request.sku]);
  return resourceAnswer(db, request, rows[0]?.status);
}

export async function countActive(db: ClientBase, sku: string): Promise<number> {
  const { rows } = await db.query<{ active: number }>(ROW_LOCK_COUNT_SQL.countActive, [sku]);
  return rows[0]?.active ?? 0;
}

/**
 * The reserve, once `readResource` said the sku is for sale: claim the key, lock the slot, count. Shared
 * with a fixture that reads the resource without FOR SHARE (test/fixtures/checks/disable-without-wait.ts).
 */
export function reserveAfter(
  readResource: (db: ClientBase, request: ReserveRequest) => Promise<'open' | ReserveResult>,
): Strategy['reserve'] {
  return (ctx, request) =>
    inTransaction(
      ctx.db,
      async (): Promise<ReserveResult> => {
        const resource = await readResource(ctx.db, request);
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
    );
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

  reserve: reserveAfter(shareResource),

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
