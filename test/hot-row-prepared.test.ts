/**
 * hot-row's reserve path on one real connection, as the bench drives it: every answer on the first call
 * (BEGIN and the claim one after the other, statements parsed) and on later ones (BEGIN and the claim in
 * one batch), three round trips for a HELD, the connection left idle after each answer and each error,
 * and named statements following the connection into another schema.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PausePoint, ReserveRequest, SessionContext } from '../strategies/contract.ts';
import hotRow from '../strategies/hot-row.ts';
import { useRunDatabase } from './db-fixture.ts';

const { db, admin } = useRunDatabase();
const SKU = 'sku-prep-01';

let schemaA: string;
let schemaB: string;
let client: pg.Client;
let pauseHook: (point: PausePoint) => Promise<void> = async () => undefined;
const ctx = (): SessionContext => ({ db: client, pause: (point) => pauseHook(point) });
const request = (key: string, user: string, sku = SKU): ReserveRequest => ({
  requestKey: key,
  user,
  sku,
  ttlMs: 60_000,
});

async function setUp(label: string, total: number): Promise<string> {
  const schema = await db().createCaseSchema(label);
  await admin().query(`SET search_path TO ${schema}`);
  await hotRow.setup(admin(), [{ sku: SKU, total }]);
  await admin().query('RESET search_path');
  return schema;
}

/** What a reserve answered and how many round trips (ReadyForQuery messages) it took. */
async function reserve(req: ReserveRequest): Promise<{ outcome: string; status?: string; trips: number }> {
  let trips = 0;
  const count = () => {
    trips += 1;
  };
  const connection = (client as unknown as { connection: pg.Connection }).connection;
  connection.on('readyForQuery', count);
  try {
    const answer = await hotRow.reserve(ctx(), req);
    return { ...answer, trips };
  } finally {
    connection.off('readyForQuery', count);
  }
}

const idle = () => (client as unknown as { getTransactionStatus(): string | null }).getTransactionStatus();

const stockIn = async (schema: string) =>
  (await admin().query<{ available: number }>(`SELECT available FROM ${schema}.sku_stock`)).rows[0]
    ?.available;
const keysIn = async (schema: string) =>
  (
    await admin().query<{ request_key: string; status: string }>(
      `SELECT request_key, status FROM ${schema}.reservation ORDER BY request_key`,
    )
  ).rows;

beforeAll(async () => {
  schemaA = await setUp('prepared_a', 2);
  schemaB = await setUp('prepared_b', 5);
  client = new pg.Client({ connectionString: db().connectionString, options: `-c search_path=${schemaA}` });
  client.on('error', () => undefined);
  await client.connect();
});

afterAll(async () => {
  await client?.end().catch(() => undefined);
});

describe("hot-row's prepared reserve path", () => {
  it('answers every outcome, first one by one, then with BEGIN and the claim in one batch', async () => {
    // First call on the connection: BEGIN, claim, decrement, COMMIT one after the other.
    expect(await reserve(request('k1', 'u1'))).toEqual({ outcome: 'HELD', status: 'HELD', trips: 4 });
    expect(idle()).toBe('I');
    // From now on: [BEGIN + claim], decrement, COMMIT.
    expect(await reserve(request('k2', 'u2'))).toEqual({ outcome: 'HELD', status: 'HELD', trips: 3 });
    expect(await reserve(request('k3', 'u3'))).toMatchObject({ outcome: 'SOLD_OUT' });
    expect(await reserve(request('k1', 'u1'))).toMatchObject({ outcome: 'REPLAY', status: 'HELD' });
    expect(await reserve(request('k1', 'u9'))).toMatchObject({ outcome: 'KEY_REUSED' });
    // The one-active-per-user index: a 23505 out of the batch, its SQLSTATE intact.
    expect(await reserve(request('k4', 'u1'))).toMatchObject({ outcome: 'USER_LIMIT' });
    expect(await reserve(request('k5', 'u5', 'sku-unknown'))).toMatchObject({ outcome: 'BAD_REQUEST' });
    expect(idle()).toBe('I');
    // Sold out rolled back the whole transaction: k3's claim is gone, nothing else was written.
    expect(await keysIn(schemaA)).toEqual([
      { request_key: 'k1', status: 'HELD' },
      { request_key: 'k2', status: 'HELD' },
    ]);
    expect(await stockIn(schemaA)).toBe(0);
    const { rows } = await client.query<{ name: string }>(
      'SELECT name FROM pg_prepared_statements ORDER BY name',
    );
    expect(rows.map((r) => r.name)).toEqual([
      'reservebench-begin',
      'reservebench-insert-held',
      'reservebench-recorded-key',
      'reservebench-sku-known',
      'reservebench-take-unit',
    ]);
  });

  it('rolls back at a pause point and after a failed claim, leaving the connection idle', async () => {
    pauseHook = async (point) => {
      if (point === 'after-read') throw new Error('rolled back at after-read');
    };
    await expect(hotRow.reserve(ctx(), request('k6', 'u6'))).rejects.toThrow('rolled back at after-read');
    pauseHook = async () => undefined;
    expect(idle()).toBe('I');
    // A claim the server refuses for another reason (a ttl that is no number): the error, then idle.
    await expect(
      hotRow.reserve(ctx(), { ...request('k7', 'u7'), ttlMs: 'soon' as unknown as number }),
    ).rejects.toMatchObject({ code: '22P02' });
    expect(idle()).toBe('I');
    expect((await keysIn(schemaA)).map((r) => r.request_key)).toEqual(['k1', 'k2']);
  });

  it("follows the connection's search_path into another schema: no statement runs against the old tables", async () => {
    await client.query(`SET search_path TO ${schemaB}`);
    // k1 is HELD in schema A; in B it is a new key, so a stale statement would answer REPLAY.
    expect(await reserve(request('k1', 'u1'))).toEqual({ outcome: 'HELD', status: 'HELD', trips: 3 });
    expect(await keysIn(schemaB)).toEqual([{ request_key: 'k1', status: 'HELD' }]);
    expect(await stockIn(schemaB)).toBe(4);
    expect(await stockIn(schemaA)).toBe(0);
    // The tables dropped and made again under the same names: the statements are analysed again.
    await admin().query(`DROP TABLE ${schemaB}.reservation, ${schemaB}.sku_stock`);
    await admin().query(`SET search_path TO ${schemaB}`);
    await hotRow.setup(admin(), [{ sku: SKU, total: 1 }]);
    await admin().query('RESET search_path');
    expect(await reserve(request('k1', 'u1'))).toMatchObject({ outcome: 'HELD' });
    expect(await reserve(request('k2', 'u2'))).toMatchObject({ outcome: 'SOLD_OUT' });
    expect(await stockIn(schemaB)).toBe(0);
  });
});
