/**
 * frozen-ledger — the frozen-stock chapter's scheme (hold first, deduct on payment) kept as books: per sku
 * the counters `available`, `frozen`, `total` (and `sold` for what a payment took), moved only by conditional
 * updates, with an append-only stock ledger entry for every move.
 *
 * How it stays correct: a reserve claims its key (claimRequestKey: unique key, partial unique index, a
 * 23505 looked up by key) and freezes a unit with `available = available - 1, frozen = frozen + 1 WHERE
 * available >= 1`, re-evaluated under the account row's lock as in hot-row. `audit` reconciles the books
 * (available + frozen + sold = total for every sku) and replays the ledger from zero against today's
 * counters; the harness turns both into the checks `reconciled` and `ledgerReplayDrift`, and holds the
 * frozen and sold counters to the answers it recorded (`booksMatchAnswers`).
 *
 * When it breaks: a move that forgets one side of its pair (the control release-frozen-only) no longer
 * reconciles, and its ledger no longer replays to the counters. A release guarded by the order's status
 * instead of its own flag (the control release-twice) moves a unit twice while the books still add up
 * (every move was booked); the harness's drift is what catches it. Every freeze queues on the sku's one
 * account row, as in hot-row, plus a ledger insert inside that lock: the frozen-stock chapter's hot-SKU
 * ceiling, whose remedy is bucketed.ts.
 *
 * Lifecycle: confirm (frozen → sold), release and expire (frozen → available) move a reservation only
 * `WHERE status = 'HELD' AND stock_frozen` and clear the flag in the one statement that moves the counters
 * and books the entry: a timeout job racing a payment callback, a replay, or a rerun after a crash finds the
 * flag cleared and moves nothing (the frozen-stock chapter: act only while stock_frozen = 1, and clear the
 * flag in the same update).
 *
 * Pause points: reserve `after-read` once the key is claimed (nothing locked another client needs),
 * `before-commit` with the unit frozen and booked; expire `before-commit` (the crash runner kills it there).
 */
import { readFileSync } from 'node:fs';
import type { ClientBase } from 'pg';
import type { ReserveResult, Strategy, StrategyAudit } from './contract.ts';
import {
  auditReservations,
  claimRequestKey,
  createReservationTable,
  lifecycleFromStatements,
} from './support/reservation-table.ts';
import { inTransaction } from './support/transaction.ts';

const SCHEMA_SQL = readFileSync(new URL('./frozen-ledger.sql', import.meta.url), 'utf8');

const SQL = {
  open: `WITH opened AS (
           INSERT INTO stock_account (sku, total, available, frozen, sold)
           SELECT sku, total, total, 0, 0 FROM unnest($1::text[], $2::int[]) AS s(sku, total)
           RETURNING sku, total)
         INSERT INTO stock_ledger (sku, action, qty)
         SELECT sku, 'STOCK_IN', total FROM opened WHERE total > 0`,
  freeze: `WITH frozen AS (
             UPDATE stock_account SET available = available - 1, frozen = frozen + 1
              WHERE sku = $1 AND available >= 1
             RETURNING sku)
           INSERT INTO stock_ledger (sku, request_key, action, qty) SELECT sku, $2, 'FREEZE', 1 FROM frozen`,
  known: 'SELECT 1 FROM stock_account WHERE sku = $1',
  remaining: 'SELECT available FROM stock_account WHERE sku = $1',
  confirm: `WITH moved AS (
              UPDATE reservation SET status = 'CONFIRMED', stock_frozen = false, updated_at = now()
               WHERE request_key = $1 AND status = 'HELD' AND stock_frozen
              RETURNING request_key, sku),
            logged AS (
              INSERT INTO stock_ledger (sku, request_key, action, qty)
              SELECT sku, request_key, 'CONFIRM', 1 FROM moved)
            UPDATE stock_account s SET frozen = s.frozen - 1, sold = s.sold + 1
              FROM moved WHERE s.sku = moved.sku`,
  books: `SELECT a.sku, a.total, a.available, a.frozen, a.sold,
                 a.available + a.frozen + a.sold = a.total AS reconciled,
                 (abs(a.total - r.total) + abs(a.available - r.available) + abs(a.frozen - r.frozen)
                  + abs(a.sold - r.sold))::int AS replay_drift
            FROM stock_account a
            CROSS JOIN LATERAL (
              SELECT coalesce(sum(qty) FILTER (WHERE action = 'STOCK_IN'), 0) AS total,
                     coalesce(sum(CASE WHEN action = 'FREEZE' THEN -qty
                                       WHEN action IN ('STOCK_IN', 'RELEASE', 'EXPIRE') THEN qty END), 0)
                       AS available,
                     coalesce(sum(CASE WHEN action = 'FREEZE' THEN qty
                                       WHEN action IN ('CONFIRM', 'RELEASE', 'EXPIRE') THEN -qty END), 0)
                       AS frozen,
                     coalesce(sum(qty) FILTER (WHERE action = 'CONFIRM'), 0) AS sold
                FROM stock_ledger l WHERE l.sku = a.sku) r
           ORDER BY a.sku`,
} as const;

/** The counter move of a release or an expiry, for a sku that gets `per.n` units back. */
export const UNFREEZE = 'available = s.available + per.n, frozen = s.frozen - per.n';

/** The rows a release may move: its own key, still HELD, its unit still frozen. */
export const RELEASABLE = "request_key = $1 AND status = 'HELD' AND stock_frozen";

/**
 * The row half of a release or an expiry: moves the rows `rows` picks to `status`, clears their flag,
 * books one `action` entry per row, and counts the units per sku (`per`) for the counter half.
 */
function endingRows(status: 'RELEASED' | 'EXPIRED', action: 'RELEASE' | 'EXPIRE', rows: string): string {
  return `WITH moved AS (
            UPDATE reservation SET status = '${status}', stock_frozen = false, updated_at = now()
             WHERE ${rows}
            RETURNING request_key, sku),
          logged AS (
            INSERT INTO stock_ledger (sku, request_key, action, qty)
            SELECT sku, request_key, '${action}', 1 FROM moved),
          per AS (SELECT sku, count(*)::int AS n FROM moved GROUP BY sku)`;
}

/**
 * confirm, release, expire (and status, backdate) over the books, each one statement: `unfreeze` is what
 * a release or an expiry does to the counters, `releasable` the rows a release may move. The controls pass
 * their mistake in place of UNFREEZE or RELEASABLE.
 */
export function booksLifecycle(options: { unfreeze: string; releasable: string }) {
  const returnUnits = `UPDATE stock_account s SET ${options.unfreeze} FROM per WHERE s.sku = per.sku`;
  return {
    ...lifecycleFromStatements({
      release: `${endingRows('RELEASED', 'RELEASE', options.releasable)} ${returnUnits}`,
      expire: `${endingRows('EXPIRED', 'EXPIRE', "status = 'HELD' AND stock_frozen AND expires_at < now()")},
               returned AS (${returnUnits} RETURNING per.n)
               SELECT coalesce(sum(n), 0)::int AS units FROM returned`,
    }),
    confirm: async (ctx: { db: ClientBase }, requestKey: string) =>
      (await ctx.db.query(SQL.confirm, [requestKey])).rowCount === 1,
  } satisfies Partial<Strategy>;
}

async function auditBooks(db: ClientBase): Promise<StrategyAudit> {
  const { activeBySku, ...reservations } = await auditReservations(db);
  const { rows } = await db.query<{
    sku: string;
    total: number;
    available: number;
    frozen: number;
    sold: number;
    reconciled: boolean;
    replay_drift: number;
  }>(SQL.books);
  return {
    skus: rows.map((r) => ({
      sku: r.sku,
      total: r.total,
      available: r.available,
      active: activeBySku.get(r.sku) ?? 0,
    })),
    ...reservations,
    books: {
      reconciled: rows.every((r) => r.reconciled),
      ledgerReplayDrift: rows.reduce((sum, r) => sum + r.replay_drift, 0),
      skus: rows.map((r) => ({ sku: r.sku, frozen: r.frozen, sold: r.sold })),
    },
  };
}

const frozenLedger: Strategy = {
  id: 'frozen-ledger',
  title: 'Frozen ledger: available/frozen/sold counters, stock_frozen flag, append-only stock ledger',
  guarantee:
    '`available >= 1` re-evaluated under the account row lock; each move pairs two counters, books a ledger entry and clears the reservation’s stock_frozen flag in one statement; audited by reconciliation and a ledger replay',
  expect: 'hold',
  pausePoints: { reserve: ['after-read', 'before-commit'], expire: ['before-commit'] },

  setup: async (db, stock) => {
    await createReservationTable(db, { oneActivePerUser: true });
    await db.query(SCHEMA_SQL);
    await db.query(SQL.open, [stock.map((s) => s.sku), stock.map((s) => s.total)]);
  },

  reserve: (ctx, request) =>
    inTransaction(ctx.db, async (): Promise<ReserveResult> => {
      const claim = await claimRequestKey(ctx.db, request);
      if (claim !== 'claimed') return claim;
      await ctx.pause('after-read');
      const frozen = await ctx.db.query(SQL.freeze, [request.sku, request.requestKey]);
      if (frozen.rowCount !== 1) {
        await ctx.db.query('ROLLBACK TO SAVEPOINT claim');
        const known = await ctx.db.query(SQL.known, [request.sku]);
        return { outcome: known.rowCount ? 'SOLD_OUT' : 'BAD_REQUEST' };
      }
      await ctx.pause('before-commit');
      return { outcome: 'HELD', status: 'HELD' };
    }),

  ...booksLifecycle({ unfreeze: UNFREEZE, releasable: RELEASABLE }),
  remaining: async (db, sku) =>
    (await db.query<{ available: number }>(SQL.remaining, [sku])).rows[0]?.available ?? 0,
  audit: auditBooks,
};

export default frozenLedger;
