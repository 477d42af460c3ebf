/**
 * The stock-row model of the flash-sale lab: one `sku_stock` row per sku beside the reservation table
 * (hot-row and the controls that get it wrong). Setup and the audit that maps these tables to the invariant
 * counts.
 */
import { readFileSync } from 'node:fs';
import type { ClientBase } from 'pg';
import type { ReserveResult, StockLine, StrategyAudit } from '../contract.ts';
import {
  auditWithStockCounts,
  createReservationTable,
  lifecycleFromStatements,
} from './reservation-table.ts';

const STOCK_ROW_SQL = readFileSync(new URL('./stock-row.sql', import.meta.url), 'utf8');

export async function createStockAndReservation(
  db: ClientBase,
  stock: readonly StockLine[],
  options: { oneActivePerUser: boolean },
): Promise<void> {
  await createReservationTable(db, options);
  await db.query(STOCK_ROW_SQL);
  await db.query(
    'INSERT INTO sku_stock (sku, total, available) SELECT sku, total, total FROM unnest($1::text[], $2::int[]) AS s(sku, total)',
    [stock.map((s) => s.sku), stock.map((s) => s.total)],
  );
}

/** What the stock row says remains: the counter itself, never a count of reservations. */
export async function stockRowRemaining(db: ClientBase, sku: string): Promise<number> {
  const { rows } = await db.query<{ available: number }>('SELECT available FROM sku_stock WHERE sku = $1', [
    sku,
  ]);
  return rows[0]?.available ?? 0;
}

export function auditStockAndReservation(db: ClientBase): Promise<StrategyAudit> {
  return auditWithStockCounts(db, 'SELECT sku, total, available FROM sku_stock ORDER BY sku');
}

/**
 * Takes one unit with the conditional decrement: `available > 0` is re-evaluated under the row lock
 * against the newest committed count. When none is left, rolls back to SAVEPOINT `claim` (undoing the
 * reservation row just inserted) and answers SOLD_OUT, or BAD_REQUEST for a sku with no stock row (the
 * foreign key is only checked at commit, see stock-row.sql).
 */
export async function takeUnitOrRollBackClaim(db: ClientBase, sku: string): Promise<'taken' | ReserveResult> {
  const taken = await db.query(PREPARED_STOCK.takeUnit.text, [sku]);
  if (taken.rowCount === 1) return 'taken';
  await db.query('ROLLBACK TO SAVEPOINT claim');
  const known = await db.query(PREPARED_STOCK.skuKnown.text, [sku]);
  return { outcome: known.rowCount ? 'SOLD_OUT' : 'BAD_REQUEST' };
}

/** The stock row's statements, named for hot-row's prepared reserve path (PREPARED, reservation-table.ts). */
export const PREPARED_STOCK = {
  /** `$1` sku: the conditional decrement; row count 1 when a unit was taken. */
  takeUnit: {
    name: 'reservebench-take-unit',
    text: 'UPDATE sku_stock SET available = available - 1 WHERE sku = $1 AND available > 0',
  },
  /** `$1` sku: whether the sku has a stock row at all (SOLD_OUT rather than BAD_REQUEST). */
  skuKnown: { name: 'reservebench-sku-known', text: 'SELECT 1 FROM sku_stock WHERE sku = $1' },
} as const;

/**
 * Adds one unit back per row given, per sku, with no condition: the controls' way of returning stock
 * (counted from rows they picked, not rows a statement moved from HELD).
 */
export async function returnUnitPerRow(db: ClientBase, rows: readonly { sku: string }[]): Promise<void> {
  await db.query(
    `UPDATE sku_stock s SET available = s.available + r.units
       FROM (SELECT sku, count(*)::int AS units FROM unnest($1::text[]) AS sku GROUP BY sku) r
      WHERE s.sku = r.sku`,
    [rows.map((r) => r.sku)],
  );
}

/**
 * Lifecycle statements (the flash-sale lab's Inventory.EXPIRE_SQL). Each moves rows with `status = 'HELD'` in
 * its WHERE and returns stock only for the rows that statement moved (RETURNING through a data-modifying
 * CTE), in the same statement: a replay, or a second job that waited on the row locks, finds nothing HELD and
 * returns 0.
 */
export const STOCK_ROW_LIFECYCLE_SQL = {
  expire: `WITH moved AS (
             UPDATE reservation SET status = 'EXPIRED', updated_at = now()
              WHERE status = 'HELD' AND expires_at < now()
             RETURNING sku),
           per AS (SELECT sku, count(*)::int AS n FROM moved GROUP BY sku),
           returned AS (
             UPDATE sku_stock s SET available = s.available + per.n FROM per WHERE s.sku = per.sku
             RETURNING per.n)
           SELECT coalesce(sum(n), 0)::int AS units FROM returned`,
  release: `WITH moved AS (
              UPDATE reservation SET status = 'RELEASED', updated_at = now()
               WHERE request_key = $1 AND status = 'HELD'
              RETURNING sku)
            UPDATE sku_stock s SET available = s.available + 1 FROM moved WHERE s.sku = moved.sku`,
} as const;

/** confirm, release, expire, status and the backdate hook of the stock-row model. */
export const stockRowLifecycle = lifecycleFromStatements(STOCK_ROW_LIFECYCLE_SQL);
