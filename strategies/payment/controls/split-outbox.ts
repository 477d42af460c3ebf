/**
 * payment-split-outbox — NEGATIVE CONTROL (expect: violate). The isolation-matrix chapter's design, but the
 * outbox row is written in a second transaction after the payment's has committed.
 *
 * What it gets wrong: the payment and the event announcing it are no longer one atomic write. A worker
 * that dies between the two commits leaves a payment that no outbox row announces, and a retry with the
 * key finds the payment, answers REUSED and writes nothing: the payment is never announced.
 *
 * How the suite catches it every run: payment-worker-dies holds the first worker at
 * `between-transactions` and terminates its backend there, then retries the key on another session;
 * payment-kill-9 kills the worker's process -9 there (a crash child), and payment-order-flow kills the pay
 * step of an order there before retrying the flow from the top. The harness reads the key's payment and
 * outbox rows.
 */

import { inTransaction } from '../../support/transaction.ts';
import type { PaymentDesign, PaymentResult } from '../contract.ts';
import {
  answerForRecordedPayment,
  claimKey,
  createPaymentTables,
  insertOutbox,
  isBadPayment,
  PAYMENT_TABLE_READS,
  responseOf,
} from '../support/payment-tables.ts';

const paymentSplitOutbox: PaymentDesign = {
  contract: 'payment',
  id: 'payment-split-outbox',
  title: 'Unique key, payment committed first, outbox in a second transaction',
  guarantee: 'none across a crash: a worker dying between the commits leaves a payment with no outbox row',
  expect: 'violate',
  caughtBy: {
    'payment-worker-dies': ['outboxMatchesPayment'],
    'payment-kill-9': ['outboxMatchesPayment'],
    'payment-order-flow': ['outboxMatchesPayment'],
  },
  pausePoints: { pay: ['between-transactions'] },

  setup: (db) => createPaymentTables(db, { uniqueKey: true }),

  pay: async (ctx, request) => {
    if (isBadPayment(request)) return { outcome: 'BAD_REQUEST' };
    const { db } = ctx;
    const recorded = await inTransaction(db, async (): Promise<PaymentResult | null> => {
      return (await claimKey(db, request)) ? null : answerForRecordedPayment(db, request);
    });
    if (recorded) return recorded;
    await ctx.pause('between-transactions');
    await inTransaction(db, () => insertOutbox(db, request));
    return { outcome: 'CREATED', response: responseOf(request) };
  },

  ...PAYMENT_TABLE_READS,
};

export default paymentSplitOutbox;
