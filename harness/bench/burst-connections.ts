/**
 * The server's side of a burst: how many connections its clients held, sampled from pg_stat_activity
 * every 10 ms (a sampling period, not an ordering) until the burst is over. The peak shows how a burst
 * of N requests mapped onto the server: N requests, this many backends.
 */
import { setTimeout as nextSample } from 'node:timers/promises';
import type pg from 'pg';
import { BURST_APPLICATION_PREFIX } from './burst-task.ts';

const SAMPLE_MS = 10;

export async function burstConnections(admin: pg.ClientBase): Promise<number> {
  const { rows } = await admin.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND application_name LIKE $1`,
    [`${BURST_APPLICATION_PREFIX}%`],
  );
  return rows[0]?.n ?? 0;
}

/** The most connections seen from now until `over` settles (either way). */
export async function peakConnections(admin: pg.ClientBase, over: Promise<unknown>): Promise<number> {
  let done = false;
  const settled = over.then(
    () => undefined,
    () => undefined,
  );
  void settled.then(() => {
    done = true;
  });
  let peak = 0;
  while (!done) {
    peak = Math.max(peak, await burstConnections(admin));
    await Promise.race([settled, nextSample(SAMPLE_MS)]);
  }
  return peak;
}
