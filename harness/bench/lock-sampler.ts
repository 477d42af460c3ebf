/**
 * Samples how many of the run database's backends wait on a lock (pg_stat_activity, wait_event_type
 * `Lock`) while a series is measured: the mean number of waiters, and the share of samples with any.
 */
import { setTimeout as nextSample } from 'node:timers/promises';
import type { ClientBase } from 'pg';

export interface LockWait {
  meanWaiters: number;
  shareOfTime: number;
  samples: number;
}

const SAMPLE_EVERY_MS = 20;

export async function sampleLockWaits(control: ClientBase, until: () => boolean): Promise<LockWait> {
  let samples = 0;
  let waiters = 0;
  let withWaiters = 0;
  while (!until()) {
    const { rows } = await control.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
    );
    const n = rows[0]?.n ?? 0;
    samples += 1;
    waiters += n;
    if (n > 0) withWaiters += 1;
    await nextSample(SAMPLE_EVERY_MS);
  }
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    meanWaiters: samples ? round(waiters / samples) : 0,
    shareOfTime: samples ? round(withWaiters / samples) : 0,
    samples,
  };
}
