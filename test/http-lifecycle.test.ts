/**
 * Issue 18, the service: POST /confirm/{key} and /release/{key} (idempotent, behind the writes' gate),
 * GET /stock/{sku} (behind the lookups' gate), the expiry job that really ends a hold's ttl_ms, GET /metrics
 * in the Prometheus text format, and `--log-json`. A real `reservebench serve` over real HTTP for the
 * behaviour an operator sees; the service in-process in front of a strategy that only answers where a test
 * must hold an operation open (gates, the job's overlap and drain order). Every wait is on observed state,
 * never on a sleep; the database's own clock (`clock_timestamp()`) says when a hold's ttl has passed.
 */
import { setTimeout as nextLook } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { getReservation, getStock, postEnd, postReserve } from '../harness/http/loopback-client.ts';
import { type ReservationService, startReservationService } from '../harness/http/reservation-service.ts';
import type { ReservationStatus, Strategy } from '../strategies/contract.ts';
import { oneLineProblem, runBounded } from './bounded-cli.ts';
import { type Served, startServe as startServeOn } from './served.ts';

const serverUrl = inject('serverUrl');
const SKU = 'sku-lab-01';
/** Long enough that no hold but the ones made to expire ends while this file runs. */
const LONG_TTL = 3_600_000;
const request = (key: string, ttlMs = LONG_TTL) => ({ requestKey: key, user: `u-${key}`, sku: SKU, ttlMs });

const startServe = (args: string[]) => startServeOn(serverUrl, args);

async function stopServe(served: Served | undefined): Promise<void> {
  if (!served) return;
  served.child.kill('SIGTERM');
  expect(await served.exited).toBe(0);
}

async function until<T>(what: string, look: () => Promise<T> | T, done: (seen: T) => boolean): Promise<T> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    const seen = await look();
    if (done(seen)) return seen;
    if (performance.now() > deadline)
      throw new Error(`${what} never happened (last seen ${JSON.stringify(seen)})`);
    await nextLook(10);
  }
}

interface Admission {
  admitted: number;
  rejectedQueueFull: number;
  rejectedWaitTimeout: number;
  expiry: { everyMs: number; enabled: boolean; runs: number; units: number; errors: number };
  lookups: { admitted: number; rejectedQueueFull: number; rejectedWaitTimeout: number };
}

async function admission(url: string): Promise<Admission> {
  return (await (await fetch(`${url}/admission`)).json()) as Admission;
}

/** One sample of the exposition: name, labels, value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * The Prometheus text format, read strictly: every line a comment (`# HELP` / `# TYPE`) or a sample whose
 * family was typed before it, label values quoted, values numbers. Throws on anything else.
 */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const typed = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (typed?.[1] && typed[2]) {
      types.set(typed[1], typed[2]);
      continue;
    }
    if (/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .+$/.test(line)) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample?.[1] || !sample[3]) throw new Error(`not a sample: ${line}`);
    const name = sample[1];
    const family = name.replace(/_(bucket|sum|count)$/, '');
    if (!types.has(name) && types.get(family) !== 'histogram') throw new Error(`untyped sample: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (sample[2] ?? '').split(',').filter((p) => p !== '')) {
      const label = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"$/.exec(pair);
      if (!label?.[1] || label[2] === undefined) throw new Error(`bad label ${pair} in ${line}`);
      labels[label[1]] = label[2];
    }
    const value = sample[3] === '+Inf' ? Number.POSITIVE_INFINITY : Number(sample[3]);
    if (Number.isNaN(value)) throw new Error(`bad value in ${line}`);
    samples.push({ name, labels, value });
  }
  return { samples, types };
}

async function metrics(url: string): Promise<Sample[]> {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await response.text()).samples;
}

/** The sum of the samples named `name` whose labels include `labels`. */
function total(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/** The database's clock in ms since the epoch: the one the strategies' `expires_at < now()` reads. */
async function databaseMs(clock: pg.Client): Promise<number> {
  const { rows } = await clock.query<{ ms: number }>(
    'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms',
  );
  return rows[0]?.ms ?? Number.NaN;
}

const remaining = async (url: string) => Number((await getStock(url, SKU)).fields.remaining);

describe('serve: confirm, release, stock, expiry, metrics, --log-json', () => {
  let served: Served;
  let clock: pg.Client;
  beforeAll(async () => {
    served = await startServe([
      '--strategy',
      'hot-row',
      '--stock',
      '10',
      '--expire-every-ms',
      '100',
      '--log-json',
    ]);
    clock = new pg.Client({ connectionString: serverUrl });
    await clock.connect();
  });
  afterAll(async () => {
    await clock?.end();
    await stopServe(served);
  });

  it('announces its expiry job', () => {
    expect(served.listening).toMatch(/listening on .*, expiry every 100 ms$/);
  });

  it('confirms and releases holds with the documented codes; a replay answers the current status', async () => {
    const { url } = served;
    expect(await getStock(url, SKU)).toMatchObject({ code: 200, fields: { sku: SKU, remaining: '10' } });
    expect(await postReserve(url, request('c1'))).toMatchObject({ code: 201, fields: { status: 'HELD' } });
    expect(await postReserve(url, request('r1'))).toMatchObject({ code: 201, fields: { status: 'HELD' } });
    expect(await remaining(url)).toBe(8);

    expect(await postEnd(url, 'confirm', 'c1')).toMatchObject({
      code: 200,
      fields: { outcome: 'CONFIRMED', status: 'CONFIRMED' },
    });
    expect(await postEnd(url, 'confirm', 'c1')).toMatchObject({
      code: 200,
      fields: { outcome: 'REPLAY', status: 'CONFIRMED' },
    });
    expect(await postEnd(url, 'release', 'c1')).toMatchObject({
      code: 409,
      fields: { outcome: 'CONFLICT', status: 'CONFIRMED' },
    });
    expect(await getReservation(url, 'c1')).toMatchObject({ code: 200, fields: { status: 'CONFIRMED' } });
    // A confirmed unit stays sold.
    expect(await remaining(url)).toBe(8);

    expect(await postEnd(url, 'release', 'r1')).toMatchObject({
      code: 200,
      fields: { outcome: 'RELEASED', status: 'RELEASED' },
    });
    expect(await remaining(url)).toBe(9);
    expect(await postEnd(url, 'release', 'r1')).toMatchObject({
      code: 200,
      fields: { outcome: 'REPLAY', status: 'RELEASED' },
    });
    // The replay gave nothing back twice.
    expect(await remaining(url)).toBe(9);
    expect(await postEnd(url, 'confirm', 'r1')).toMatchObject({
      code: 409,
      fields: { outcome: 'CONFLICT', status: 'RELEASED' },
    });
    expect(await getReservation(url, 'r1')).toMatchObject({ code: 200, fields: { status: 'RELEASED' } });

    for (const verb of ['confirm', 'release'] as const) {
      expect(await postEnd(url, verb, 'never-reserved')).toMatchObject({
        code: 404,
        fields: { outcome: 'NOT_FOUND', status: 'NOT_FOUND' },
      });
      // A key with ":" and "@", URL-encoded, reaches the strategy as it was reserved.
      expect(await postEnd(url, verb, 'order:17@shop')).toMatchObject({ code: 404 });
    }
    expect(await postReserve(url, request('order:17@shop'))).toMatchObject({ code: 201 });
    expect(await postEnd(url, 'confirm', 'order:17@shop')).toMatchObject({
      code: 200,
      fields: { outcome: 'CONFIRMED' },
    });
    expect(await remaining(url)).toBe(8);
  });

  it('turns bad lifecycle and stock requests away before any gate', async () => {
    const { url } = served;
    const before = await admission(url);
    const cases: [Promise<Response>, number, RegExp][] = [
      [fetch(`${url}/confirm/c1`), 405, /^outcome=BAD_REQUEST\nreason=use POST/],
      [fetch(`${url}/release/c1`, { method: 'PUT' }), 405, /^outcome=BAD_REQUEST/],
      [fetch(`${url}/stock/${SKU}`, { method: 'POST' }), 405, /^outcome=BAD_REQUEST\nreason=use GET/],
      [fetch(`${url}/metrics`, { method: 'POST' }), 405, /^outcome=BAD_REQUEST/],
      [fetch(`${url}/confirm/a%2Fb`, { method: 'POST' }), 400, /^outcome=BAD_REQUEST\nreason=malformed/],
      [fetch(`${url}/release/bad%20key`, { method: 'POST' }), 400, /reason=malformed request_key/],
      [fetch(`${url}/release/%E0%A4%A`, { method: 'POST' }), 400, /reason=malformed request_key/],
      [fetch(`${url}/confirm/c1`, { method: 'POST', body: 'x'.repeat(5000) }), 400, /reason=body too large/],
      [fetch(`${url}/stock/bad%20sku`), 400, /reason=malformed sku/],
      [fetch(`${url}/stock/sku-nobody-sells`), 404, /^outcome=NOT_FOUND\nsku=sku-nobody-sells/],
      [fetch(`${url}/confirm`, { method: 'POST' }), 404, /reason=unknown path/],
    ];
    for (const [response, code, body] of cases) {
      const r = await response;
      expect(r.status).toBe(code);
      expect(await r.text()).toMatch(body);
    }
    const after = await admission(url);
    expect(after.admitted).toBe(before.admitted);
    expect(after.lookups.admitted).toBe(before.lookups.admitted);
  });

  it('ends a hold of ttl_ms=500 by its expiry job once the database clock has passed it; GET reads EXPIRED', async () => {
    const { url } = served;
    const stock = await remaining(url);
    const before = await databaseMs(clock);
    expect(await postReserve(url, request('short', 500))).toMatchObject({
      code: 201,
      fields: { status: 'HELD' },
    });
    const answered = await databaseMs(clock);
    const seen: string[] = [];
    await until(
      'the hold reading EXPIRED',
      async () => {
        const status = (await getReservation(url, 'short')).fields.status ?? '?';
        if (seen.at(-1) !== status) seen.push(status);
        return status;
      },
      (status) => status === 'EXPIRED',
    );
    const expiredAt = await databaseMs(clock);
    // HELD until the job ended it (a first read after the ttl may already find it EXPIRED), nothing else.
    expect(seen.at(-1)).toBe('EXPIRED');
    expect(seen.filter((s) => s !== 'HELD' && s !== 'EXPIRED')).toEqual([]);
    // Its expires_at lies between before + 500 and answered + 500 on the database's clock: EXPIRED was
    // read only after the clock had passed the earliest of them.
    expect(expiredAt).toBeGreaterThan(before + 500);
    expect(answered).toBeGreaterThanOrEqual(before);
    // The unit came back with the expiry, once.
    expect(await remaining(url)).toBe(stock);
    // An expired hold cannot be confirmed or released; asking again answers the same.
    for (const verb of ['confirm', 'release', 'confirm'] as const) {
      expect(await postEnd(url, verb, 'short')).toMatchObject({
        code: 409,
        fields: { outcome: 'CONFLICT', status: 'EXPIRED' },
      });
    }

    // The job's work shows in /admission and in /metrics: one unit (the only short hold), ≥ 1 run.
    const counted = await admission(url);
    expect(counted.expiry).toMatchObject({ everyMs: 100, enabled: true, units: 1, errors: 0 });
    expect(counted.expiry.runs).toBeGreaterThanOrEqual(1);
    const samples = await metrics(url);
    expect(total(samples, 'reservebench_expiry_runs_total', { result: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(total(samples, 'reservebench_expiry_runs_total', { result: 'error' })).toBe(0);
    expect(total(samples, 'reservebench_expiry_units_total')).toBe(1);
    expect(total(samples, 'reservebench_expiry_run_duration_seconds_count')).toBeGreaterThanOrEqual(
      total(samples, 'reservebench_expiry_runs_total', { result: 'ok' }),
    );
  });

  it('exposes requests by route and code, the gates and their waits in the Prometheus text format', async () => {
    const { url } = served;
    const requests = (samples: Sample[], route: string, code: string) =>
      total(samples, 'reservebench_http_requests_total', { route, code });
    const before = await metrics(url);
    expect(await postReserve(url, request('m1'))).toMatchObject({ code: 201 });
    expect(await postEnd(url, 'confirm', 'm1')).toMatchObject({ code: 200 });
    expect(await postEnd(url, 'confirm', 'm1')).toMatchObject({ code: 200 });
    expect(await postEnd(url, 'release', 'm1')).toMatchObject({ code: 409 });
    expect(await postEnd(url, 'release', 'm-unknown')).toMatchObject({ code: 404 });
    expect(await getStock(url, SKU)).toMatchObject({ code: 200 });
    expect(await getStock(url, 'sku-nobody-sells')).toMatchObject({ code: 404 });
    const expected: [string, string, number][] = [
      ['/reserve', '201', 1],
      ['/confirm/{request_key}', '200', 2],
      ['/release/{request_key}', '409', 1],
      ['/release/{request_key}', '404', 1],
      ['/stock/{sku}', '200', 1],
      ['/stock/{sku}', '404', 1],
    ];
    // A request is counted once its connection has let go of the answer, just after the client read it.
    const after = await until(
      'the requests counted',
      () => metrics(url),
      (samples) =>
        expected.every(
          ([route, code, n]) => requests(samples, route, code) - requests(before, route, code) >= n,
        ),
    );
    for (const [route, code, n] of expected) {
      expect(requests(after, route, code) - requests(before, route, code), `${route} ${code}`).toBe(n);
    }
    expect(
      after.find((s) => s.name === 'reservebench_http_requests_total' && s.labels.route === '/reserve'),
    ).toMatchObject({ labels: { method: 'POST' } });

    // Idle now: nothing waits or runs at either gate, and every request that came to the writes' gate
    // (admitted or turned away) has its wait observed exactly once.
    const [idle, gate] = [await metrics(url), await admission(url)];
    for (const gateName of ['reservations', 'lookups']) {
      expect(total(idle, 'reservebench_admission_waiting', { gate: gateName })).toBe(0);
      expect(total(idle, 'reservebench_admission_in_flight', { gate: gateName })).toBe(0);
    }
    expect(total(idle, 'reservebench_admission_wait_seconds_count', { gate: 'reservations' })).toBe(
      gate.admitted + gate.rejectedQueueFull + gate.rejectedWaitTimeout,
    );
    expect(total(idle, 'reservebench_admission_wait_seconds_count', { gate: 'lookups' })).toBe(
      gate.lookups.admitted + gate.lookups.rejectedQueueFull + gate.lookups.rejectedWaitTimeout,
    );
    // Every histogram series: buckets cumulative, the +Inf one equal to its _count.
    const series = (s: Sample) =>
      `${s.name.replace(/_(bucket|count)$/, '')} ${JSON.stringify(Object.entries(s.labels).filter(([k]) => k !== 'le'))}`;
    const ladders = new Map<string, number[]>();
    for (const s of idle.filter((s) => s.name.endsWith('_bucket'))) {
      ladders.set(series(s), [...(ladders.get(series(s)) ?? []), s.value]);
    }
    expect(ladders.size).toBeGreaterThan(0);
    for (const [name, ladder] of ladders) {
      expect(ladder, name).toEqual([...ladder].sort((a, b) => a - b));
      const count = idle.find((s) => s.name.endsWith('_count') && series(s) === name);
      expect(count?.value, name).toBe(ladder.at(-1));
    }
  });

  it('--log-json prints one JSON line per request with key, route, outcome, status, latency and admission wait', async () => {
    const { url } = served;
    expect(await postReserve(url, request('log-1'))).toMatchObject({ code: 201 });
    expect(await postEnd(url, 'confirm', 'log-1')).toMatchObject({ code: 200 });
    expect(await getReservation(url, 'log-1')).toMatchObject({ code: 200 });
    expect(await postEnd(url, 'release', 'log-unknown')).toMatchObject({ code: 404 });
    const bad = await fetch(`${url}/reserve`, { method: 'POST', body: 'request_key=log-2&sku=x' });
    expect(bad.status).toBe(400);
    await bad.text();
    const logged = () =>
      served.lines
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    await until(
      'the five requests logged',
      () => logged(),
      (lines) =>
        lines.some((l) => l.request_key === 'log-unknown') &&
        lines.some((l) => l.route === '/reserve' && l.code === 400),
    );
    // Every line that looks like JSON is JSON with every field, of the right type.
    for (const line of logged()) {
      expect(line).toEqual({
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        method: expect.any(String),
        route: expect.any(String),
        request_key: line.request_key === null ? null : expect.any(String),
        sku: line.sku === null ? null : expect.any(String),
        code: line.client_aborted ? null : expect.any(Number),
        outcome: line.outcome === null ? null : expect.any(String),
        status: line.status === null ? null : expect.any(String),
        latency_ms: expect.any(Number),
        admission_wait_ms: line.admission_wait_ms === null ? null : expect.any(Number),
        admission: line.admission === null ? null : expect.any(String),
        client_aborted: expect.any(Boolean),
      });
      // The wait at the gate is part of the latency.
      if (typeof line.admission_wait_ms === 'number') {
        expect(line.latency_ms as number).toBeGreaterThanOrEqual(line.admission_wait_ms);
      }
    }
    const byKey = (key: string) => logged().filter((l) => l.request_key === key);
    expect(byKey('log-1')).toEqual([
      expect.objectContaining({
        method: 'POST',
        route: '/reserve',
        sku: SKU,
        code: 201,
        outcome: 'HELD',
        status: 'HELD',
        admission: 'ADMITTED',
      }),
      expect.objectContaining({
        route: '/confirm/{request_key}',
        code: 200,
        outcome: 'CONFIRMED',
        status: 'CONFIRMED',
      }),
      expect.objectContaining({ method: 'GET', route: '/reservations/{request_key}', status: 'CONFIRMED' }),
    ]);
    expect(byKey('log-unknown')).toEqual([
      expect.objectContaining({ code: 404, outcome: 'NOT_FOUND', admission: 'ADMITTED' }),
    ]);
    // Bad input never reached a gate: no wait, no ticket.
    expect(logged().filter((l) => l.code === 400 && l.route === '/reserve')).toEqual([
      expect.objectContaining({
        request_key: null,
        outcome: 'BAD_REQUEST',
        admission_wait_ms: null,
        admission: null,
        client_aborted: false,
      }),
    ]);
  });
});

describe('serve with the expiry job off (--expire-every-ms 0) and no --log-json', () => {
  let served: Served | undefined;
  afterAll(() => stopServe(served));

  it('keeps a hold of ttl_ms=500 HELD after the database clock passed it, and logs no JSON', async () => {
    served = await startServe(['--strategy', 'hot-row', '--stock', '3', '--expire-every-ms', '0']);
    const { url } = served;
    expect(served.listening).toMatch(/, no expiry$/);
    const clock = new pg.Client({ connectionString: serverUrl });
    await clock.connect();
    try {
      expect(await postReserve(url, request('short', 500))).toMatchObject({ code: 201 });
      const answered = await databaseMs(clock);
      // expires_at ≤ answered + 500 on the database's clock: wait until that clock has passed it.
      await until(
        'the database clock passing the hold',
        () => databaseMs(clock),
        (ms) => ms > answered + 500,
      );
    } finally {
      await clock.end();
    }
    expect(await getReservation(url, 'short')).toMatchObject({ code: 200, fields: { status: 'HELD' } });
    expect(await remaining(url)).toBe(2);
    expect((await admission(url)).expiry).toEqual({
      everyMs: 0,
      enabled: false,
      runs: 0,
      units: 0,
      errors: 0,
      lastError: null,
    });
    const samples = await metrics(url);
    expect(total(samples, 'reservebench_expiry_runs_total')).toBe(0);
    expect(total(samples, 'reservebench_expiry_units_total')).toBe(0);
    expect(served.lines.filter((line) => line.startsWith('{'))).toEqual([]);
  });
});

describe('serve option checks', () => {
  it.each([
    [['--expire-every-ms', '-1'], /--expire-every-ms must be a whole number from 0 to 3600000, got "-1"/],
    [['--expire-every-ms', '1e3'], /--expire-every-ms must be a whole number/],
    [['--expire-every-ms', ''], /--expire-every-ms must be a whole number/],
    [['--log-json=yes'], /--log-json takes no value, got "yes"/],
  ])('refuses %j with exit 2 and one line, before anything starts', async (args, message) => {
    const run = await runBounded(['serve', '--port', '0', ...args]);
    expect(run).toMatchObject({ code: 2, timedOut: false, leftInTmp: [] });
    expect(oneLineProblem(run.stderr)).toBe(true);
    expect(run.stderr).toMatch(message);
  });
});

/** In-process: a strategy whose every operation the test holds open or counts. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let settle: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    settle = resolve;
  });
  return { promise, resolve: () => settle() };
}

function standIn(parts: Partial<Strategy> = {}): Strategy {
  return {
    id: 'stand-in',
    title: 'answers without tables',
    guarantee: 'none: a stand-in for the HTTP tests',
    expect: 'hold',
    pausePoints: {},
    setup: async () => undefined,
    reserve: async () => ({ outcome: 'HELD', status: 'HELD' }),
    status: async (): Promise<ReservationStatus | 'NOT_FOUND'> => 'HELD',
    remaining: async () => 7,
    audit: async () => ({ skus: [], duplicateActive: 0, duplicateKey: 0, activeKeys: [], endedKeys: [] }),
    ...parts,
  };
}

describe('the service in-process', () => {
  let service: ReservationService | undefined;
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });
  const start = async (strategy: Strategy, extra: { expireEveryMs?: number } = {}) => {
    service = await startReservationService({
      strategy,
      connectionString: serverUrl,
      admission: { limit: 1, maxWaiting: 1, waitMs: 10_000 },
      workMs: 0,
      node: { name: 'node-1', index: 0, count: 1, incarnation: 'http-lifecycle' },
      ...extra,
    });
    return service;
  };

  it('answers 501 NOT_IMPLEMENTED for a strategy without confirm or release, before the gate', async () => {
    const s = await start(standIn());
    for (const verb of ['confirm', 'release'] as const) {
      expect(await postEnd(s.url, verb, 'k1')).toEqual({
        code: 501,
        fields: { outcome: 'NOT_IMPLEMENTED', reason: `strategy stand-in has no ${verb}` },
        retryAfter: null,
      });
    }
    expect(s.counters()).toMatchObject({ admitted: 0, databaseErrors: 0 });
    await s.close();
    // The same request to a strategy that has them is served.
    const t = await start(standIn({ confirm: async () => true, release: async () => true }));
    expect(await postEnd(t.url, 'confirm', 'k1')).toMatchObject({
      code: 200,
      fields: { outcome: 'CONFIRMED' },
    });
    expect(await postEnd(t.url, 'release', 'k2')).toMatchObject({
      code: 200,
      fields: { outcome: 'RELEASED' },
    });
    expect(t.counters()).toMatchObject({ admitted: 2 });
  });

  it('answers a confirm that returns something other than true or false with a 500 naming it', async () => {
    const s = await start(standIn({ confirm: async () => 'yes' as unknown as boolean }));
    expect(await postEnd(s.url, 'confirm', 'k1')).toMatchObject({
      code: 500,
      fields: { outcome: 'ERROR', reason: 'confirm answered "yes", not true or false' },
    });
  });

  it('puts confirm and release behind the writes’ gate and GET /stock behind the lookups’: 503 + Retry-After when full', async () => {
    const confirmHeld = deferred();
    const stockHeld = deferred();
    let confirming = 0;
    let reading = 0;
    const s = await start(
      standIn({
        confirm: async () => {
          confirming += 1;
          await confirmHeld.promise;
          return true;
        },
        release: async () => true,
        remaining: async () => {
          reading += 1;
          await stockHeld.promise;
          return 7;
        },
      }),
    );
    try {
      const first = postEnd(s.url, 'confirm', 'a');
      await until(
        'the confirm inside',
        () => confirming,
        (n) => n === 1,
      );
      const second = postEnd(s.url, 'release', 'b');
      await until(
        'the release waiting',
        () => s.counters().waiting,
        (n) => n === 1,
      );
      for (const full of [postReserve(s.url, request('c')), postEnd(s.url, 'confirm', 'd')]) {
        expect(await full).toEqual({
          code: 503,
          fields: { outcome: 'REJECTED_QUEUE_FULL' },
          retryAfter: '1',
        });
      }

      const read = getStock(s.url, SKU);
      await until(
        'the stock read inside',
        () => reading,
        (n) => n === 1,
      );
      const waitingRead = getReservation(s.url, 'a');
      await until(
        'the lookup waiting',
        () => s.counters().lookups.waiting,
        (n) => n === 1,
      );
      expect(await getStock(s.url, SKU)).toEqual({
        code: 503,
        fields: { outcome: 'REJECTED_QUEUE_FULL' },
        retryAfter: '1',
      });

      confirmHeld.resolve();
      stockHeld.resolve();
      expect(await first).toMatchObject({ code: 200, fields: { outcome: 'CONFIRMED' } });
      expect(await second).toMatchObject({ code: 200, fields: { outcome: 'RELEASED' } });
      expect(await read).toMatchObject({ code: 200, fields: { sku: SKU, remaining: '7' } });
      expect(await waitingRead).toMatchObject({ code: 200 });
    } finally {
      confirmHeld.resolve();
      stockHeld.resolve();
    }
    expect(s.counters()).toMatchObject({
      admitted: 2,
      admittedAfterWait: 1,
      rejectedQueueFull: 2,
      maxInFlightSeen: 1,
      lookups: { admitted: 2, admittedAfterWait: 1, rejectedQueueFull: 1, maxInFlightSeen: 1 },
    });
  });

  it('runs the expiry job one run at a time, and close() waits for a run in progress before the pools', async () => {
    let calls = 0;
    let running = 0;
    let mostRunning = 0;
    const events: string[] = [];
    let hold = deferred();
    const s = await start(
      standIn({
        expire: async (ctx) => {
          calls += 1;
          running += 1;
          mostRunning = Math.max(mostRunning, running);
          await hold.promise;
          // The run's connection still works: its pool has not been closed under it.
          await ctx.db.query('SELECT 1');
          running -= 1;
          events.push('run ended');
          return 2;
        },
      }),
      { expireEveryMs: 1 },
    );
    await until(
      'the first run',
      () => calls,
      (n) => n === 1,
    );
    // Many periods of 1 ms pass while the first run is held: none starts another.
    for (let n = 0; n < 20; n++) await (await fetch(`${s.url}/admission`)).text();
    expect(calls).toBe(1);
    hold.resolve();
    await until(
      'three runs ended',
      () => s.counters().expiry.runs,
      (n) => n >= 3,
    );
    expect(mostRunning).toBe(1);
    const { units, runs, errors } = s.counters().expiry;
    expect(units).toBeGreaterThanOrEqual(2 * runs);
    expect(errors).toBe(0);

    // Held in a run, then asked to close: close() ends only after that run.
    hold = deferred();
    const before = calls;
    await until(
      'a run in progress',
      () => calls,
      (n) => n > before,
    );
    const closing = s.close().then(() => events.push('closed'));
    service = undefined;
    await until(
      'the server refusing connections',
      () =>
        fetch(`${s.url}/admission`).then(
          () => false,
          () => true,
        ),
      (refused) => refused,
    );
    expect(events.at(-1)).toBe('run ended');
    hold.resolve();
    await closing;
    expect(events.slice(-2)).toEqual(['run ended', 'closed']);
    const atClose = calls;
    // Fifty periods later: no run started after close(), nor tried to (on a closed pool it would fail).
    await nextLook(50);
    expect(calls).toBe(atClose);
    expect(s.counters().expiry).toMatchObject({ errors: 0, lastError: null });
    expect(mostRunning).toBe(1);
  });

  it('leaves the job off for a strategy without expire, and when the period is 0', async () => {
    const s = await start(standIn(), { expireEveryMs: 1 });
    expect(s.counters().expiry).toMatchObject({ everyMs: 1, enabled: false, runs: 0 });
    await s.close();
    let calls = 0;
    const t = await start(
      standIn({
        expire: async () => {
          calls += 1;
          return 0;
        },
      }),
      { expireEveryMs: 0 },
    );
    expect(t.counters().expiry).toMatchObject({ everyMs: 0, enabled: false });
    for (let n = 0; n < 20; n++) await (await fetch(`${t.url}/admission`)).text();
    expect(calls).toBe(0);
  });
});
