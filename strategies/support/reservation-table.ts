/**
 * The reservation table every flash-sale-lab design shares: its schema, claiming a request_key (the
 * flash-sale lab's `reserveInTx` front half), the replay lookup, and the reservation side of the audit.
 */
import { readFileSync } from 'node:fs';
import type { ClientBase } from 'pg';
import type {
  ReservationStatus,
  ReserveRequest,
  ReserveResult,
  Strategy,
  StrategyAudit,
} from '../contract.ts';
import { SQLSTATE, sqlstateOf } from './sqlstate.ts';
import { inTransaction } from './transaction.ts';

const RESERVATION_SQL = readFileSync(new URL('./reservation.sql', import.meta.url), 'utf8');
const ONE_ACTIVE_PER_USER_SQL = readFileSync(new URL('./one-active-per-user.sql', import.meta.url), 'utf8');

export const ACTIVE = "status IN ('HELD', 'CONFIRMED')";

export async function createReservationTable(
  db: ClientBase,
  options: { oneActivePerUser: boolean },
): Promise<void> {
  await db.query(RESERVATION_SQL);
  if (options.oneActivePerUser) await db.query(ONE_ACTIVE_PER_USER_SQL);
}

/**
 * The answer for a request whose key is already recorded: REPLAY with the row's current status, or
 * KEY_REUSED when the recorded row belongs to another user or sku. Null when no row has the key.
 */
export async function answerForRecordedKey(
  db: ClientBase,
  request: ReserveRequest,
  options: { prepared?: boolean } = {},
): Promise<ReserveResult | null> {
  const { rows } = await db.query<{ user_id: string; sku: string; status: ReservationStatus }>({
    ...(options.prepared ? PREPARED.recordedKey : { text: PREPARED.recordedKey.text }),
    values: [request.requestKey],
  });
  const row = rows[0];
  if (!row) return null;
  if (row.user_id !== request.user || row.sku !== request.sku) return { outcome: 'KEY_REUSED' };
  return { outcome: 'REPLAY', status: row.status };
}

const INSERT_HELD_ROW = `INSERT INTO reservation (request_key, user_id, sku, status, expires_at)
                     VALUES ($1, $2, $3, 'HELD', now() + make_interval(secs => $4 / 1000.0))
                     ON CONFLICT (request_key) DO NOTHING`;
const INSERT_HELD = `${INSERT_HELD_ROW} RETURNING reservation_id`;

/**
 * Named (prepared) statements for a reserve path that sends them on every request (hot-row): node-postgres
 * parses each once per connection and then only binds and executes it. A name is per connection and stands
 * for one text. PostgreSQL analyses a prepared statement again when search_path changed since its last use
 * or a table it names was altered or dropped, so a connection never runs one against another case's
 * tables. Not for a transaction-mode connection pooler that does not track prepared statements.
 */
export const PREPARED = {
  /** `$1` request_key, `$2` user, `$3` sku, `$4` ttl in ms; the row count says whether the key was free. */
  insertHeld: { name: 'reservebench-insert-held', text: INSERT_HELD_ROW },
  /** `$1` request_key. */
  recordedKey: {
    name: 'reservebench-recorded-key',
    text: 'SELECT user_id, sku, status FROM reservation WHERE request_key = $1',
  },
} as const;

/**
 * Inside the caller's transaction: sets SAVEPOINT `claim` and inserts the HELD row. Returns `claimed`
 * when this request owns the key now (the caller takes a unit, or rolls back to `claim` if there is none),
 * otherwise the final answer. `ON CONFLICT (request_key) DO NOTHING` makes the key the arbiter: a replay
 * waits for the first insert to commit and then finds its row. A 23505 comes from the one-active-per-user
 * index, but a concurrent replay of the same key can hit that index first, so the key is looked up before
 * the answer is USER_LIMIT (the flash-sale lab saw {HELD 1, REPLAY 14, USER_LIMIT 1} without this lookup).
 */
export async function claimRequestKey(
  db: ClientBase,
  request: ReserveRequest,
): Promise<'claimed' | ReserveResult> {
  await db.query('SAVEPOINT claim');
  let inserted: number | null;
  try {
    inserted = (await db.query(INSERT_HELD, [request.requestKey, request.user, request.sku, request.ttlMs]))
      .rowCount;
  } catch (error: unknown) {
    const sqlstate = sqlstateOf(error);
    if (sqlstate !== SQLSTATE.uniqueViolation && sqlstate !== SQLSTATE.foreignKeyViolation) throw error;
    await db.query('ROLLBACK TO SAVEPOINT claim');
    if (sqlstate === SQLSTATE.foreignKeyViolation) return { outcome: 'BAD_REQUEST' };
    return (await answerForRecordedKey(db, request)) ?? { outcome: 'USER_LIMIT' };
  }
  if (inserted === 1) return 'claimed';
  await db.query('RELEASE SAVEPOINT claim');
  const recorded = await answerForRecordedKey(db, request);
  if (!recorded) throw new Error(`request_key ${request.requestKey} conflicted but no row is visible`);
  return recorded;
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

/**
 * HELD → CONFIRMED for as long as the expiry job has not moved the row (the flash-sale lab's confirmHeldInTx,
 * for a payment callback that arrives late): `status = 'HELD'` is re-evaluated under the row lock, so a row
 * is confirmed or expired, never both.
 */
export async function confirmHeld(db: ClientBase, requestKey: string): Promise<boolean> {
  const { rowCount } = await db.query(
    "UPDATE reservation SET status = 'CONFIRMED', updated_at = now() WHERE request_key = $1 AND status = 'HELD'",
    [requestKey],
  );
  return rowCount === 1;
}

/** Test hook shared by the reservation-table designs: their expiry lies one second in the past. */
export async function backdateReservations(db: ClientBase, requestKeys: readonly string[]): Promise<void> {
  await db.query(
    "UPDATE reservation SET expires_at = now() - interval '1 second' WHERE request_key = ANY ($1)",
    [requestKeys],
  );
}

/** The reservation side of the audit; the caller adds its own per-sku total and available. */
export async function auditReservations(
  db: ClientBase,
): Promise<Omit<StrategyAudit, 'skus'> & { activeBySku: Map<string, number> }> {
  const duplicates = await db.query<{ duplicate_active: number; duplicate_key: number }>(`
    SELECT (SELECT count(*) FROM (SELECT 1 FROM reservation WHERE ${ACTIVE}
                                  GROUP BY sku, user_id HAVING count(*) > 1) d)::int AS duplicate_active,
           (SELECT count(*) FROM (SELECT 1 FROM reservation GROUP BY request_key HAVING count(*) > 1) d)::int
             AS duplicate_key`);
  const rows = await db.query<{ request_key: string; sku: string; active: boolean }>(
    `SELECT request_key, sku, ${ACTIVE} AS active FROM reservation`,
  );
  const activeBySku = new Map<string, number>();
  const activeKeys: string[] = [];
  const endedKeys: string[] = [];
  for (const row of rows.rows) {
    if (row.active) {
      activeKeys.push(row.request_key);
      activeBySku.set(row.sku, (activeBySku.get(row.sku) ?? 0) + 1);
    } else {
      endedKeys.push(row.request_key);
    }
  }
  return {
    duplicateActive: duplicates.rows[0]?.duplicate_active ?? 0,
    duplicateKey: duplicates.rows[0]?.duplicate_key ?? 0,
    activeKeys,
    endedKeys,
    activeBySku,
  };
}

/**
 * The lifecycle of a reservation-table design from its two statements: `expire` (returns `units`) and
 * `release` (`$1` = request_key, one row per unit returned). Each statement must move rows only
 * `WHERE status = 'HELD'` and return stock for exactly the rows it moved. expire pauses at
 * `before-commit`, where the crash runner can kill it with the work done but not committed.
 */
export function lifecycleFromStatements(sql: {
  expire: string;
  release: string;
}): Required<Pick<Strategy, 'confirm' | 'release' | 'expire' | 'status' | 'backdate'>> {
  return {
    confirm: (ctx, requestKey) => confirmHeld(ctx.db, requestKey),
    release: async (ctx, requestKey) => ((await ctx.db.query(sql.release, [requestKey])).rowCount ?? 0) > 0,
    expire: (ctx) =>
      inTransaction(ctx.db, async () => {
        const { rows } = await ctx.db.query<{ units: number }>(sql.expire);
        await ctx.pause('before-commit');
        return rows[0]?.units ?? 0;
      }),
    status: reservationStatus,
    backdate: backdateReservations,
  };
}

/**
 * The whole audit of a reservation-table design, given the query that returns its own per-sku
 * `sku, total, available` (what its stock state says remains).
 */
export async function auditWithStockCounts(db: ClientBase, stockCountsSql: string): Promise<StrategyAudit> {
  const { activeBySku, ...reservations } = await auditReservations(db);
  const { rows } = await db.query<{ sku: string; total: number; available: number }>(stockCountsSql);
  return { skus: rows.map((r) => ({ ...r, active: activeBySku.get(r.sku) ?? 0 })), ...reservations };
}
