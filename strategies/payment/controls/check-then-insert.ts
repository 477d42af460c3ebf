/**
 * payment-check-then-insert — NEGATIVE CONTROL (expect: violate). Looks the key up and, finding nothing,
 * inserts the payment and its outbox row, with no unique key and no lock.
 *
 * What it gets wrong: READ COMMITTED shows a request nothing of another one's uncommitted payment, so two
 * workers with one key both find it absent and both insert: two payments (and two outbox rows) for one
 * idempotency key, each worker told CREATED with its own payment id.
 *
 * How the suite catches it every run: in payment-two-workers the first worker is held at `before-commit`
 * with its payment written while the second runs to its end, and in payment-duplicates every worker is
 * held at `after-read` until all have looked the key up; the harness's read of the key counts the rows.
 */

import { inTransaction } from '../../support/transaction.ts';
import type { PaymentDesign, PaymentResult } from '../contract.ts';
import {
  answerForRecordedPayment,
  createPaymentTables,
  insertOutbox,
  insertPayment,
  isBadPayment,
  PAYMENT_TABLE_READS,
  responseOf,
} from '../support/payment-tables.ts';

const paymentCheckThenInsert: PaymentDesign = {
  contract: 'payment',
  id: 'payment-check-then-insert',
  title: 'Check-then-insert: look the key up, insert when absent, no unique key',
  guarantee: 'none: two requests that both find the key absent both insert a payment',
  expect: 'violate',
  caughtBy: {
    'payment-two-workers': ['onePaymentPerKey'],
    'payment-duplicates': ['onePaymentPerKey'],
  },
  pausePoints: { pay: ['after-read', 'before-commit'] },

  setup: (db) => createPaymentTables(db, { uniqueKey: false }),

  pay: async (ctx, request) => {
    if (isBadPayment(request)) return { outcome: 'BAD_REQUEST' };
    const { db } = ctx;
    return inTransaction(db, async (): Promise<PaymentResult> => {
      const recorded = await answerForRecordedPayment(db, request);
      await ctx.pause('after-read');
      if (recorded) return recorded;
      await insertPayment(db, request);
      await insertOutbox(db, request);
      await ctx.pause('before-commit');
      return { outcome: 'CREATED', response: responseOf(request) };
    });
  },

  ...PAYMENT_TABLE_READS,
};

export default paymentCheckThenInsert;
