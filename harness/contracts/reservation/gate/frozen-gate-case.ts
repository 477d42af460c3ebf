/**
 * The gate case with nothing left to timing: the harness holds every table of the service's schema (an
 * ACCESS EXCLUSIVE lock in a transaction of its own), then sends `requests` reserves spread over the
 * instances, request i to instance i mod N, none retried. An admitted request blocks on the harness's lock
 * inside the database; one the gate holds back waits out its --wait-ms and is answered 503. Once every
 * request is either answered 503 or seen blocked by the harness's lock (pg_locks, through
 * pg_blocking_pids — the isolation tester's way, never a sleep), the requests inside are all the gate let
 * in at once; then the lock goes and every admitted request finishes. Throughout, database-concurrency.ts
 * samples how many are inside. A gate whose LIMIT holds across instances shows exactly LIMIT blocked; N
 * per-process gates show up to N × LIMIT, and the case fails for exactly that.
 */
import { setTimeout as nextLook } from 'node:timers/promises';
import type pg from 'pg';
import { Errors } from '../../../errors.ts';
import {
  type ConcurrencySeen,
  concurrencyProblems,
  sampleConcurrency,
  WRITES_APPLICATION_NAME,
} from '../../../gate/database-concurrency.ts';
import { type HttpAnswer, postReserve } from '../http/loopback-client.ts';

export interface FrozenGateCase {
  urls: readonly string[];
  /** Two connections of the harness's own to the service's database: one holds the lock, one observes. */
  holder: pg.ClientBase;
  observer: pg.ClientBase;
  schema: string;
  sku: string;
  requests: number;
  /** The LIMIT the gate claims for all instances together. */
  limit: number;
  timeoutMs: number;
}

export interface FrozenGateResult {
  /** Requests seen blocked inside the database at once, once every other one was answered 503. */
  insideAtOnce: number;
  concurrency: ConcurrencySeen;
  /** Answers by code and outcome (`503 REJECTED_WAIT_TIMEOUT`, `201 HELD`, …). */
  answers: Record<string, number>;
  /** Per instance: its requests answered 503. */
  rejectedPerInstance: number[];
  /** Request i's answer (its key `gate-i`, its user `gate-user-i`), for a final read. */
  each: HttpAnswer[];
  problems: string[];
}

export async function blockedBy(observer: pg.ClientBase, holderPid: number): Promise<number> {
  const { rows } = await observer.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = $1 AND $2 = ANY(pg_blocking_pids(pid))`,
    [WRITES_APPLICATION_NAME, holderPid],
  );
  return rows[0]?.n ?? 0;
}

export async function freeze(holder: pg.ClientBase, schema: string): Promise<number> {
  const { rows } = await holder.query<{ name: string }>(
    "SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname = $1",
    [schema],
  );
  if (rows.length === 0) throw Errors.badInput(`schema ${schema} has no tables to hold`);
  await holder.query('BEGIN');
  await holder.query(`LOCK TABLE ${rows.map((r) => r.name).join(', ')} IN ACCESS EXCLUSIVE MODE`);
  const pid = await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return pid.rows[0]?.pid ?? 0;
}

/** Waits until every request is answered 503 or blocked by the holder; the number blocked then. */
async function settled(c: FrozenGateCase, holderPid: number, rejected: () => number): Promise<number> {
  const deadline = performance.now() + c.timeoutMs;
  for (;;) {
    const blocked = await blockedBy(c.observer, holderPid);
    if (blocked + rejected() >= c.requests) return blocked;
    if (performance.now() > deadline) {
      throw Errors.barrierTimeout(
        `the gate case (${blocked} blocked, ${rejected()} answered 503)`,
        c.timeoutMs / 1000,
      );
    }
    await nextLook(5);
  }
}

export async function runFrozenGateCase(c: FrozenGateCase): Promise<FrozenGateResult> {
  const sampler = sampleConcurrency(c.observer);
  const holderPid = await freeze(c.holder, c.schema);
  const rejectedPerInstance = c.urls.map(() => 0);
  const sent: Promise<HttpAnswer>[] = [];
  try {
    for (let i = 0; i < c.requests; i++) {
      const instance = i % c.urls.length;
      const request = { requestKey: `gate-${i}`, user: `gate-user-${i}`, sku: c.sku, ttlMs: 60_000 };
      const answer = postReserve(c.urls[instance] ?? '', request);
      void answer.then(
        (a) => {
          if (a.code === 503) rejectedPerInstance[instance] = (rejectedPerInstance[instance] ?? 0) + 1;
        },
        () => undefined,
      );
      sent.push(answer);
    }
    const rejected = () => rejectedPerInstance.reduce((n, k) => n + k, 0);
    const insideAtOnce = await settled(c, holderPid, rejected);
    await c.holder.query('COMMIT');
    const answers: Record<string, number> = {};
    const each = await Promise.all(sent);
    for (const a of each) {
      const key = `${a.code} ${a.fields.outcome ?? a.fields.status ?? ''}`.trim();
      answers[key] = (answers[key] ?? 0) + 1;
    }
    const concurrency = await sampler.stop();
    const problems = [
      ...(insideAtOnce < Math.min(c.limit, c.requests)
        ? [
            `not exercised: only ${insideAtOnce} request(s) reached the database, fewer than the limit ${c.limit}`,
          ]
        : []),
      ...concurrencyProblems({ ...concurrency, max: Math.max(concurrency.max, insideAtOnce) }, c.limit),
    ];
    return { insideAtOnce, concurrency, answers, rejectedPerInstance, each, problems };
  } finally {
    await c.holder.query('ROLLBACK').catch(() => undefined);
    await sampler.stop();
    await Promise.allSettled(sent);
  }
}
