/**
 * The flash sale through HTTP against N instances of a service, as a client population behind a
 * round-robin balancer sends it: `requests` distinct users, each sending its one request (`send`: the
 * contract's request of user i, e.g. a hold of one unit, and its answer), all sent in one turn of
 * this process's event loop (one instant), request i to instance i mod N; a 503 with Retry-After is sent
 * again after a full-jitter backoff (burst-retry.ts), retry k to instance (i + k) mod N, as a balancer
 * would spread it, up to `retries` times. Meanwhile the database's own view of how many requests are
 * inside (database-concurrency.ts) is sampled. Each request ends in one record; measureInstancesBurst
 * turns the records into the row's numbers, pure, so a fixture can break each.
 */

import { setTimeout as backOff } from 'node:timers/promises';
import type pg from 'pg';
import { type ConcurrencySeen, sampleConcurrency } from '../gate/database-concurrency.ts';
import { backoffs, DEFAULT_RETRY } from './burst-retry.ts';
import { GAVE_UP, sharedClockMs } from './burst-task.ts';

/** A service's HTTP answer as the burst reads it: its status, `Retry-After` and `outcome` field. */
export interface InstanceAnswer {
  code: number;
  fields: Readonly<Record<string, string>>;
  retryAfter: string | null;
}

export interface InstancesBurst {
  urls: readonly string[];
  observer: pg.ClientBase;
  /** Request `request` (0-based, one per user) sent to the instance at `url`. */
  send(url: string, request: number): Promise<InstanceAnswer>;
  requests: number;
  retries?: number;
  seed: number;
}

export interface InstanceRecord {
  request: number;
  /** The instance its first attempt went to (0-based). */
  instance: number;
  /** The instance that gave its last answer. */
  answeredBy: number;
  answeredAt: number;
  outcome: string;
  retries: number;
}

async function sendOne(burst: InstancesBurst, request: number, backoff: (retry: number) => number) {
  const n = burst.urls.length;
  const most = burst.retries ?? DEFAULT_RETRY.retries;
  for (let retries = 0; ; retries++) {
    const instance = (request + retries) % n;
    const answer = await burst.send(burst.urls[instance] ?? '', request).catch(() => undefined);
    const outcome = answer ? (answer.fields.outcome ?? `HTTP_${answer.code}`) : 'NO_ANSWER';
    if (answer?.code === 503 && answer.retryAfter !== null) {
      if (retries >= most) return { instance: request % n, answeredBy: instance, outcome: GAVE_UP, retries };
      await backOff(backoff(retries));
      continue;
    }
    return { instance: request % n, answeredBy: instance, outcome, retries };
  }
}

export async function runInstancesBurst(
  burst: InstancesBurst,
): Promise<{ records: InstanceRecord[]; releasedAt: number; concurrency: ConcurrencySeen }> {
  const sampler = sampleConcurrency(burst.observer);
  const backoff = backoffs(
    { ...DEFAULT_RETRY, retries: burst.retries ?? DEFAULT_RETRY.retries, seed: burst.seed },
    0,
  );
  const releasedAt = sharedClockMs();
  const records = await Promise.all(
    Array.from({ length: burst.requests }, async (_, request) => {
      const sent = await sendOne(burst, request, backoff);
      return { request, ...sent, answeredAt: sharedClockMs() };
    }),
  );
  const concurrency = await sampler.stop();
  return { records, releasedAt, concurrency };
}

export interface InstancesMeasures {
  soldOutMs: number | null;
  answeredMs: number;
  outcomes: Record<string, number>;
  /** 503s answered and retried, all instances together. */
  retries: number;
  /** Per instance (by where requests were first sent): requests, and units its clients got. */
  perInstance: { requests: number; held: number }[];
}

const hundredths = (x: number) => Math.round(x * 100) / 100;

export function measureInstancesBurst(
  records: readonly InstanceRecord[],
  releasedAt: number,
  stock: number,
  instances: number,
): InstancesMeasures {
  const held = records.filter((r) => r.outcome === 'HELD');
  const last = (rs: readonly InstanceRecord[]) => Math.max(releasedAt, ...rs.map((r) => r.answeredAt));
  const outcomes: Record<string, number> = {};
  for (const r of records) outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
  const perInstance = Array.from({ length: instances }, (_, i) => ({
    requests: records.filter((r) => r.instance === i).length,
    held: held.filter((r) => r.instance === i).length,
  }));
  return {
    soldOutMs: held.length >= stock ? hundredths(last(held) - releasedAt) : null,
    answeredMs: hundredths(last(records) - releasedAt),
    outcomes,
    retries: records.reduce((n, r) => n + r.retries, 0),
    perInstance,
  };
}
