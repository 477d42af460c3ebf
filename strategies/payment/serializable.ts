/**
 * payment-serializable — look the key up and write the payment and its outbox row under SERIALIZABLE,
 * the whole transaction retried on a serialization failure (40001), with no unique key.
 *
 * Correct because: two transactions that both read "no payment for the key" and both insert one form a
 * read-write cycle on the key's index range, which SSI breaks by failing one of them (40001). Its retry
 * runs on a new snapshot, finds the winner's committed payment and answers REUSED (or MISMATCH).
 *
 * Breaks when: the retry budget runs out (GAVE_UP: nothing written), or a writer of the table runs at a
 * lower isolation level (SSI protects only transactions that are all SERIALIZABLE).
 *
 * Lifecycle: one transaction per attempt, at most MAX_ATTEMPTS; each retry is reported (ctx.retried).
 * Pause points: pay `after-read` (the look-up of every attempt), `before-commit` (both rows written).
 */

import { SQLSTATE, sqlstateOf } from '../support/sqlstate.ts';
import { inTransaction } from '../support/transaction.ts';
import type { PaymentDesign, PaymentResult } from './contract.ts';
import {
  answerForRecordedPayment,
  createPaymentTables,
  insertOutbox,
  insertPayment,
  isBadPayment,
  PAYMENT_TABLE_READS,
  responseOf,
} from './support/payment-tables.ts';

/**
 * Attempts per request. A failure needs a concurrent writer of the key, and once one payment of the key
 * has committed every later attempt only reads it; so one retry per concurrent first writer is enough.
 */
const MAX_ATTEMPTS = 10;

const paymentSerializable: PaymentDesign = {
  contract: 'payment',
  id: 'payment-serializable',
  title: 'SERIALIZABLE look-up and insert, whole transaction retried on 40001',
  guarantee: 'SSI fails one of two transactions that both saw no payment; the retry reads the winner',
  expect: 'hold',
  needs: ['serializable'],
  pausePoints: { pay: ['after-read', 'before-commit'] },

  setup: (db) => createPaymentTables(db, { uniqueKey: false }),

  pay: async (ctx, request) => {
    if (isBadPayment(request)) return { outcome: 'BAD_REQUEST' };
    const { db } = ctx;
    for (let attempt = 1; ; attempt++) {
      try {
        return await inTransaction(
          db,
          async (): Promise<PaymentResult> => {
            const recorded = await answerForRecordedPayment(db, request);
            await ctx.pause('after-read');
            if (recorded) return recorded;
            await insertPayment(db, request);
            await insertOutbox(db, request);
            await ctx.pause('before-commit');
            return { outcome: 'CREATED', response: responseOf(request) };
          },
          'SERIALIZABLE',
        );
      } catch (error: unknown) {
        if (sqlstateOf(error) !== SQLSTATE.serializationFailure) throw error;
        if (attempt >= MAX_ATTEMPTS) return { outcome: 'GAVE_UP' };
        ctx.retried?.(SQLSTATE.serializationFailure);
      }
    }
  },

  ...PAYMENT_TABLE_READS,
};

export default paymentSerializable;
