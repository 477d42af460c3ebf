/**
 * The stock-row + reservation-table model shared by the designs of seed 000 that keep one `sku_stock` row
 * per sku (hot-row and its negative controls): schema, the replay lookup and the audit that maps these
 * tables to the common invariant counts.
 */
import { readFileSync } from 'node:fs';
import type { ClientBase } from 'pg';
import type {
  ReservationStatus,
  ReserveRequest,
  ReserveResult,
  StockLine,
  StrategyAudit,
} from './contract.ts';

const SCHEMA_SQL = readFileSync(new URL('./stock-and-reservation.sql', import.meta.url), 'utf8');
const ONE_ACTIVE_PER_USER_SQL = readFileSync(new URL('./one-active-per-user.sql', import.meta.url), 'utf8');

export async function createStockAndReservation(
  db: ClientBase,
  stock: readonly StockLine[],
  options: { oneActivePerUser: boolean },
): Promise<void> {
  await db.query(SCHEMA_SQL);
  if (options.oneActivePerUser) await db.query(ONE_ACTIVE_PER_USER_SQL);
  await db.query(
    'INSERT INTO sku_stock (sku, total, available) SELECT sku, total, total FROM unnest($1::text[], $2::int[]) AS s(sku, total)',
    [stock.map((s) => s.sku), stock.map((s) => s.total)],
  );
}

/**
 * The answer for a request whose key is already recorded: REPLAY with the row's current status, or
 * KEY_REUSED when the recorded row belongs to another user or sku. Null when no row has the key.
 */
export async function answerForRecordedKey(
  db: ClientBase,
  request: ReserveRequest,
): Promise<ReserveResult | null> {
  const { rows } = await db.query<{ user_id: string; sku: string; status: ReservationStatus }>(
    'SELECT user_id, sku, status FROM reservation WHERE request_key = $1',
    [request.requestKey],
  );
  const row = rows[0];
  if (!row) return null;
  if (row.user_id !== request.user || row.sku !== request.sku) return { outcome: 'KEY_REUSED' };
  return { outcome: 'REPLAY', status: row.status };
}

export async function reservationStatus(
  db: ClientBase,
  requestKey: string,
): Promise<ReservationStatus | 'NOT_FOUND'> {
  const { rows } = await db.query<{ status: ReservationStatus }>(
    'SELECT status FROM reservation WHERE request_key = $1',
    [requestKey],
  );
  return rows[0]?.status ?? 'NOT_FOUND';
}

export async function auditStockAndReservation(db: ClientBase): Promise<StrategyAudit> {
  const skus = await db.query<{ sku: string; total: number; available: number; active: number }>(`
    SELECT s.sku, s.total, s.available,
           (SELECT count(*) FROM reservation r WHERE r.sku = s.sku AND r.status IN ('HELD', 'CONFIRMED'))::int AS active
      FROM sku_stock s ORDER BY s.sku`);
  const duplicates = await db.query<{ duplicate_active: number; duplicate_key: number }>(`
    SELECT (SELECT count(*) FROM (SELECT 1 FROM reservation WHERE status IN ('HELD', 'CONFIRMED')
                                  GROUP BY sku, user_id HAVING count(*) > 1) d)::int AS duplicate_active,
           (SELECT count(*) FROM (SELECT 1 FROM reservation GROUP BY request_key HAVING count(*) > 1) d)::int
             AS duplicate_key`);
  const active = await db.query<{ request_key: string }>(
    "SELECT request_key FROM reservation WHERE status IN ('HELD', 'CONFIRMED')",
  );
  const dup = duplicates.rows[0];
  return {
    skus: skus.rows,
    duplicateActive: dup?.duplicate_active ?? 0,
    duplicateKey: dup?.duplicate_key ?? 0,
    activeKeys: active.rows.map((r) => r.request_key),
  };
}
