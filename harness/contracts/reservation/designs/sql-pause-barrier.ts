/**
 * Pause points inside one SQL function call. The session's client cannot stop its own statement halfway, so
 * the harness installs `reservebench_pause(point)`, which the design's function body calls, and holds the
 * session there from a connection of its own: before the call it takes an advisory lock keyed by (the
 * session's backend pid, the point); the function, reaching the point, waits for that lock; the holder sees
 * it waiting (pg_locks, looked at until it does or the call ends: observed state, never a sleep deciding
 * an order), runs the harness's `ctx.pause(point)` and lets go when the hook returns, so the statement goes
 * on. If the hook throws (a rollback at the point), the statement is cancelled while it is still held and
 * its transaction rolled back. A call with no point to pause at takes no lock: the function's try-lock then
 * finds the key free and returns at once.
 */
import { setTimeout as nextLook } from 'node:timers/promises';
import pg from 'pg';
import type { PausePoint, SessionContext } from '../../../../strategies/contract.ts';
import { SQL_PAUSE_POINTS } from './sql-design-header.ts';

export type SqlPausePoint = (typeof SQL_PAUSE_POINTS)[number];

/** The advisory lock's second key per point (the first is the backend pid). */
const POINT_KEY: Readonly<Record<SqlPausePoint, number>> = { 'after-read': 1, 'before-commit': 2 };

/** Installed in the case's schema before the design's file runs. */
export const PAUSE_FUNCTION_SQL = `CREATE FUNCTION reservebench_pause(point text) RETURNS void
LANGUAGE plpgsql AS $pause$
DECLARE
  key int := CASE point ${SQL_PAUSE_POINTS.map((p) => `WHEN '${p}' THEN ${POINT_KEY[p]}`).join(' ')} END;
BEGIN
  IF key IS NULL THEN
    RAISE EXCEPTION 'reservebench_pause: "%" is not a pause point of a design in SQL', point;
  END IF;
  -- Free unless the harness holds this session here: then wait until it lets go.
  IF NOT pg_try_advisory_lock_shared(pg_backend_pid(), key) THEN
    PERFORM pg_advisory_lock_shared(pg_backend_pid(), key);
  END IF;
  PERFORM pg_advisory_unlock_shared(pg_backend_pid(), key);
END
$pause$`;

/** How often the holder looks whether a session has reached its point. */
const LOOK_MS = 2;

/** Keyed by (pid, point), a two-int4 advisory lock shows as classid = pid, objid = point, objsubid 2. */
const WAITING_AT = `SELECT objid::int AS key FROM pg_locks
  WHERE locktype = 'advisory' AND NOT granted AND pid = $1 AND classid = $1::int::oid AND objsubid = 2
    AND objid::int = ANY ($2::int[])`;

/**
 * The holder connection, one per process and server, shared by its sessions (150 clients with one each
 * would not fit beside them under max_connections); it ends when the last session using it ends.
 */
class Holder {
  private users = 0;
  private constructor(
    readonly client: pg.Client,
    private readonly onIdle: () => void,
  ) {}

  static async open(db: pg.Client, onIdle: () => void): Promise<Holder> {
    const client = new pg.Client({
      host: db.host,
      port: db.port,
      user: db.user,
      database: db.database,
      ...(typeof db.password === 'string' ? { password: db.password } : {}),
      ssl: db.ssl,
      application_name: 'reservebench-pause-holder',
    });
    client.on('error', () => undefined);
    await client.connect();
    return new Holder(client, onIdle);
  }

  use(db: pg.Client): void {
    this.users += 1;
    db.once('end', () => {
      this.users -= 1;
      if (this.users === 0) {
        this.onIdle();
        this.client.end().catch(() => undefined);
      }
    });
  }
}

const holders = new Map<string, Promise<Holder>>();
const used = new WeakMap<pg.Client, Holder>();

async function holderFor(db: pg.Client): Promise<Holder> {
  const known = used.get(db);
  if (known) return known;
  const target = `${db.host}:${db.port}/${db.database}/${db.user}`;
  let opening = holders.get(target);
  if (!opening) {
    opening = Holder.open(db, () => holders.delete(target));
    holders.set(target, opening);
    opening.catch(() => holders.delete(target));
  }
  const holder = await opening;
  holder.use(db);
  used.set(db, holder);
  return holder;
}

/** A call's outcome once it has one, without ever leaving a rejection unhandled. */
function settling<T>(call: Promise<T>) {
  const state: { done: boolean } = { done: false };
  const outcome = call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  outcome.then(() => {
    state.done = true;
  });
  return { state, outcome };
}

/** The point the session waits at, or undefined once the call has ended without reaching one. */
async function reached(
  holder: Holder,
  pid: number,
  held: ReadonlySet<SqlPausePoint>,
  call: ReturnType<typeof settling>,
): Promise<SqlPausePoint | undefined> {
  const keys = [...held].map((p) => POINT_KEY[p]);
  for (;;) {
    const { rows } = await holder.client.query<{ key: number }>(WAITING_AT, [pid, keys]);
    const key = rows[0]?.key;
    const point = SQL_PAUSE_POINTS.find((p) => POINT_KEY[p] === key);
    if (point) return point;
    if (call.state.done) return undefined;
    await Promise.race([call.outcome, nextLook(LOOK_MS)]);
  }
}

/**
 * Runs `statement` on the session with the pause points it may be held at: none, as one autocommitted
 * statement; otherwise in a transaction of its own (committed after the call, so a process killed at a
 * point commits nothing), each point held until the harness's hook returns.
 */
export async function callWithPauses<T>(
  ctx: SessionContext,
  offered: readonly PausePoint[],
  statement: () => Promise<T>,
): Promise<T> {
  const points = SQL_PAUSE_POINTS.filter((p) => offered.includes(p) && (ctx.pausesAt?.(p) ?? true));
  if (points.length === 0) return statement();
  const db = ctx.db as pg.Client;
  const holder = await holderFor(db);
  // The backend's pid, from the BackendKeyData of its startup: no round trip.
  const pid = (db as unknown as { processID: number }).processID;
  const held = new Set(points);
  const unlock = (point: SqlPausePoint) =>
    holder.client.query('SELECT pg_advisory_unlock($1, $2)', [pid, POINT_KEY[point]]);
  await holder.client.query('SELECT pg_advisory_lock($1, key) FROM unnest($2::int[]) AS key', [
    pid,
    points.map((p) => POINT_KEY[p]),
  ]);
  let open = false;
  try {
    await db.query('BEGIN');
    open = true;
    const call = settling(statement());
    while (held.size > 0) {
      const point = await reached(holder, pid, held, call);
      if (!point) break;
      try {
        await ctx.pause(point);
      } catch (hookError: unknown) {
        // Still held, so the cancel meets the statement waiting at this point, never past it.
        await holder.client.query('SELECT pg_cancel_backend($1)', [pid]);
        await call.outcome;
        throw hookError;
      }
      held.delete(point);
      await unlock(point);
    }
    const outcome = await call.outcome;
    if ('error' in outcome) throw outcome.error;
    open = false;
    await db.query('COMMIT');
    return outcome.value;
  } finally {
    if (open) await db.query('ROLLBACK').catch(() => undefined);
    for (const point of held) await unlock(point).catch(() => undefined);
  }
}
