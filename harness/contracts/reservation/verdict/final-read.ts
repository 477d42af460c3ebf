/**
 * The harness's own reading of a case's end state, through the business API (the way Jepsen reads a
 * system back through its own interface): on a fresh connection, `status` of every key the case sent and
 * `remaining` of every sku it was given. The strategy's `audit()` is compared against this, never trusted
 * instead of it.
 */
import type { ReservationStatus, Strategy } from '../../../../strategies/contract.ts';
import { withCaseClient } from '../../../driver/case-client.ts';
import type { CaseConnection } from '../../../driver/client-task.ts';

export type KeyStatus = ReservationStatus | 'NOT_FOUND';

export interface FinalRead {
  statuses: ReadonlyMap<string, KeyStatus>;
  remaining: ReadonlyMap<string, number>;
}

export async function readBack(
  connection: CaseConnection,
  strategy: Strategy,
  keys: Iterable<string>,
  skus: readonly string[],
): Promise<FinalRead> {
  return withCaseClient(connection, 'reservebench-final-read', async (client) => {
    const statuses = new Map<string, KeyStatus>();
    for (const key of new Set(keys)) statuses.set(key, await strategy.status(client, key));
    const remaining = new Map<string, number>();
    for (const sku of skus) remaining.set(sku, await strategy.remaining(client, sku));
    return { statuses, remaining };
  });
}
