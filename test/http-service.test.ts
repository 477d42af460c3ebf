/**
 * `reservebench serve` driven by a real HTTP client over loopback (no injected handler calls), and the
 * http / disconnect scenarios (the flash-sale lab's HTTP admission and disconnect runs) through `run`.
 */
import { createServer } from 'node:net';
import { setTimeout as nextLook } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getReservation, postReserve } from '../harness/http/loopback-client.ts';
import { oneLineProblem, runBounded } from './bounded-cli.ts';
import { measured, runJson } from './run-cli.ts';
import { type Served, startServe as startServeOn } from './served.ts';

const serverUrl = inject('serverUrl');
const request = (key: string, user = `u-${key}`, sku = 'sku-lab-01') => ({
  requestKey: key,
  user,
  sku,
  ttlMs: 60_000,
});

const startServe = (args: string[]) => startServeOn(serverUrl, args);

/** The suite's run databases on the test server. */
async function runDatabases(server: pg.Client): Promise<number> {
  const { rows } = await server.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_database WHERE datname LIKE 'reservebench_%'",
  );
  return rows[0]?.n ?? 0;
}

async function admission(url: string): Promise<Record<string, number>> {
  return (await (await fetch(`${url}/admission`)).json()) as Record<string, number>;
}

describe('reservebench serve', () => {
  let served: Served;
  beforeAll(async () => {
    served = await startServe(['--strategy', 'hot-row', '--stock', '2']);
  });
  afterAll(async () => {
    served.child.kill('SIGTERM');
    await served.exited;
  });

  it('answers POST /reserve and GET /reservations/{key} with the documented codes', async () => {
    const first = await postReserve(served.url, request('r1'));
    expect(first).toMatchObject({ code: 201, fields: { outcome: 'HELD', status: 'HELD' } });
    expect(await postReserve(served.url, request('r1'))).toMatchObject({
      code: 200,
      fields: { outcome: 'REPLAY' },
    });
    expect(await postReserve(served.url, request('r1', 'someone-else'))).toMatchObject({
      code: 422,
      fields: { outcome: 'KEY_REUSED' },
    });
    expect(await postReserve(served.url, request('r2', 'u-r1'))).toMatchObject({
      code: 409,
      fields: { outcome: 'USER_LIMIT' },
    });
    const json = await fetch(`${served.url}/reserve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ request_key: 'r3', user: 'u-r3', sku: 'sku-lab-01', ttl_ms: 60000 }),
    });
    expect(json.status).toBe(201);
    expect(await postReserve(served.url, request('r4'))).toMatchObject({
      code: 409,
      fields: { outcome: 'SOLD_OUT' },
    });
    expect(await getReservation(served.url, 'r1')).toMatchObject({ code: 200, fields: { status: 'HELD' } });
    expect(await getReservation(served.url, 'nope')).toMatchObject({
      code: 404,
      fields: { status: 'NOT_FOUND' },
    });
  });

  it('turns bad input away with a 4xx and outcome=, before the database', async () => {
    const before = await admission(served.url);
    const post = (body: string, type = 'application/x-www-form-urlencoded') =>
      fetch(`${served.url}/reserve`, { method: 'POST', headers: { 'content-type': type }, body });
    const cases: [Promise<Response>, number][] = [
      [post('user=u&sku=sku-lab-01'), 400],
      [post('request_key=k1&user=u&sku=sku-lab-01&ttl_ms=soon'), 400],
      [post('request_key=bad key!&user=u&sku=sku-lab-01'), 400],
      [post('{"request_key": ', 'application/json'), 400],
      [post(`request_key=k2&user=u&sku=sku-lab-01&pad=${'x'.repeat(5000)}`), 400],
      [post('request_key=k3&user=u&sku=sku-lab-01', 'text/xml'), 400],
      [fetch(`${served.url}/reserve`), 405],
      [fetch(`${served.url}/reservations/r1`, { method: 'DELETE' }), 405],
      [fetch(`${served.url}/elsewhere`), 404],
    ];
    for (const [response, code] of cases) {
      const r = await response;
      expect(r.status).toBe(code);
      expect(await r.text()).toMatch(/^outcome=BAD_REQUEST/);
    }
    const after = await admission(served.url);
    expect(after.admitted).toBe(before.admitted);
    expect((after.badRequests ?? 0) - (before.badRequests ?? 0)).toBe(6);
    expect(await getReservation(served.url, 'k1')).toMatchObject({ code: 404 });
  });
});

describe('graceful shutdown', () => {
  it('on SIGTERM finishes the admitted request, then exits 0', async () => {
    const served = await startServe(['--strategy', 'hot-row', '--work-ms', '500']);
    const pending = postReserve(served.url, request('late'));
    // Wait until the request is inside the gate (observed), then ask the server to stop.
    for (let n = 0; (await admission(served.url)).inFlight !== 1; n++) {
      if (n > 500) throw new Error('the request never got admitted');
      await nextLook(5);
    }
    served.child.kill('SIGTERM');
    expect(await pending).toMatchObject({ code: 201, fields: { outcome: 'HELD' } });
    expect(await served.exited).toBe(0);
    expect(served.lines.join('\n')).toMatch(/SIGTERM: draining admitted requests\nstopped/);
  });
});

describe('serve on a port in use', () => {
  it('says so in one line and exits 2, leaving no server, run database or state file', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    const port = String(typeof address === 'object' && address ? address.port : 0);
    const server = new pg.Client({ connectionString: serverUrl });
    await server.connect();
    try {
      const before = await runDatabases(server);
      // On the given server, and on an embedded one it would have started.
      for (const env of [{ DATABASE_URL: serverUrl }, {}]) {
        const run = await runBounded(['serve', '--port', port], { env });
        expect(run, run.stderr).toMatchObject({ code: 2, timedOut: false, leftInTmp: [] });
        expect(oneLineProblem(run.stderr), run.stderr).toBe(true);
        expect(run.stderr).toContain(`127.0.0.1:${port} is in use`);
      }
      expect(await runDatabases(server)).toBe(before);
    } finally {
      await server.end();
      taken.close();
    }
  });
});

describe('scenarios over HTTP', () => {
  it('http: 30 × 201 and 90 × 409, admitted once per client, every 503 counted, in flight ≤ 4, waiting ≤ 8; disconnect: REPLAY, stock −1', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--scenario',
      'http,disconnect',
      '--strategy',
      'hot-row',
    ]);
    const c = measured(report.cases, 'http/hot-row');
    expect(c.status).toBe('pass');
    expect(c.observations?.finalCodes).toEqual({ 201: 30, 409: 90 });
    const gate = c.observations?.admission as Record<string, number>;
    expect(gate.admitted).toBe(120);
    expect(c.observations?.responses503).toBe(
      (gate.rejectedQueueFull ?? 0) + (gate.rejectedWaitTimeout ?? 0),
    );
    expect(gate.maxInFlightSeen).toBeLessThanOrEqual(4);
    expect(gate.maxWaitingSeen).toBeLessThanOrEqual(8);
    expect(c.invariants).toMatchObject({ total: 30, active: 30, drift: 0, oversold: 0 });

    const d = measured(report.cases, 'disconnect/hot-row');
    expect(d.status).toBe('pass');
    expect(d.observations).toMatchObject({ statusOnceCommitted: 'HELD', replay: '200 REPLAY' });
    expect(['NOT_FOUND', 'HELD']).toContain(d.observations?.lookupAfterDisconnect);
    expect(d.invariants).toMatchObject({ total: 30, available: 29, active: 1, drift: 0 });
    expect(run.code).toBe(0);
  });
});
