/**
 * How many requests are inside the gate, across every instance, as the database itself sees it — never the
 * instances' own word: the backends of the services' writes lane (application_name `reservebench-service`)
 * that are in a transaction or running a statement, read from pg_stat_activity. A request inside the gate
 * between two statements outside a transaction is not seen, so a sample can only under-count: a sample above
 * the gate's LIMIT proves the gate let more in. Sampled every SAMPLE_MS until told to stop (a sampling
 * period, not an ordering).
 */
import { setTimeout as nextSample } from 'node:timers/promises';
import type pg from 'pg';

/** The writes lane's connections (the HTTP service names its lanes `reservebench-service<role>`). */
export const WRITES_APPLICATION_NAME = 'reservebench-service';
const SAMPLE_MS = 2;

export async function insideNow(admin: pg.ClientBase): Promise<number> {
  const { rows } = await admin.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = $1
        AND (state <> 'idle' OR xact_start IS NOT NULL) AND pid <> pg_backend_pid()`,
    [WRITES_APPLICATION_NAME],
  );
  return rows[0]?.n ?? 0;
}

export interface ConcurrencySeen {
  /** The most requests seen inside at once. */
  max: number;
  samples: number;
}

/** Samples on `admin` until `stop()`; its result is the most seen inside at once. */
export function sampleConcurrency(admin: pg.ClientBase): { stop(): Promise<ConcurrencySeen> } {
  let stopping = false;
  const seen: ConcurrencySeen = { max: 0, samples: 0 };
  const loop = (async () => {
    while (!stopping) {
      seen.max = Math.max(seen.max, await insideNow(admin));
      seen.samples += 1;
      await nextSample(SAMPLE_MS);
    }
  })();
  return {
    async stop() {
      stopping = true;
      await loop;
      return seen;
    },
  };
}

/** The judgement: a gate whose LIMIT is global must never be seen letting more than LIMIT in. */
export function concurrencyProblems(seen: ConcurrencySeen, limit: number): string[] {
  if (seen.samples === 0) return ['not exercised: the database was never sampled'];
  return seen.max > limit
    ? [
        `database concurrency ${seen.max} > the gate's limit ${limit}: more requests were inside than it admits`,
      ]
    : [];
}
