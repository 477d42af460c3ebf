/**
 * payment-on-conflict — the isolation-matrix chapter's design. A unique key on idempotency_key; the payment
 * is claimed with `INSERT … ON CONFLICT (idempotency_key) DO NOTHING`, and the winner writes the matching
 * outbox row in the same transaction.
 *
 * Correct because: the unique index admits one row per key. A second insert of the key waits on the
 * first one's uncommitted index entry; when that commits, the loser's insert does nothing, and its next
 * READ COMMITTED statement (a new snapshot) reads the winner's row: REUSED with the winner's response, or
 * MISMATCH when the fingerprints differ. Payment and outbox commit together or not at all.
 *
 * Breaks when: the key is not unique (payment-check-then-insert), the fingerprint is not compared
 * (payment-no-fingerprint), or the outbox is written in a transaction of its own (payment-split-outbox).
 *
 * Lifecycle: one transaction per request; nothing but the outbox is a side effect.
 * Pause points: pay `before-commit` (payment and outbox written, transaction open): a worker held there
 * holds the key's index entry, and every other worker with the key waits behind it.
 */

import { inTransaction } from '../support/transaction.ts';
import type { PaymentDesign, PaymentRequest, PaymentResult } from './contract.ts';
import {
  answerForRecordedPayment,
  claimKey,
  createPaymentTables,
  insertOutbox,
  isBadPayment,
  PAYMENT_TABLE_READS,
  responseOf,
} from './support/payment-tables.ts';

/**
 * The isolation-matrix chapter's pay; `whileClaimed` runs inside the transaction once the key is claimed and
 * its outbox row written, before the pause point and the commit (the cost control's call, the cache control's
 * fill).
 */
export function onConflictPay(
  whileClaimed: (request: PaymentRequest) => Promise<void> | void = () => undefined,
): PaymentDesign['pay'] {
  return async (ctx, request) => {
    if (isBadPayment(request)) return { outcome: 'BAD_REQUEST' };
    const { db } = ctx;
    return inTransaction(db, async (): Promise<PaymentResult> => {
      if (await claimKey(db, request)) {
        await insertOutbox(db, request);
        await whileClaimed(request);
        await ctx.pause('before-commit');
        return { outcome: 'CREATED', response: responseOf(request) };
      }
      // The statement after the conflict: a new READ COMMITTED snapshot, which sees the winner's commit.
      const recorded = await answerForRecordedPayment(db, request);
      if (!recorded)
        throw new Error(`ON CONFLICT did nothing, yet no payment has key ${request.idempotencyKey}`);
      return recorded;
    });
  };
}

const paymentOnConflict: PaymentDesign = {
  contract: 'payment',
  id: 'payment-on-conflict',
  title: 'Unique key + INSERT … ON CONFLICT DO NOTHING, then read the winner',
  guarantee: 'the unique key admits one payment per key; the loser reads the winner with its next statement',
  expect: 'hold',
  pausePoints: { pay: ['before-commit'] },

  setup: (db) => createPaymentTables(db, { uniqueKey: true }),
  pay: onConflictPay(),

  ...PAYMENT_TABLE_READS,
};

export default paymentOnConflict;
