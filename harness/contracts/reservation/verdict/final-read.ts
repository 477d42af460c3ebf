/**
 * The harness's own reading of a case's end state, through the business API (the way Jepsen reads a
 * system back through its own interface): on a fresh connection (a few side by side for a case of many
 * keys), `status` of every key the case sent and `remaining` of every sku it was given. The strategy's `audit()` is compared against this, never trusted
 * instead of it.
 */
import type pg from 'pg';
import type { ReservationStatus, Strategy } from '../../../../strategies/contract.ts';
import { caseClient } from '../../../driver/case-client.ts';
import type { CaseConnection } from '../../../driver/case-connection.ts';

export type KeyStatus = ReservationStatus | 'NOT_FOUND';

export interface FinalRead {
  statuses: ReadonlyMap<string, KeyStatus>;
  remaining: ReadonlyMap<string, number>;
}

/** Connections the final read of a case with many keys spreads them over (each key read once). */
const READERS = 4;
/** Keys per reader below which one connection reads them all. */
const KEYS_PER_READER = 32;

async function reader(connection: CaseConnection): Promise<pg.Client> {
  const client = caseClient(connection, 'reservebench-final-read');
  await client.connect();
  return client;
}

/** `work` over `items` on `clients` side by side, each client taking the next item when it is free. */
async function spread<T, R>(
  clients: pg.Client[],
  items: readonly T[],
  work: (c: pg.Client, item: T) => Promise<R>,
) {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    clients.map(async (client) => {
      for (let i = next++; i < items.length; i = next++) out[i] = await work(client, items[i] as T);
    }),
  );
  return out;
}

export async function readBack(
  connection: CaseConnection,
  strategy: Strategy,
  keys: Iterable<string>,
  skus: readonly string[],
): Promise<FinalRead> {
  const unique = [...new Set(keys)];
  const count = Math.max(1, Math.min(READERS, Math.floor((unique.length + skus.length) / KEYS_PER_READER)));
  const clients = await Promise.all(Array.from({ length: count }, () => reader(connection)));
  try {
    const statuses = await spread(clients, unique, (c, key) => strategy.status(c, key));
    const remaining = await spread(clients, skus, (c, sku) => strategy.remaining(c, sku));
    return {
      statuses: new Map(unique.map((key, i) => [key, statuses[i] as KeyStatus])),
      remaining: new Map(skus.map((sku, i) => [sku, remaining[i] as number])),
    };
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  }
}
