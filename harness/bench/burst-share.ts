/**
 * One worker thread's share of a flash-sale burst: it opens its connections, waits on the release lock
 * (one of its connections blocks on a shared advisory lock the parent holds exclusively), and the moment
 * that lock is granted sends every request of its share at once, each a distinct user reserving one unit.
 * The requests queue for the share's connections (a pool, FIFO) and, with admission, pass the process's
 * gate first; a 503 from the gate is retried by its client after a seeded backoff. Every request ends with
 * one answer, recorded with the time it arrived and the time it was answered.
 */
import { setTimeout as backOff } from 'node:timers/promises';
import pg from 'pg';
import type { Strategy } from '../../strategies/contract.ts';
import { sqlstateOf } from '../../strategies/support/sqlstate.ts';
import { CONTRACTS } from '../contracts/index.ts';
import { sessionOptions } from '../driver/case-connection.ts';
import { Admission } from '../gate/admission.ts';
import { BURST_LOCK_CLASS } from './burst-release.ts';
import { backoffs } from './burst-retry.ts';
import {
  BURST_APPLICATION_PREFIX,
  type BurstRecord,
  type BurstShareTask,
  GAVE_UP,
  type ShareRelease,
  type ShareResult,
  sharedClockMs,
} from './burst-task.ts';

/**
 * The design a burst's share sends holds to, loaded and checked by the first contract listed: the burst
 * drives that contract's designs only (bench-action.ts refuses any other).
 */
const burstDesign = async (moduleUrl: string) =>
  (await CONTRACTS[0].designs.importDesign(moduleUrl)) as Strategy;

interface Share {
  task: BurstShareTask;
  strategy: Strategy;
  pool: pg.Pool;
  gate: Admission | undefined;
  backoff: (retry: number) => number;
}

/** One reserve on a connection of the share's pool: its outcome, or ERROR with its SQLSTATE (a failed connect too). */
async function reserveOnPool(
  share: Share,
  request: number,
): Promise<Pick<BurstRecord, 'outcome' | 'sqlstate'>> {
  let client: pg.PoolClient | undefined;
  try {
    client = await share.pool.connect();
    const ctx = {
      db: client,
      pause: async () => undefined,
      node: share.task.spec.node,
      retried: () => undefined,
    };
    const answer = await share.strategy.reserve(ctx, {
      requestKey: `burst-${request}`,
      user: `burst-user-${request}`,
      sku: share.task.sku,
      ttlMs: 60_000,
    });
    return { outcome: answer.outcome };
  } catch (error: unknown) {
    return { outcome: 'ERROR', sqlstate: sqlstateOf(error) ?? 'other' };
  } finally {
    client?.release();
  }
}

/** One client: through the gate (retrying its 503s as allowed), then one reserve; its record. */
async function sendRequest(share: Share, request: number): Promise<BurstRecord> {
  const arrivedAt = sharedClockMs();
  const most = share.task.retry.retries;
  for (let retries = 0; ; retries++) {
    const ticket = share.gate ? await share.gate.enter() : 'ADMITTED';
    if (ticket === 'REJECTED_QUEUE_FULL' || ticket === 'REJECTED_WAIT_TIMEOUT') {
      if (retries >= most) {
        return { request, arrivedAt, answeredAt: sharedClockMs(), outcome: GAVE_UP, retries };
      }
      await backOff(share.backoff(retries));
      continue;
    }
    try {
      const answer = await reserveOnPool(share, request);
      return { request, arrivedAt, answeredAt: sharedClockMs(), retries, ...answer };
    } finally {
      share.gate?.exit();
    }
  }
}

/**
 * Opens every connection of the share, then blocks one of them on the release lock until it is granted;
 * returns when that was, on this process's clock and on the server's.
 */
async function connectAndAwaitRelease(task: BurstShareTask, pool: pg.Pool): Promise<ShareRelease> {
  const clients = await Promise.all(Array.from({ length: task.spec.connections }, () => pool.connect()));
  const [waiter, ...idle] = clients;
  for (const client of idle) client.release();
  if (!waiter) throw new Error('a burst share needs a connection');
  try {
    // Session-level and shared: every share's waiter is granted at once when the parent lets go; the
    // two-key form never meets a design's own one-key advisory locks. The server's clock is read in the
    // same statement, after the lock is granted.
    const { rows } = await waiter.query<{ server_ms: number }>(
      `SELECT pg_advisory_lock_shared($1, $2),
              (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS server_ms`,
      [BURST_LOCK_CLASS, task.releaseLock],
    );
    return { grantedAt: sharedClockMs(), serverMs: rows[0]?.server_ms ?? Number.NaN };
  } finally {
    waiter.release();
  }
}

export default async function runBurstShare(task: BurstShareTask): Promise<ShareResult> {
  const pool = new pg.Pool({
    connectionString: task.connection.connectionString,
    application_name: `${BURST_APPLICATION_PREFIX}${task.spec.share}`,
    options: sessionOptions(task.connection),
    max: task.spec.connections,
    idleTimeoutMillis: 0,
  });
  pool.on('error', () => undefined);
  try {
    const share: Share = {
      task,
      strategy: await burstDesign(task.strategyModuleUrl),
      pool,
      gate: task.admission && new Admission(task.admission.settings, task.admission.buffer),
      backoff: backoffs(task.retry, task.spec.share),
    };
    const release = await connectAndAwaitRelease(task, pool);
    const records = await Promise.all(task.spec.requests.map((request) => sendRequest(share, request)));
    return { records, release };
  } finally {
    await pool.end().catch(() => undefined);
  }
}
