/**
 * payment-attempt-id-unique — NEGATIVE CONTROL (expect: violate). Deduplicates on the payment id, and
 * makes that id itself for every attempt: `INSERT … ON CONFLICT (payment_id) DO NOTHING` with no unique
 * key on idempotency_key.
 *
 * What it gets wrong: the unique key is the attempt's, not the request's. A retry of a key whose first
 * attempt committed — after a lost commit acknowledgement, the case a retry exists for — is a new attempt
 * with a new id, so nothing conflicts and the key gets a second payment (and outbox row), answered
 * CREATED again. Concurrent duplicates of one key each insert their own.
 *
 * How the suite catches it every run: payment-commit-ack-lost cuts the first attempt's commit answer and
 * retries the key; payment-duplicates sends 20 at once. The harness's read of the key counts the rows.
 *
 * Pause points: pay `before-commit` (payment and outbox written, transaction open).
 */

import { randomUUID } from 'node:crypto';
import { inTransaction } from '../../support/transaction.ts';
import type { PaymentDesign, PaymentResult } from '../contract.ts';
import {
  createPaymentTables,
  insertOutbox,
  insertPayment,
  isBadPayment,
  PAYMENT_TABLE_READS,
  responseOf,
} from '../support/payment-tables.ts';

const paymentAttemptIdUnique: PaymentDesign = {
  contract: 'payment',
  id: 'payment-attempt-id-unique',
  title: 'Unique payment id, made anew per attempt: the key itself is not unique',
  guarantee: 'none: every attempt has its own id, so a retry of a committed key pays again',
  expect: 'violate',
  caughtBy: {
    'payment-commit-ack-lost': ['onePaymentPerKey'],
    'payment-duplicates': ['onePaymentPerKey'],
  },
  pausePoints: { pay: ['before-commit'] },

  setup: (db) => createPaymentTables(db, { uniqueKey: false }),

  pay: async (ctx, request) => {
    if (isBadPayment(request)) return { outcome: 'BAD_REQUEST' };
    const { db } = ctx;
    const attempt = { ...request, paymentId: `${request.paymentId}-${randomUUID()}` };
    return inTransaction(db, async (): Promise<PaymentResult> => {
      await insertPayment(db, attempt);
      await insertOutbox(db, attempt);
      await ctx.pause('before-commit');
      return { outcome: 'CREATED', response: responseOf(attempt) };
    });
  },

  ...PAYMENT_TABLE_READS,
};

export default paymentAttemptIdUnique;
