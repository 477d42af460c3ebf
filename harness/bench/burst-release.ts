/**
 * The one instant of a burst, across processes: the parent holds an exclusive advisory lock, every share
 * blocks one of its connections on the same lock in shared mode, and the parent lets go only once
 * pg_locks shows every share waiting — the server's own view, as the isolation tester waits on
 * pg_locks, never a sleep. Letting go grants all the shared waiters at once.
 */
import { setTimeout as nextLook } from 'node:timers/promises';
import type pg from 'pg';
import { Errors } from '../errors.ts';
import { sharedClockMs } from './burst-task.ts';

/** The first key of the two-key advisory lock, the suite's own constant; a burst's own id is the second. */
export const BURST_LOCK_CLASS = 1_624_337_923;

export async function holdRelease(admin: pg.ClientBase, key: number): Promise<void> {
  await admin.query('SELECT pg_advisory_lock($1, $2)', [BURST_LOCK_CLASS, key]);
}

async function sharesWaiting(admin: pg.ClientBase, key: number): Promise<number> {
  const { rows } = await admin.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database
      WHERE d.datname = current_database() AND l.locktype = 'advisory' AND NOT l.granted
        AND l.classid = $1::int::oid AND l.objid = $2::int::oid AND l.objsubid = 2`,
    [BURST_LOCK_CLASS, key],
  );
  return rows[0]?.n ?? 0;
}

/** The instant the holder let go: on this process's clock (sharedClockMs) and on the server's (ms since the epoch). */
export interface ReleaseInstant {
  at: number;
  serverMs: number;
}

/**
 * Waits until `shares` sessions wait on the lock, then lets go; returns the release instant.
 * `ended` says the children (or agents) stopped early (a failed connect), so the wait ends with their error
 * instead.
 */
export async function releaseWhenAllWait(
  admin: pg.ClientBase,
  key: number,
  shares: number,
  { timeoutMs, ended }: { timeoutMs: number; ended: () => boolean | Promise<boolean> },
): Promise<ReleaseInstant> {
  const deadline = performance.now() + timeoutMs;
  for (let waiting = 0; waiting < shares; waiting = await sharesWaiting(admin, key)) {
    if (await ended()) throw new Error('the burst processes ended before the release');
    if (performance.now() > deadline) {
      throw Errors.barrierTimeout(
        `the burst release (${waiting} of ${shares} shares waiting)`,
        timeoutMs / 1000,
      );
    }
    await nextLook(5);
  }
  const at = sharedClockMs();
  // The server's clock is read in the statement that lets go, before it does.
  const { rows } = await admin.query<{ server_ms: number }>(
    `SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS server_ms,
            pg_advisory_unlock($1, $2)`,
    [BURST_LOCK_CLASS, key],
  );
  return { at, serverMs: rows[0]?.server_ms ?? Number.NaN };
}
