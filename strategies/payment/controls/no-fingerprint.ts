/**
 * payment-no-fingerprint — NEGATIVE CONTROL (expect: violate). The isolation-matrix chapter's design (unique
 * key, INSERT … ON CONFLICT DO NOTHING, read the winner) without the fingerprint comparison.
 *
 * What it gets wrong: a request that reuses a key with another payload (amount 9999 where 3000 was paid)
 * is answered REUSED with the first request's response, as if it had been paid: the client believes
 * 99.99 went through, and the idempotency key has hidden a different request instead of refusing it.
 *
 * How the suite catches it every run: payment-mismatch pays a key, then sends the same key with amount
 * 9999; the harness compares the fingerprint it sent with the one recorded for the key.
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

const paymentNoFingerprint: PaymentDesign = {
  contract: 'payment',
  id: 'payment-no-fingerprint',
  title: 'Unique key, winner read back, fingerprint never compared',
  guarantee: 'none for payloads: the same key with another amount is answered with the first response',
  expect: 'violate',
  caughtBy: { 'payment-mismatch': ['reusedOtherPayload'] },
  pausePoints: { pay: ['before-commit'] },

  setup: (db) => createPaymentTables(db, { uniqueKey: true }),

  pay: async (ctx, request) => {
    if (isBadPayment(request)) return { outcome: 'BAD_REQUEST' };
    const { db } = ctx;
    return inTransaction(db, async (): Promise<PaymentResult> => {
      if (await claimKey(db, request)) {
        await insertOutbox(db, request);
        await ctx.pause('before-commit');
        return { outcome: 'CREATED', response: responseOf(request) };
      }
      const recorded = await answerForRecordedPayment(db, request, { compareFingerprint: false });
      if (!recorded)
        throw new Error(`ON CONFLICT did nothing, yet no payment has key ${request.idempotencyKey}`);
      return recorded;
    });
  },

  ...PAYMENT_TABLE_READS,
};

export default paymentNoFingerprint;
