/**
 * The harness's own reading of a payment case's end state, through the design's reads (as final-read.ts
 * reads reservations): on a fresh connection, `paymentStatus` and `outboxFor` of every key the case sent.
 * The design's `audit()` is compared against it (payment-invariants.ts), never trusted instead of it.
 */
import type { OutboxRecord, PaymentDesign, PaymentRecord } from '../../../../strategies/payment/contract.ts';
import { withCaseClient } from '../../../driver/case-client.ts';
import type { CaseConnection } from '../../../driver/case-connection.ts';

/** What one key reads back as: its payment rows and its outbox rows. */
export interface KeyReading {
  payments: readonly PaymentRecord[];
  outbox: readonly OutboxRecord[];
}

export type PaymentFinalRead = ReadonlyMap<string, KeyReading>;

export async function readPaymentsBack(
  connection: CaseConnection,
  design: PaymentDesign,
  keys: Iterable<string>,
): Promise<PaymentFinalRead> {
  return withCaseClient(connection, 'reservebench-final-read', async (client) => {
    const read = new Map<string, KeyReading>();
    for (const key of new Set(keys)) {
      read.set(key, {
        payments: await design.paymentStatus(client, key),
        outbox: await design.outboxFor(client, key),
      });
    }
    return read;
  });
}
