/**
 * One admission gate for several instances (docs/scale.md). Four instances of the service in front of one
 * database, each request i sent to instance i mod 4, with the tables held by the harness so that every
 * admitted request stays inside (frozen-gate-case.ts): a gate shared through PostgreSQL or Redis lets
 * exactly its LIMIT of 4 in across all four, as the database's own view shows; the per-process gate, the
 * control, lets 4 per instance in — 16 — and the case fails for exactly that.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStrategy } from '../harness/contracts/reservation/designs/registry.ts';
import {
  type FrozenGateResult,
  runFrozenGateCase,
} from '../harness/contracts/reservation/gate/frozen-gate-case.ts';
import { postReserve } from '../harness/contracts/reservation/http/loopback-client.ts';
import {
  type ReservationService,
  startReservationService,
} from '../harness/contracts/reservation/http/reservation-service.ts';
import { nodeIdentity } from '../harness/driver/node-identity.ts';
import { DEFAULT_LEASE_MS, type GateChoice } from '../harness/gate/gate.ts';
import { useRunDatabase } from './db-fixture.ts';
import { NO_REDIS, REDIS_SERVER, type RedisProcess, startRedis } from './redis-server.ts';

const SKU = 'sku-lab-01';
const INSTANCES = 4;
const LIMIT = 4;
/** Six requests per instance: four places and two waiting at each, on 4:8. */
const REQUESTS = 24;

const { db } = useRunDatabase();
const connections: pg.Client[] = [];

async function connection(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: db().connectionString, application_name: 'gate-test' });
  await client.connect();
  connections.push(client);
  return client;
}

afterAll(async () => {
  await Promise.all(connections.map((c) => c.end().catch(() => undefined)));
});

/** Fresh tables and four in-process instances on them, behind `gate`. */
async function instances(
  label: string,
  gate: GateChoice,
): Promise<{ schema: string; services: ReservationService[] }> {
  const { strategy } = await loadStrategy('hot-row');
  const schema = await db().createCaseSchema(`gate_${label}`);
  const admin = await connection();
  await admin.query(`SET search_path TO ${schema}`);
  await strategy.setup(admin, [{ sku: SKU, total: 40 }]);
  const services: ReservationService[] = [];
  for (let i = 0; i < INSTANCES; i++) {
    services.push(
      await startReservationService({
        strategy,
        connectionString: db().connectionString,
        schema,
        admission: { limit: LIMIT, maxWaiting: 8, waitMs: 300 },
        gate,
        workMs: 0,
        node: nodeIdentity(schema, i, INSTANCES),
      }),
    );
  }
  return { schema, services };
}

async function frozenCase(label: string, gate: GateChoice): Promise<FrozenGateResult> {
  const { schema, services } = await instances(label, gate);
  try {
    return await runFrozenGateCase({
      urls: services.map((s) => s.url),
      holder: await connection(),
      observer: await connection(),
      schema,
      sku: SKU,
      requests: REQUESTS,
      limit: LIMIT,
      timeoutMs: 30_000,
    });
  } finally {
    await Promise.all(services.map((s) => s.close()));
  }
}

const shared = (kind: 'postgres' | 'redis', redisUrl?: string): GateChoice => ({
  kind,
  failureMode: 'closed',
  leaseMs: DEFAULT_LEASE_MS,
  ...(redisUrl ? { redisUrl } : {}),
});

describe('a gate shared by four instances', () => {
  it('through PostgreSQL: never more than its LIMIT inside across all four, as the database sees it', async () => {
    const result = await frozenCase('postgres', shared('postgres'));
    expect(result.problems).toEqual([]);
    expect(result.insideAtOnce).toBe(LIMIT);
    expect(result.concurrency.max).toBeLessThanOrEqual(LIMIT);
    expect(result.concurrency.samples).toBeGreaterThan(0);
    expect(result.answers).toEqual({ '201 HELD': LIMIT, '503 REJECTED_WAIT_TIMEOUT': REQUESTS - LIMIT });
  });

  it('the control, one gate per process: 4 × LIMIT inside, and the case fails for exactly that', async () => {
    const result = await frozenCase('local', { kind: 'local', failureMode: 'closed', leaseMs: 1 });
    expect(result.insideAtOnce).toBe(INSTANCES * LIMIT);
    expect(result.problems).toEqual([
      `database concurrency ${INSTANCES * LIMIT} > the gate's limit ${LIMIT}: more requests were inside than it admits`,
    ]);
    expect(result.answers['201 HELD']).toBe(INSTANCES * LIMIT);
  });
});

describe.skipIf(!REDIS_SERVER)(`a gate shared through Redis${REDIS_SERVER ? '' : ` (${NO_REDIS})`}`, () => {
  let redis: RedisProcess | undefined;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.kill();
  });

  it('never lets more than its LIMIT in across four instances', async () => {
    const result = await frozenCase('redis', shared('redis', redis?.url));
    expect(result.problems).toEqual([]);
    expect(result.insideAtOnce).toBe(LIMIT);
    expect(result.answers).toEqual({ '201 HELD': LIMIT, '503 REJECTED_WAIT_TIMEOUT': REQUESTS - LIMIT });
  });

  it('with its store gone, fails as declared: closed answers 503, open lets the request through', async () => {
    const store = await startRedis();
    const { services: closed } = await instances('redis_closed', shared('redis', store.url));
    const { services: open } = await instances('redis_open', {
      ...shared('redis', store.url),
      failureMode: 'open',
    });
    try {
      const request = (key: string) => ({ requestKey: key, user: `user-${key}`, sku: SKU, ttlMs: 60_000 });
      expect((await postReserve(closed[0]?.url ?? '', request('before'))).code).toBe(201);
      await store.kill();
      const refused = await postReserve(closed[0]?.url ?? '', request('closed'));
      expect([refused.code, refused.fields.outcome, refused.retryAfter]).toEqual([
        503,
        'REJECTED_GATE_UNAVAILABLE',
        '1',
      ]);
      const through = await postReserve(open[0]?.url ?? '', request('open'));
      expect([through.code, through.fields.outcome]).toEqual([201, 'HELD']);
      expect(closed[0]?.counters().storeFailures).toBeGreaterThan(0);
      expect(open[0]?.counters()).toMatchObject({ failureMode: 'open', failedOpen: 1 });
    } finally {
      await store.kill();
      await Promise.all([...closed, ...open].map((s) => s.close()));
    }
  });
});
