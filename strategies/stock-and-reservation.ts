/**
 * The stock-row model of seed 000: one `sku_stock` row per sku beside the reservation table (hot-row and
 * the controls that get it wrong). Setup and the audit that maps these tables to the invariant counts.
 */
import { readFileSync } from 'node:fs';
import type { ClientBase } from 'pg';
import type { StockLine, StrategyAudit } from './contract.ts';
import { auditReservations, createReservationTable } from './reservation-table.ts';

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

export async function auditStockAndReservation(db: ClientBase): Promise<StrategyAudit> {
  const { activeBySku, ...reservations } = await auditReservations(db);
  const { rows } = await db.query<{ sku: string; total: number; available: number }>(
    'SELECT sku, total, available FROM sku_stock ORDER BY sku',
  );
  return { skus: rows.map((r) => ({ ...r, active: activeBySku.get(r.sku) ?? 0 })), ...reservations };
}
