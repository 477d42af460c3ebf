/**
 * Issue 13, HTTP: a JSON ttl_ms of the wrong type and request keys that could never be looked up are
 * refused; lookups pass a bounded gate of their own and never hold up admitted reservations; a client
 * that goes away is counted as such, not as a database error; an answer outside the contract is a 500
 * that names it. The service runs in-process against the shared server, in front of a strategy that
 * only answers, so every wait in these tests is one the test controls.
 */
import { connect } from 'node:net';
import { setTimeout as nextLook } from 'node:timers/promises';
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { RequestLog } from '../harness/contracts/reservation/http/exchange.ts';
import { getReservation, postReserve } from '../harness/contracts/reservation/http/loopback-client.ts';
import {
  type ReservationService,
  type ServiceOptions,
  startReservationService,
} from '../harness/contracts/reservation/http/reservation-service.ts';
import { checkReserveBody } from '../harness/contracts/reservation/http/reserve-body.ts';
import type { ReservationStatus, ReserveRequest, ReserveResult, Strategy } from '../strategies/contract.ts';

const serverUrl = inject('serverUrl');

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let settle: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    settle = resolve;
  });
  return { promise, resolve: () => settle() };
}

interface Answering {
  reserve?: (request: ReserveRequest) => Promise<unknown>;
  status?: (key: string) => Promise<ReservationStatus | 'NOT_FOUND'>;
}

function answering(behaviour: Answering): Strategy {
  return {
    id: 'answering',
    title: 'answers without tables',
    guarantee: 'none: a stand-in for the HTTP tests',
    expect: 'hold',
    pausePoints: {},
    setup: async () => undefined,
    reserve: async (_ctx, request) =>
      (await (behaviour.reserve?.(request) ?? { outcome: 'HELD', status: 'HELD' })) as ReserveResult,
    status: async (_db, key) => behaviour.status?.(key) ?? 'HELD',
    remaining: async () => 0,
    audit: async () => ({ skus: [], duplicateActive: 0, duplicateKey: 0, activeKeys: [], endedKeys: [] }),
  };
}

let service: ReservationService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function start(
  behaviour: Answering,
  limit = 1,
  maxWaiting = 1,
  more: Pick<ServiceOptions, 'skus' | 'log'> = {},
): Promise<ReservationService> {
  service = await startReservationService({
    ...more,
    strategy: answering(behaviour),
    connectionString: serverUrl,
    admission: { limit, maxWaiting, waitMs: 10_000 },
    workMs: 0,
    node: { name: 'node-1', index: 0, count: 1, incarnation: 'http-input' },
  });
  return service;
}

async function until(what: string, done: () => boolean): Promise<void> {
  for (let n = 0; !done(); n++) {
    if (n > 1000) throw new Error(`${what} never happened`);
    await nextLook(5);
  }
}

/** An answer, or `undefined` once `ms` have passed without one: only a broken service waits that long. */
function within<T>(ms: number, answer: Promise<T>): Promise<T | undefined> {
  return Promise.race([answer, nextLook(ms).then(() => undefined)]);
}

const request = (key: string) => ({ requestKey: key, user: `u-${key}`, sku: 'sku-lab-01', ttlMs: 60_000 });

describe('the body check', () => {
  it.each([true, null, [1], {}, '', 'soon', 1.5, -1, 0])('refuses a JSON ttl_ms of %j', (ttl) => {
    const body = JSON.stringify({ request_key: 'k', user: 'u', sku: 's', ttl_ms: ttl });
    expect(checkReserveBody(body, 'application/json')).toMatchObject({ ok: false, reason: /ttl_ms/ });
  });

  it.each(['.', '..'])('refuses the request key %j, which no lookup path can name', (key) => {
    const form = `request_key=${key}&user=u&sku=s`;
    expect(checkReserveBody(form, '')).toMatchObject({ ok: false, reason: /request_key/ });
    expect(
      checkReserveBody(JSON.stringify({ request_key: key, user: 'u', sku: 's' }), 'application/json'),
    ).toMatchObject({ ok: false, reason: /request_key/ });
  });
});

describe('the service', () => {
  it('answers GET /reservations/{key} for every key it accepts, ":" and "@" included', async () => {
    const seen: string[] = [];
    const s = await start({
      status: async (key) => {
        seen.push(key);
        return 'HELD';
      },
    });
    expect(await postReserve(s.url, request('order:17@shop'))).toMatchObject({ code: 201 });
    expect(await getReservation(s.url, 'order:17@shop')).toMatchObject({
      code: 200,
      fields: { status: 'HELD' },
    });
    expect(seen).toEqual(['order:17@shop']);
    const dotted = await fetch(`${s.url}/reserve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ request_key: '..', user: 'u', sku: 'sku-lab-01', ttl_ms: true }),
    });
    expect(dotted.status).toBe(400);
    expect(await dotted.text()).toMatch(/^outcome=BAD_REQUEST\nreason=.+/);
  });

  it('refuses a sku it does not sell with a reason, before the gate and the database', async () => {
    let reserved = 0;
    const behaviour: Answering = {
      reserve: async () => {
        reserved += 1;
        return { outcome: 'HELD', status: 'HELD' };
      },
    };
    const s = await start(behaviour, 1, 1, { skus: ['sku-lab-01'] });
    const unknown = await postReserve(s.url, { ...request('k-unknown'), sku: 'sku-lab-02' });
    expect(unknown).toMatchObject({
      code: 400,
      fields: { outcome: 'BAD_REQUEST', reason: 'the service sells no such sku' },
    });
    expect(await postReserve(s.url, request('k-known'))).toMatchObject({ code: 201 });
    expect(reserved).toBe(1);
    expect(s.counters()).toMatchObject({ admitted: 1, badRequests: 1 });
  });

  it('bounds lookups with a gate of their own: 503 + Retry-After when it is full', async () => {
    const hold = deferred();
    let inside = 0;
    let mostInside = 0;
    const s = await start({
      status: async () => {
        inside += 1;
        mostInside = Math.max(mostInside, inside);
        await hold.promise;
        inside -= 1;
        return 'HELD';
      },
    });
    // Released in the end whatever happens, so close() never waits on a lookup held here.
    try {
      const first = fetch(`${s.url}/reservations/a`);
      await until('the first lookup inside', () => inside === 1);
      const second = fetch(`${s.url}/reservations/b`);
      await until('the second lookup waiting', () => s.counters().lookups?.waiting === 1);
      const third = await within(5_000, fetch(`${s.url}/reservations/c`));
      expect(third?.status).toBe(503);
      expect(third?.headers.get('retry-after')).toBe('1');
      expect(await third?.text()).toMatch(/^outcome=REJECTED_QUEUE_FULL/);
      // A reservation is admitted and answered while the lookups are stuck: they hold none of its connections.
      expect(await within(5_000, postReserve(s.url, request('while-lookups-wait')))).toMatchObject({
        code: 201,
      });
      hold.resolve();
      expect((await first).status).toBe(200);
      expect((await second).status).toBe(200);
    } finally {
      hold.resolve();
    }
    expect(mostInside).toBe(1);
    expect(s.counters()).toMatchObject({ admitted: 1, lookups: { admitted: 2, rejectedQueueFull: 1 } });
  });

  it('counts a client that goes away as a client abort, not a database error', async () => {
    const reserved = deferred();
    const finish = deferred();
    const logged: RequestLog[] = [];
    const behaviour: Answering = {
      reserve: async () => {
        reserved.resolve();
        await finish.promise;
        return { outcome: 'HELD', status: 'HELD' };
      },
    };
    const s = await start(behaviour, 1, 1, { log: (line) => logged.push(line) });
    const { port } = new URL(s.url);
    const send = async (text: string) => {
      const socket = connect(Number(port), '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      socket.write(text);
      return socket;
    };
    const head = 'POST /reserve HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n';
    try {
      // Gone halfway through its body.
      (await send(`${head}Content-Length: 100\r\n\r\nrequest_key=`)).destroy();
      await until('the first abort counted', () => s.counters().clientAborts === 1);
      // Gone while its admitted request runs, which still finishes: its answer has nowhere to go.
      const body = 'request_key=gone&user=u&sku=sku-lab-01';
      const socket = await send(`${head}Content-Length: ${body.length}\r\n\r\n${body}`);
      await reserved.promise;
      socket.destroy();
      await until('the second abort counted', () => s.counters().clientAborts === 2);
    } finally {
      finish.resolve();
    }
    expect(s.counters()).toMatchObject({ databaseErrors: 0, admitted: 1 });
    // The log says no answer reached either client, and what the service did for the one it admitted.
    await until('both requests logged', () => logged.length === 2);
    expect(logged.map((l) => [l.code, l.client_aborted, l.outcome])).toEqual([
      [null, true, null],
      [null, true, 'HELD'],
    ]);
  });

  it('answers an outcome outside the contract with a 500 naming it', async () => {
    const s = await start({ reserve: async () => ({ outcome: 'BANANA' }) });
    const answer = await postReserve(s.url, request('fruit'));
    expect(answer).toMatchObject({
      code: 500,
      fields: { outcome: 'ERROR', reason: 'unknown outcome "BANANA"' },
    });
  });
});
